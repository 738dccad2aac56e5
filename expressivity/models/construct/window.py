"""Window events: a P node's event read from the tokens at Mamba's conv taps (theory.md §16.1).

A selective mixer's channel sees its input through a causal convolution of width 4, so at
position t it reads the tokens at t−1, t−2 and t−3 at once. When the argument ψ of a node P ψ
is a Boolean function of the letter and of Y^k atoms (k ≤ 2) of token functions, ψ at t−1 is
a function of those tokens, and the node's event needs no earlier layer: `event_window` lists
the token codes where ψ holds as runs of integers, which `models.construct.mixer` turns into
steps of the convolution's output. Everything here is exact enumeration over tokens.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from expressivity.alphabet import Alphabet
from expressivity.models.construct.mixer_data import CONV_TAPS, Atom, Node, Op, Signal, Window

__all__ = ["event_window", "token_code"]


def event_window(psi: Signal, nodes: Sequence[Node], signals: Sequence[Signal],
                 alphabet: Alphabet) -> Window | None:
    """ψ's event as a `Window` over the tokens at t−1 … t−3, when ψ reads only the letter and
    Y^k atoms (k ≤ 2, one channel each) of token functions; None otherwise, and for a ψ
    without a node atom (one channel reads a token function at t−1 already)."""
    prev = [nodes[int(a[1])] for a in psi.atoms if a[0] == "node"]
    if not prev or any(n.op is not Op.PREV or n.lag >= CONV_TAPS or signals[n.signals[0]].level
                       for n in prev):
        return None
    taps = 1 + max(n.lag for n in prev)
    letters: list[Atom] = [("sym", x) for x in alphabet.symbols] + [("eos",)]
    base, codes = 3 + len(alphabet), []
    for m in range(1, taps + 1):  # m letters (the latest may be EOS), then BOS, then nothing
        for word in itertools.product(letters, repeat=m):
            if ("eos",) in word[1:]:
                continue
            tokens: list[Atom | None] = [*word, *([("bos",)] if m < taps else []),
                                         *[None] * (taps - m - 1)]
            if _holds(psi, tokens, nodes, signals):
                codes.append(sum(base ** j * token_code(tok, alphabet)
                                 for j, tok in enumerate(tokens)))
    return Window(taps, _runs(sorted(codes)))


def _holds(psi: Signal, tokens: list[Atom | None], nodes: Sequence[Node],
           signals: Sequence[Signal]) -> bool:
    """ψ at t−1 given the tokens at t−1, t−2, … (None: before BOS)."""
    env: dict[Atom, bool] = {}
    for atom in psi.atoms:
        if atom[0] != "node":
            env[atom] = tokens[0] == atom
            continue
        node = nodes[int(atom[1])]
        sigma, tok = signals[node.signals[0]], tokens[node.lag]
        env[atom] = sigma.at_bos if tok == ("bos",) else tok is not None and sigma.fn(
            {a: a == tok for a in sigma.atoms})
    return psi.fn(env)


def token_code(token: Atom | None, alphabet: Alphabet) -> int:
    """A token's code in a `Window`: its residual coordinate (`models.construct.minterms`: BOS
    1, EOS 2, letter i 3 + i), 0 before BOS (the convolution's zero padding)."""
    if token is None:
        return 0
    return {"bos": 1, "eos": 2}.get(token[0]) or 3 + alphabet.symbols.index(token[1])


def _runs(codes: list[int]) -> tuple[tuple[int, int], ...]:
    """Sorted distinct integers as maximal runs (lo, hi) of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for c in codes:
        if runs and c == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    return tuple(runs)
