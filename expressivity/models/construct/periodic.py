"""Constructions with periodic RoPE: ``mod(m,r)`` atoms read by heads that compare with BOS.

Layouts ``global+periodic`` and ``hybrid-k+periodic`` (and the default layout, for a formula
with MOD predicates) give the model ``positional = "periodic-rope"`` with ``periods`` = the
moduli m ≥ 2 of the formula, ``d_head = 2·|periods| + 1`` and one unrotated channel
(``rope_unrotated = 1``): channel pair i (channels i and i + |periods|) rotates by the angle
a_m(n) = 2π (n mod m) / m of ``periods[i]``, and the last channel is the one-dimensional head
of the NoPE construction (the ordinary heads leave the rotated channels at zero, so their
scores are unchanged).

A `ModRead(m, r)` head is global. Its query is G·R(−a_m(r))·e₁ on pair i plus 1 on the
unrotated channel, its key is e₁ on pair i at BOS and C on the unrotated channel elsewhere,
and its value is 2·bos − 1. After the rotation the score of BOS is G·cos(a_m(n) − a_m(r)) and
that of every other key is C = G(1 + cos(2π/m))/2; with G = 2λ / (1 − cos(2π/m)) BOS is λ
above the others when n ≡ r (mod m) and at least λ below them otherwise. So the mass on BOS
is ≥ 3/4 resp. < 1/2 for 2 ≤ n ≤ e^λ/3 + 1, the output 2·mass − 1 is ≥ 1/2 resp. < 0, and the
block's FFN rounds it to exactly [n ≡ r] (minus bos). Row n = 1 has BOS as its only key, so
the head reads ``mod(m,r) ∨ start``; ``mod(m,r)`` with r ≢ 1 is planned as
``modread(m,r) & !start`` (``start`` = ¬P⊤, a global head of the same layer).
"""

from __future__ import annotations

import math

import torch

from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.logic.fragments import check_fragment
from expressivity.logic.syntax import TRUE, And, Formula, Mod, Not, Start, disj
from expressivity.logic.temporal import BoundedPast, Yesterday
from expressivity.models.blocks import SelfAttention
from expressivity.models.construct.nodes import ModRead, Prepared
from expressivity.models.positions import periodic_angles

__all__ = ["MAX_PERIOD", "prepare_periodic", "rewrite_mods", "set_period_head",
           "yesterday_by_window"]

MAX_PERIOD = 1024  # the model's max_len: a longer period never repeats


def rewrite_mods(f: Formula) -> Formula:
    """``mod(1,0)`` → ⊤, ``mod(m,r)`` → ``modread(m,r)`` (r ≡ 1) or ``modread(m,r) & !start``."""
    if isinstance(f, Mod):
        if f.modulus == 1:
            return TRUE
        read = ModRead(f.modulus, f.residue)
        return read if f.residue == 1 % f.modulus else And(read, Not(Start()))
    if not f.children:
        return f
    kids = [rewrite_mods(c) for c in f.children]
    if isinstance(f, Yesterday | BoundedPast):
        return type(f)(kids[0], f.k)
    return type(f)(*kids)


def yesterday_by_window(f: Formula, k: int) -> Formula:
    """Y ψ → ⋁_{r<k} (mod(k,r) ∧ Y^{≤k}(ψ ∧ mod(k, r−1 mod k))) (Y^j ψ: j times; Y^{≤j}
    with j ≠ k: Yψ ∨ … ∨ Y^jψ first): of the window n−k..n−1 only n−1 is ≡ n−1 (mod k), so
    this is exact (docs/theory.md §7)."""
    if not f.children:
        return f
    kids = [yesterday_by_window(c, k) for c in f.children]
    if isinstance(f, Yesterday):
        out = kids[0]
        for _ in range(f.k):
            out = disj(*(And(Mod(k, r), BoundedPast(And(out, Mod(k, (r - 1) % k)), k))
                         for r in range(k)))
        return out
    if isinstance(f, BoundedPast) and f.k != k:  # Y<=j ψ = Y ψ ∨ … ∨ Y^j ψ
        return yesterday_by_window(disj(*(Yesterday(kids[0], i) for i in range(1, f.k + 1))), k)
    if isinstance(f, BoundedPast):
        return BoundedPast(kids[0], f.k)
    return type(f)(*kids)


def prepare_periodic(
    formula: Formula, base: str | None, layout: str | None, *, implicit: bool = False
) -> Prepared:
    """`Prepared` for ``base`` + periodic positions: None (the heads the formula needs),
    ``global`` or ``hybrid-k``."""
    from expressivity.models.construct.layout import _needs

    where = f"layout {layout!r}"
    if base is not None and base.startswith("local-") and implicit:
        raise UnsupportedFragmentError(
            f"{formula} uses mod(m,r): periodic positions are read by a global head, which "
            f"{base} does not have; use hybrid-k+periodic, or block-b for phases of a block")
    if base == "global" and implicit:
        raise UnsupportedFragmentError(
            f"{formula} uses mod(m,r), which NoPE heads cannot read; use the layout "
            "global+periodic (periodic RoPE) or block-b for phases of a block")
    if base is None:
        ops: tuple[str, ...] = ("P", "Y")
    elif base == "global":
        ops = ("P",)
    elif base.startswith("hybrid-") and base[7:].isdigit() and int(base[7:]) >= 1:
        k = int(base[7:])
        ops = ("P", "Y" if k == 1 else f"Y<={k}")
        if implicit:
            raise UnsupportedFragmentError(
                f"{formula} uses mod(m,r), which NoPE heads cannot read; use the layout "
                f"{base}+periodic (periodic RoPE)")
    else:
        raise ConfigError(
            f"{where}: periodic positions are read by a global head that compares its "
            "position with BOS's, so construct takes global+periodic or hybrid-k+periodic "
            f"(got base layout {base!r})")
    if base is not None and base.startswith("hybrid-") and int(base[7:]) >= 2:
        formula = yesterday_by_window(formula, int(base[7:]))
    check_fragment(formula, (*ops, "MOD"), context=f"construct with {where}")
    periods = tuple(sorted({s.modulus for s in formula.subformulas()
                            if isinstance(s, Mod) and s.modulus >= 2}))
    for m in periods:
        if m > MAX_PERIOD:
            raise UnsupportedFragmentError(
                f"mod({m},…): a period above {MAX_PERIOD} (the model's max_len) never repeats")
    rewritten = rewrite_mods(formula)
    if base is None:
        pats, start = _needs(rewritten)
        return Prepared(rewritten, frozenset(pats | {"G"}), start, periods)
    if base == "global":
        return Prepared(rewritten, frozenset({"G"}), "G", periods)
    local = f"L{int(base[7:])}"
    return Prepared(rewritten, frozenset({"G", local}), local, periods)


@torch.no_grad()
def set_period_head(
    attn: SelfAttention, h: int, period: tuple[int, int], periods: tuple[int, ...],
    lam: float, bos: int, scratch: int,
) -> None:
    """Weights of head ``h`` reading ``modread(m, r)`` (module docstring)."""
    m, r = period
    pairs = len(periods)
    dh = 2 * pairs + 1
    i = periods.index(m)
    base, unrot = h * dh, h * dh + dh - 1
    gain = 2.0 * lam / (1.0 - math.cos(2.0 * math.pi / m))
    other = gain * (1.0 + math.cos(2.0 * math.pi / m)) / 2.0
    angle = float(periodic_angles(torch.tensor([r]), periods, pairs)[0, i])
    scale = math.sqrt(dh)  # undo the 1/sqrt(d_head) of the scores
    assert attn.q.bias is not None and attn.k.bias is not None and attn.v.bias is not None
    attn.q.bias[base + i] = scale * gain * math.cos(angle)
    attn.q.bias[base + i + pairs] = -scale * gain * math.sin(angle)
    attn.q.bias[unrot] = scale
    attn.k.weight[base + i, bos] = 1.0
    attn.k.bias[unrot] = other
    attn.k.weight[unrot, bos] = -other
    attn.v.weight[unrot, bos] = 2.0
    attn.v.bias[unrot] = -1.0
    attn.o.weight[scratch, unrot] = 1.0
