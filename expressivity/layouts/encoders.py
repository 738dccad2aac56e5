"""The encoder families (issue 32): which patterns are encoders, and the presets that spell them.

=========================  ================================  ==================================
preset                     head pattern                      system
=========================  ================================  ==================================
``full``                   ``F``                             unmasked encoder
``window-r``               ``W{r}``                          symmetric window
``longformer-enc-r``       ``W{r}+CLS``                      Longformer, CLS global
``longformer-enc-r-sep``   ``W{r}+CLS+SEP``                  Longformer, CLS and SEP global
``bigbird-enc-b-r-g``      ``BW{b}+BR{b}.{r}+BG{b}.{g}``     BigBird (ITC)
``strided-l``              ``ST{l}``                         Sparse Transformer, causal
``fixed-l-c``              ``SF{l}.{c}``                     Sparse Transformer, causal
``strided-enc-l``          ``STE{l}``                        its encoder form
``fixed-enc-l-c``          ``SFE{l}.{c}``                    its encoder form
``swin-M``                 layers alternate ``SW{M}``,       1-D Swin
                           ``SWS{M}``
=========================  ================================  ==================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.registry import Atom

__all__ = ["ENCODER_ARITY", "ENCODER_ATOMS", "family_of", "is_encoder"]

#: Every encoder preset family and how many numbers its spelling takes.
ENCODER_ARITY = {"full": 0, "window": 1, "longformer-enc": 1, "longformer-enc-sep": 1,
                 "bigbird-enc": 3, "strided": 1, "fixed": 2, "strided-enc": 1, "fixed-enc": 2,
                 "swin": 1}
#: The head patterns of each family (space-separated: swin's two alternating layers).
ENCODER_ATOMS = {"full": "F", "window": "W{0}", "longformer-enc": "W{0}+CLS",
                 "longformer-enc-sep": "W{0}+CLS+SEP", "bigbird-enc": "BW{0}+BR{0}.{1}+BG{0}.{2}",
                 "strided": "ST{0}", "fixed": "SF{0}.{1}", "strided-enc": "STE{0}",
                 "fixed-enc": "SFE{0}.{1}", "swin": "SW{0} SWS{0}"}


def family_of(match: re.Match[str]) -> str:
    """The family a preset match names: its name, with ``-sep`` when spelled after the numbers
    (``longformer-enc-1-sep`` is the family ``longformer-enc-sep``)."""
    return match.group(1) + (match.group(3) or "")


def is_encoder(atoms: Iterable[Atom]) -> bool:
    """Whether some atom is of an encoder kind (`EncoderKind`: bidirectional or self-including,
    keys confined to the string, so its mask needs each string's own length)."""
    return any(isinstance(a.spec, EncoderKind) for a in atoms)
