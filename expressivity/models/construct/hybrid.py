"""An M plan on a hybrid's rows, each level on the first row that computes it (theory.md §16.4).

Theorem 16.1's plan (`mixer_plan`) computes its temporal nodes level by level. A hybrid preset
(``samba-k``, ``jamba-n``) alternates rows whose every head is ``M`` with attention rows, and
an attention row computes some levels too (Corollary 16.5): a strict global row (``G``) every
level whose nodes are all P of an FFN signal (one head each: constant query λ, key = value =
the signal, as the attention constructions' P heads), a strict 1-local row (``L1``) every
level whose nodes are all Y of one position (zero scores over the one key n − 1). So each
level goes, in order, on the first row after the previous level's that can compute it (the
greedy choice is the least depth: a later row never lets a later level go earlier), the rows
between write zero, and the row of a level writes that level's signals in its FFN. A P head's
output is 0 when no key satisfies the signal and at least 1/2 when one does (over at most
e^λ/2 keys, or at every length with length-aware logits, §9), so every FFN here reads node
atoms only negated, by their Möbius expansion (`diagonal.mobius_units`, as for S4D's counts).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from expressivity.errors import ConfigError
from expressivity.layouts import parse_spelling
from expressivity.models.config import ModelConfig
from expressivity.models.construct.constructed import DEFAULT_SHARPNESS
from expressivity.models.construct.diagonal import mobius_units
from expressivity.models.construct.minterms import ONE, layer_units, set_ffn
from expressivity.models.construct.mixer import (
    MixerModel,
    Role,
    channels,
    embed_signals,
    layer_nodes,
    plan_coordinates,
    set_local_heads,
    set_mixer,
)
from expressivity.models.construct.mixer_plan import MixerPlan, Node, Op
from expressivity.models.scaling import AttentionScale
from expressivity.models.transformer import Recognizer

__all__ = ["RowKind", "assign_rows", "build_hybrid_model", "hybrid_layers", "row_kinds"]

RowKind = str  # "M", "G" (strict global), "L1" (strict 1-local), or "" (computes no level)
#: A head pattern's single atom -> the row kind it makes.
_KINDS = {("M", ()): "M", ("G", ()): "G", ("L", (1,)): "L1"}
#: The most layers `hybrid_layers` tries before it gives up (a plan's levels times this).
_MAX_STRETCH = 8


def row_kinds(layout: str, layers: int) -> list[RowKind]:
    """The `RowKind` of each row of a ``layers``-layer ``layout`` model: "M", "G" or "L1" when
    every head of the row is that one pattern, "" otherwise ([] below the layout's smallest
    model)."""
    spelled = parse_spelling(layout)
    if layers < spelled.smallest[0]:
        return []
    kinds = []
    for row in spelled.sized(layers, 1):  # samba-k's and jamba-n's rows do not depend on heads
        atoms = {(a.kind, a.params) for head in row for a in head}
        kinds.append(_KINDS.get(next(iter(atoms)), "") if len(atoms) == 1 else "")
    return kinds


def _computes(kind: RowKind, nodes: list[Node]) -> bool:
    if kind == "M":
        return True
    if kind == "G":  # P of an FFN signal; a window's event needs the mixer's convolution
        return all(n.op is Op.ONCE and n.window is None for n in nodes)
    if kind == "L1":  # Y of the previous position
        return all(n.op is Op.PREV and n.lag == 1 for n in nodes)
    return False


def assign_rows(plan: MixerPlan, kinds: list[RowKind]) -> list[int] | None:
    """The row of each level 1 … n (each the first row after the previous level's that
    computes it), or None when the rows run out."""
    rows, r = [], 0
    for level in range(1, plan.n_layers + 1):
        nodes = [n for n in plan.nodes if n.level == level]
        while r < len(kinds) and not _computes(kinds[r], nodes):
            r += 1
        if r == len(kinds):
            return None
        rows.append(r)
        r += 1
    return rows


def hybrid_layers(plan: MixerPlan, layout: str) -> int | None:
    """The fewest layers of a ``layout`` model that `assign_rows` fits ``plan`` on (None when
    none up to `_MAX_STRETCH` times the plan's levels does)."""
    for layers in range(plan.n_layers, _MAX_STRETCH * plan.n_layers + 2):
        if assign_rows(plan, row_kinds(layout, layers)) is not None:
            return layers
    return None


@dataclass(frozen=True)
class _Row:
    level: int
    kind: RowKind
    nodes: list[int]


def build_hybrid_model(plan: MixerPlan, layout: str, n_layers: int | None = None, *,
                       sharpness: float = DEFAULT_SHARPNESS,
                       attention_scale: AttentionScale = "none") -> MixerModel:
    """The ``layout`` `Recognizer` of ``n_layers`` layers (default: `hybrid_layers`) that
    computes ``plan`` (an ``M`` plan) level by level on `assign_rows`' rows, every other row
    writing zero; P heads score ``sharpness`` on a satisfying key."""
    layers = hybrid_layers(plan, layout) if n_layers is None else n_layers
    kinds = [] if layers is None else row_kinds(layout, layers)
    rows = assign_rows(plan, kinds)
    if layers is None or rows is None:
        which = (f"no {layout!r} model of at most {_MAX_STRETCH * plan.n_layers + 1} layers"
                 if layers is None else f"a {layers}-layer {layout!r} model")
        raise ConfigError(
            f"n_layers: {which} has too few rows for the {plan.n_layers} levels of this "
            "recognizer in order (M rows compute any level, G rows P, L1 rows Y); take more "
            "layers")
    levels = layer_nodes(plan, l1_heads=False)  # every node of a level in .ssm
    placed = {r: _Row(level, kinds[r], levels[level - 1].ssm)
              for level, r in enumerate(rows, start=1)}
    coords = plan_coordinates(plan, levels, "M")
    shapes = [channels(plan, row.nodes) for row in placed.values() if row.kind == "M"]
    ranks = max([1, *(r for _, r in shapes)])
    coords = coords.padded(max(len(coords.names), 16 * (ranks - 1) + 1))
    d_model = len(coords.names)
    units = {r: layer_units(plan, row.level, coords, mobius_units) for r, row in placed.items()}
    heads = max([1, *(len(row.nodes) for row in placed.values())])
    config = ModelConfig(
        n_layers=layers, d_model=d_model, n_heads=heads, d_head=1,
        d_ff=max([1, *(len(u) for u in units.values())]), layout=layout, norm="none",
        activation="relu", dropout=0.0, bias=True, strict=True, positional="none",
        ssm_state=1, ssm_expand=max([1, *(-(-ch // d_model) for ch, _ in shapes)]),
        attention_scale=attention_scale,
    )
    model = Recognizer(config, len(plan.alphabet))
    roles: list[Role] = []
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        embed_signals(model, plan, coords.signal)
        for r, row in placed.items():
            if row.kind == "M":
                roles += set_mixer(model, r, row.nodes, plan, coords.signal, coords.node,
                                   False, "M")
            elif row.kind == "L1":
                roles += set_local_heads(model, r, row.nodes, 0, plan, coords.signal,
                                         coords.node)
            else:
                roles += _set_once_heads(model, r, row.nodes, plan, coords.signal,
                                         coords.node, sharpness)
            set_ffn(model, r, units[r])
        model.classifier.weight[0, coords.accept] = 1.0
        model.classifier.bias[0] = -0.5
    model.eval()
    written = _written(coords.written, rows, placed)
    return MixerModel(model, coords.names, written, tuple(sorted(roles)))


def _set_once_heads(model: Recognizer, l: int, nodes: list[int], plan: MixerPlan,
                    sig_coord: dict[int, int], node_coord: dict[int, int],
                    sharpness: float) -> list[Role]:
    """P nodes on strict global heads: query λ, key = value = the node's signal."""
    attn, roles = model.blocks[l].attn, []
    for h, i in enumerate(nodes):
        signal = sig_coord[plan.nodes[i].signals[0]]
        attn.q.weight[h, ONE] = sharpness
        attn.k.weight[h, signal] = 1.0
        attn.v.weight[h, signal] = 1.0
        attn.o.weight[node_coord[i], h] = 1.0
        roles.append((l, h, "G", plan.nodes[i].label))
    return roles


def _written(written: tuple[str, ...], rows: list[int], placed: dict[int, _Row]
             ) -> tuple[str, ...]:
    """`plan_coordinates`' labels ("layer <level> M", "layer <level> FFN") at their rows."""
    kinds = {row.level: row.kind for row in placed.values()}
    out = []
    for label in written:
        parts = label.split(" ")
        if len(parts) == 3 and parts[0] == "layer" and parts[1].isdigit():
            level = int(parts[1])
            what = parts[2] if parts[2] == "FFN" else {"M": "M", "G": "G head",
                                                       "L1": "1-local head"}[kinds[level]]
            label = f"layer {rows[level - 1] + 1} {what}"
        out.append(label)
    return tuple(out)
