"""Which readouts a layout can serve (does the read position ever depend on a symbol?), and
whether its global-token indices fit the model's length.

The classifier reads one position (``cls``: 0, ``eos``: N + 1, ``last``: N) or the mean of all
of them (`expressivity.models.readout`). Through ``L`` layers a position's state is a function
of the tokens in its *reach*: the position itself and, layer by layer from the last down, every
key some head's mask row (sink rule applied) gives a position already in the reach. BOS and
EOS are the same tokens in every string, so a read position whose reach holds no symbol
``1..N`` has the same state in every string of that length: the classifier is a constant. A
readout with that reach in every string of 2 .. `REACH_TOKENS` tokens cannot be served (e.g.
``cls`` under a causal layout: row 0 reads only itself in every layer); `readout_problem` says
why. ``mean`` and ``last`` read a symbol's own state whenever N >= 1 and are always served.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from expressivity.layouts.grammar import fail
from expressivity.layouts.mixer import is_mixer
from expressivity.models.layouts import Layout, Pattern

__all__ = ["REACH_TOKENS", "index_problem", "reach", "readout_problem"]

#: The longest string (tokens, BOS and EOS included) `readout_problem` checks: every training
#: string of the shipped profiles is shorter (their training lengths stop at 40 symbols).
REACH_TOKENS = 66


def reach(layout: Layout, row: int, length: int, *, strict: bool = True) -> frozenset[int]:
    """The positions whose tokens the state of position ``row`` after every layer of ``layout``
    depends on, in a string of ``length`` tokens (see the module docstring)."""
    if not 0 <= row < length:
        raise ValueError(f"row {row} is not a position of {length} tokens")
    seen = torch.zeros(length, dtype=torch.bool)
    seen[row] = True
    for layer in reversed(layout.layers):
        heads = torch.stack([_row_keys(p, length, strict) for p in dict.fromkeys(layer)])
        seen = seen | (heads & seen[None, :, None]).any(dim=(0, 1))
    return frozenset(torch.nonzero(seen).flatten().tolist())


def _row_keys(pattern: Pattern, length: int, strict: bool) -> torch.Tensor:
    """(T, T): the positions each row's state reads through one head: its mask (sink rule
    applied), or every m <= n for an SSM mixer head (a causal recurrence over the prefix)."""
    if any(is_mixer(a.spec) for a in pattern.atoms):
        return torch.ones(length, length, dtype=torch.bool).tril()
    return pattern.mask(length, strict=strict)


@lru_cache(maxsize=256)
def readout_problem(layout: Layout, readout: str, *, strict: bool = True) -> str | None:
    """Why ``layout`` cannot serve ``readout`` (its read position reaches no symbol in any
    string of 2 .. `REACH_TOKENS` tokens), or None when it can."""
    if readout not in ("cls", "eos"):
        return None
    for length in range(3, REACH_TOKENS + 1):  # N >= 1: a string with a symbol
        row = 0 if readout == "cls" else length - 1
        if any(1 <= m <= length - 2 for m in reach(layout, row, length, strict=strict)):
            return None
    where = "position 0 (BOS)" if readout == "cls" else "position N + 1 (EOS)"
    return (f"readout {readout!r} reads {where}, and under layout {layout.canonical()!r} that "
            f"position depends on no symbol in any string of up to {REACH_TOKENS} tokens (every "
            "layer's mask row gives it only itself and BOS/EOS), so the classifier would be a "
            "constant; use a readout the layout serves (eos, last or mean for a causal layout) "
            "or add a global token (CLS, AT0) or a window to the layout")


def index_problem(text: str, layout: Layout, max_len: int) -> str | None:
    """The located layout error (grammar listed) for a global token ``AT{i}`` at an index the
    model never reads (i >= ``max_len``, its longest input in tokens), or None."""
    for row in layout.layers:
        for pattern in row:
            for atom in pattern.atoms:
                if atom.kind == "AT" and atom.params[0] >= max_len:
                    return str(fail(text, f"atom {atom}: the global token index {atom.params[0]} "
                                    f"is beyond the model's max_len = {max_len} tokens (indices "
                                    f"0..{max_len - 1}); use an index below {max_len} or raise "
                                    "max_len"))
    return None
