"""The spelling grammar text (generated from the registry), the limits on its numbers, and
the located `ConfigError` every layout error is."""

from __future__ import annotations

from expressivity.errors import ConfigError, echo
from expressivity.layouts.registry import KINDS, Atom

__all__ = ["GRAMMAR", "LIMITS", "check_atom", "fail", "number", "quote"]

#: Bounds on the numbers of a spelling, checked while it is parsed, before anything is built
#: (issue 28). ``window`` bounds k of Lk, the band k·d of Dk.d, r of Rr and g of Tg: a window
#: of 10,001 token positions already holds every earlier symbol of the longest word the
#: toolkit samples (``data.splits.MAX_LENGTH`` = 10,000), so on every such word a larger one
#: reads exactly what 10,001 reads (k-local then differs from global only in not seeing BOS).
#: ``block`` bounds b of Bb lower: the theory's block automaton grows with b (b = 1,024 takes
#: about a second to classify). ``heads`` and ``layers`` bound ``Nx`` counts and repeats.
#: Each atom kind names the limit that bounds its size (`AtomKind.limit`).
LIMITS = {"window": 10_001, "block": 1_024, "heads": 1_024, "layers": 1_024}
_DIGITS = 12  # digits of a spelled number read at most (every limit has fewer)

#: The spelling grammar, quoted by every parse error; the atoms are the registry's.
GRAMMAR = (
    "presets: global, local-k, hybrid-k[:g=G], interleaved-k, longformer-k-g, bigbird-k-r-g, "
    "dilated-k-d, block-b, mamba, mamba-signed, s4d, deltanet, samba-k, jamba-n; encoder "
    "presets: full, window-r, longformer-enc-r, "
    "longformer-enc-r-sep, bigbird-enc-b-r-g, strided-l, fixed-l-c, strided-enc-l, "
    "fixed-enc-l-c, swin-M; custom: layers ';'-separated (Nx(layer) repeats one), a layer is a "
    "','-list of [Nx]pattern, a pattern a '+'-union of atoms "
    + ", ".join(f"{k.spelling} ({k.meaning})" for k in KINDS.values())
    + "; a custom spelling such as '4xG,4xL1', 'L3+R2+T1' or '2x(8xG);3x(8xL2)'"
)


def fail(text: str, why: str) -> ConfigError:
    """The error for spelling ``text``: what is wrong, then the grammar."""
    return ConfigError(f"layout: invalid value {echo(text, 80)}: {why}. Grammar: {GRAMMAR}")


def quote(text: str, limit: int = 40) -> str:
    """A part of a spelling as an error repeats it (cut after ``limit`` characters)."""
    return repr(text) if len(text) <= limit else repr(text[:limit] + "…")


def number(digits: str, whole: str) -> int:
    """A spelled number; more digits than any limit has is refused before `int` reads them."""
    if len(digits) > _DIGITS:
        raise fail(whole, f"the number {quote(digits)} has {len(digits)} digits, more than any "
                   f"layout limit (layouts.LIMITS: {LIMITS})")
    return int(digits)


def check_atom(atom: Atom, text: str, whole: str) -> Atom:
    """``atom`` (spelled ``text`` in ``whole``) if its kind takes its numbers, else the error."""
    spec = KINDS[atom.kind]
    if len(atom.params) != spec.arity:
        raise fail(whole, f"atom {atom.kind} takes {spec.arity} number(s), got {text!r}")
    lows = getattr(spec, "minimum", ()) or (1,) * spec.arity  # encoder kinds: W0, AT0
    if any(p < low for p, low in zip(atom.params, lows, strict=True)):
        bound = ", ".join(f">= {low}" for low in lows) if len(set(lows)) > 1 else f">= {lows[0]}"
        raise fail(whole, f"atom {text!r} needs numbers {bound}")
    size = spec.size(atom.params)
    if size > LIMITS[spec.limit]:
        raise fail(whole, f"atom {quote(text)}: {spec.measure} = {size} is above the limit "
                   f"{LIMITS[spec.limit]} (layouts.LIMITS[{spec.limit!r}]){spec.beyond}")
    why = spec.problem(atom.params)
    if why is not None:
        raise fail(whole, f"atom {quote(text)}: {why}")
    return atom
