"""An explicit reference for the encoder atoms' masks, written from the contract table of issue 32.

Token indices: CLS = BOS = 0, symbols 1..N, SEP = EOS = N+1; every encoder atom includes the
query itself. Written independently of the atom registry (branch ``enc``) so that the theory's
certificates are checked on masks computed from the definitions, not from the code under test.
"""

from __future__ import annotations

import numpy as np

from expressivity.algebra.encoders import EncoderLayout
from expressivity.layouts import Atom


def atom_mask(atom: Atom, length: int, seed: int = 0) -> np.ndarray:
    """The (T, T) boolean mask of one atom for T = ``length`` tokens (row = query n)."""
    n, m = np.meshgrid(np.arange(length), np.arange(length), indexing="ij")
    last = length - 1
    p = atom.params
    k = atom.kind
    if k == "F":
        return np.ones((length, length), dtype=bool)
    if k == "W":
        return np.abs(n - m) <= p[0]
    if k == "WD":
        r, d = p
        return ((m - n) % d == 0) & (np.abs(m - n) <= r * d)
    if k in ("CLS", "SEP", "AT"):
        i = {"CLS": 0, "SEP": last}.get(k, p[0] if p else 0)
        if i > last:
            return n == m  # skipped: only the query itself (every atom includes it)
        return (n == i) | (m == i) | (n == m)
    if k == "BW":
        b = p[0]
        return np.abs(n // b - m // b) <= 1
    if k == "BR":
        b, r = p
        blocks = -(-length // b)
        chosen = np.zeros((blocks, blocks), dtype=bool)
        for q in range(blocks):
            rng = np.random.default_rng([seed, q])
            chosen[q, rng.choice(blocks, size=min(r, blocks), replace=False)] = True
        return chosen[n // b, m // b] | (n == m)
    if k == "BG":
        b, g = p
        hub = np.arange(length) < g * b
        return hub[n] | hub[m] | (n == m)
    if k in ("ST", "STE"):
        ell = p[0]
        # the previous l positions and every l-th one; STE reads both directions (|n - m| < l:
        # the contract's "without m <= n", read symmetrically as the enc branch does)
        out = (np.abs(n - m) < ell) | ((n - m) % ell == 0)
        return out & (m <= n) if k == "ST" else out
    if k in ("SF", "SFE"):
        ell, c = p
        out = (n // ell == m // ell) | (m % ell >= ell - c)
        return out & (m <= n) if k == "SF" else out
    if k in ("SW", "SWS"):
        big_m = p[0]
        # shifted windows [0, s), [s, s + M), ...: ⌊(n + M − s)/M⌋ (the contract's ⌊(n + s)/M⌋
        # for even M; for odd M Swin's roll by −s gives this one, as the enc branch has it)
        s = big_m - big_m // 2 if k == "SWS" else 0
        return (n + s) // big_m == (m + s) // big_m
    raise AssertionError(f"no reference mask for {atom}")


def head_mask(head: tuple[Atom, ...], length: int, seed: int = 0) -> np.ndarray:
    out = np.zeros((length, length), dtype=bool)
    for atom in head:
        out |= atom_mask(atom, length, seed)
    return out


def layout_masks(layout: EncoderLayout):
    """The `MaskFn` of ``layout``: per layer, its distinct head masks."""

    def masks(length: int):
        return [[head_mask(h, length) for h in row] for row in layout.layers]

    return masks


def parse_pattern(text: str) -> tuple[Atom, ...]:
    """``W1+CLS`` -> its atoms (a tiny test-side reader of the contract spelling)."""
    import re

    atoms = []
    for part in text.split("+"):
        kind, nums = re.fullmatch(r"([A-Z]+)([\d.]*)", part).groups()
        atoms.append(Atom(kind, tuple(int(x) for x in nums.split(".")) if nums else ()))
    return tuple(sorted(set(atoms)))


def encoder_layout(text: str) -> EncoderLayout:
    """``W1+CLS`` (one head pattern, every layer), ``W1,F`` (two heads), ``SW2;SWS2`` (layers)."""
    return EncoderLayout(tuple(tuple(parse_pattern(h) for h in layer.split(","))
                               for layer in text.split(";")))
