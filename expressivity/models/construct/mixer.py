"""SSM layouts compiled into `Recognizer` models with exact hand-set weights (theory.md §16).

``build_mixer_model(plan, kind, l1_heads=...)`` sets every weight of a real `Recognizer` whose
layers hold one selective mixer (``M`` or ``MS``, `models.ssm.mixers.SelectiveSSM`, run by the
model's own scan) and, when the layout allows them, strict 1-local attention heads for the Y
nodes. Per mixer channel e (A = −1, d_state 1, D = 0)::

    u_e = silu(20 · s_{t−1})           in_proj reads signal s, conv tap t−1 (silu(20) = 20)
    u_0 = silu(20)                     the constant channel: B = u_0/80000, C = u_0/20
    Δ_e = softplus(w · r + c)          r: a rank row of x_proj reading the event channel
    h_e = a(Δ_e) h_e + Δ_e u_e B       keep: Δ = 0 (a = 1, input 0); event: a = 0 (M, Δ = 200;
                                       MS, Δ = ln 2 so that 2e^{−Δ} − 1 = 0), flip: a = −1
    out = out_proj(y ⊙ silu(20·one))   rescaled so that the head writes h_e / scale_e

Signals of level 0 are token functions in the embedding; the FFN of block l writes the
signals of level l as sums of minterm units (`minterms`) ReLU(Σ literals − (k − 1) − bos) over
(nearly) Boolean literals, and the readout coordinate in the last block; the classifier
reads ``accept − 1/2``. Only the decisions are exact: values carry rounding errors of order
1e-6 that no threshold comes near.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from expressivity.models.config import ModelConfig, S4DOutput
from expressivity.models.construct.minterms import (
    BOS,
    EOS,
    ONE,
    Coordinates,
    Unit,
    layer_units,
    minterm_units,
    set_ffn,
)
from expressivity.models.construct.mixer_plan import MixerPlan, Node, Op, Window
from expressivity.models.ssm.mixers import SelectiveSSM
from expressivity.models.tokens import bos_id, eos_id
from expressivity.models.transformer import Recognizer

__all__ = ["WINDOW_K", "LayerNodes", "MixerModel", "Role", "assemble", "build_mixer_model",
           "channels", "embed_signals", "layer_nodes", "local_nodes", "plan_coordinates",
           "set_local_heads", "set_mixer"]

K = 20.0  # silu(K) == K in float32: the height of a "true" mixer input
#: The slope of a window event's step channels: a power of two, so that k·code is exact
#: wherever the code is (in bfloat16 for codes below 256), and silu(32 d) = 32 d for d ≥ 1
WINDOW_K = 32.0
BIG = 200.0  # |pre-activation| of Δ for keep (−BIG) and for the M / flip events (+BIG)


@dataclass(frozen=True)
class MixerModel:
    """The weighted model, its residual coordinates, and what each head computes."""

    model: Recognizer
    coordinates: tuple[str, ...]
    written: tuple[str, ...]
    heads: tuple[tuple[int, int, str, str], ...]  # (layer, head, pattern, computes)


@dataclass
class LayerNodes:
    """The nodes one layer computes: on mixer channels and on strict 1-local heads."""

    ssm: list[int]  # node indices on mixer channels
    local: list[int]  # node indices on 1-local heads


def layer_nodes(plan: MixerPlan, l1_heads: bool) -> list[LayerNodes]:
    """Each node at its level's layer; a Y node on a 1-local head when ``l1_heads``."""
    layers = [LayerNodes([], []) for _ in range(plan.n_layers)]
    for i, n in enumerate(plan.nodes):
        row = layers[n.level - 1]
        local = n.op is Op.PREV and n.lag == 1 and l1_heads  # a 1-local head reads t−1 only
        (row.local if local else row.ssm).append(i)
    return layers


def _event_channels(node: Node) -> int:
    """Channels besides the value channel: one event channel for SINCE and FLIP, two per
    threshold of a `Window` (a step up at each run's start, down after its end)."""
    if node.window is not None:
        return 4 * len(node.window.ranges)
    return int(node.op in (Op.SINCE, Op.FLIP))


def channels(plan: MixerPlan, nodes: list[int]) -> tuple[int, int]:
    """(inner channels, Δ rank rows) of one mixer: the constant, one value channel per node
    and its `_event_channels`; a rank row per ONCE/SINCE/FLIP node."""
    extra = sum(_event_channels(plan.nodes[i]) for i in nodes)
    ranks = sum(plan.nodes[i].op is not Op.PREV for i in nodes)
    return 1 + len(nodes) + extra, ranks


def plan_coordinates(plan: MixerPlan, layers: list[LayerNodes], kind: str) -> Coordinates:
    """one, bos, eos and the letters; then every signal, every node and the accept coordinate."""
    names = ["one", "bos", "eos", *plan.alphabet.symbols]
    written = ["embedding"] * len(names)
    sig_coord = {}
    for j, sig in enumerate(plan.signals):
        sig_coord[j] = len(names)
        names.append(f"signal {sig.label}" + (" (true at BOS)" if sig.at_bos else ""))
        written.append("embedding" if sig.level == 0 else f"layer {sig.level} FFN")
    node_coord, local = {}, local_nodes(layers)
    for i, n in enumerate(plan.nodes):
        node_coord[i] = len(names)
        names.append(n.label)
        written.append(f"layer {n.level} {'1-local head' if i in local else kind}")
    accept = len(names)
    names.append(f"accept: {plan.readout.label}")
    written.append(f"layer {plan.n_layers} FFN")
    return Coordinates(tuple(names), tuple(written), sig_coord, node_coord, accept)


def build_mixer_model(plan: MixerPlan, kind: str, *, l1_heads: bool = False) -> MixerModel:
    """The `Recognizer` of ``plan`` with mixer ``kind`` ("M" or "MS") in every layer."""
    signed = kind == "MS"
    layers = layer_nodes(plan, l1_heads)
    coords = plan_coordinates(plan, layers, kind)
    sig_coord, node_coord = coords.signal, coords.node
    shapes = [channels(plan, row.ssm) for row in layers]
    ranks = max(r for _, r in shapes)
    d_model = max(len(coords.names), 16 * (ranks - 1) + 1)  # dt_rank = ceil(d_model / 16) >= ranks
    coords = coords.padded(d_model)
    units = [layer_units(plan, l, coords, minterm_units) for l in range(1, plan.n_layers + 1)]
    expand = max(1, *(math.ceil(ch / d_model) for ch, _ in shapes))

    def set_row(model: Recognizer, l: int, row: LayerNodes) -> list[Role]:
        return set_mixer(model, l, row.ssm, plan, sig_coord, node_coord, signed, kind)

    return assemble(plan, layers, coords, units, kind, expand, set_row)


Role = tuple[int, int, str, str]  # (layer, head, pattern, what it computes)


def assemble(plan: MixerPlan, layers: list[LayerNodes], coords: Coordinates,
             units: list[list[Unit]], kind: str, expand: int,
             set_row: Callable[[Recognizer, int, LayerNodes], list[Role]], *,
             s4d_output: S4DOutput = "linear") -> MixerModel:
    """The zeroed `Recognizer` of ``plan`` (one ``kind`` mixer and the 1-local heads per layer,
    width ``len(coords.names)``; an S4D mixer's output map ``s4d_output``), its embedding,
    each row's mixer by ``set_row``, its 1-local heads and FFN ``units``, and the classifier
    reading accept − 1/2."""
    c = max(1, *(len(row.ssm) for row in layers))
    h = max(len(row.local) for row in layers)
    row_text = f"{c}x{kind}" + (f",{h}xL1" if h else "")
    config = ModelConfig(
        n_layers=plan.n_layers, d_model=len(coords.names), n_heads=c + h, d_head=1,
        d_ff=max(1, *(len(u) for u in units)), layout=";".join([row_text] * plan.n_layers),
        norm="none", activation="relu", dropout=0.0, bias=True, strict=True,
        positional="none", ssm_state=1, ssm_expand=expand, s4d_output=s4d_output,
    )
    model = Recognizer(config, len(plan.alphabet))
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        embed_signals(model, plan, coords.signal)
        roles = []
        for l, row in enumerate(layers):
            roles += set_row(model, l, row)
            roles += set_local_heads(model, l, row.local, c, plan, coords.signal, coords.node)
            set_ffn(model, l, units[l])
        model.classifier.weight[0, coords.accept] = 1.0
        model.classifier.bias[0] = -0.5
    model.eval()
    return MixerModel(model, coords.names, coords.written, tuple(sorted(roles)))


def local_nodes(layers: list[LayerNodes]) -> set[int]:
    """The nodes computed by 1-local heads."""
    return {i for row in layers for i in row.local}


def embed_signals(model: Recognizer, plan: MixerPlan, sig_coord: dict[int, int]) -> None:
    """The embedding: the constant, BOS, EOS, one coordinate per letter and the level-0
    signals (token functions; an ``at_bos`` signal is 1 at BOS)."""
    s, emb = len(plan.alphabet), model.embed.weight
    emb[:, ONE] = 1.0
    emb[bos_id(s), BOS] = 1.0
    emb[eos_id(s), EOS] = 1.0
    for a in range(s):
        emb[a, 3 + a] = 1.0
    for j, sig in enumerate(plan.signals):
        if sig.level:
            continue
        emb[bos_id(s), sig_coord[j]] = float(sig.at_bos)
        for tok, atom in [*((a, ("sym", x)) for a, x in enumerate(plan.alphabet.symbols)),
                          (eos_id(s), ("eos",))]:
            env = {at: at == atom for at in sig.atoms}
            emb[tok, sig_coord[j]] = float(sig.fn(env))


def set_mixer(model: Recognizer, l: int, nodes: list[int], plan: MixerPlan,
               sig_coord: dict[int, int], node_coord: dict[int, int], signed: bool,
               kind: str) -> list[tuple[int, int, str, str]]:
    attn = model.blocks[l].attn
    mixer = attn.mixers[0]
    assert isinstance(mixer, SelectiveSSM)
    e_sz, r_sz = mixer.d_inner, mixer.dt_rank
    mixer.dt_proj.bias.fill_(-BIG)  # every channel keeps (Δ = 0) unless set below
    assert mixer.conv1d.bias is not None
    mixer.conv1d.bias[0] = K  # the constant channel u_0 = K
    mixer.x_proj.weight[r_sz, 0] = 1.0 / (K * K * BIG)  # B = 1 / (K · BIG)
    mixer.x_proj.weight[r_sz + 1, 0] = 1.0 / K  # C = 1
    mixer.in_proj.weight[e_sz:, ONE] = K  # z = K: silu(z) = K on every channel
    reset = (0.0 if signed else BIG, BIG)  # Δ pre-activation at a reset and at a flip
    ch, rank, roles = 1, 0, []
    for slot, i in enumerate(nodes):
        node = plan.nodes[i]
        value_ch = ch
        if node.window is not None:  # the value is 1, the event read from the tokens
            _read(mixer, ch, ONE)
            value_ch = event_ch = ch
            ch += 1
            ch = _window_event(mixer, ch, rank, node.window, len(plan.alphabet))
        elif node.op in (Op.SINCE, Op.FLIP):  # separate event channel, then the value channel
            event, value = node.signals
            _read(mixer, ch, sig_coord[event])
            _read(mixer, ch + 1, sig_coord[value])
            event_ch, value_ch, ch = ch, ch + 1, ch + 2
        else:
            _read(mixer, ch, sig_coord[node.signals[0]], node.lag)
            event_ch, ch = ch, ch + 1
        pre = reset[1] if node.op is Op.FLIP else reset[0]
        if node.op is Op.PREV:  # every step is a reset to the value
            mixer.dt_proj.bias[value_ch] = pre
        else:
            if node.window is None:
                mixer.x_proj.weight[rank, event_ch] = 1.0 / K  # rank row r = event ∈ {0, 1}
            mixer.dt_proj.weight[value_ch, rank] = pre + BIG
            rank += 1
        delta = BIG if node.op is Op.FLIP or not signed else math.log(2.0)
        scale = delta / BIG  # h_e = scale · value after an event
        mixer.out_proj.weight[slot, value_ch] = 1.0 / (K * scale)
        attn.o.weight[node_coord[i], slot] = 1.0
        roles.append((l, slot, kind, node.label))
    return roles


def _read(mixer: SelectiveSSM, ch: int, coord: int, lag: int = 1) -> None:
    """Channel ``ch`` reads residual coordinate ``coord`` at t−lag: u = silu(K · x_{t−lag})."""
    mixer.in_proj.weight[ch, coord] = 1.0
    mixer.conv1d.weight[ch, 0, mixer.conv1d.weight.shape[-1] - 1 - lag] = K


def _window_event(mixer: SelectiveSSM, ch: int, rank: int, window: Window, letters: int) -> int:
    """The rank row ``rank`` reads a `Window` event from channels ``ch`` on; the next free channel.

    Each channel holds the code y = Σ_j base^(j−1)·code(token at t−j) (in_proj: each token
    coordinate times its own index, which is its code; conv taps k·base^(j−1), k =
    `WINDOW_K`), shifted by its conv bias: u = silu(k(y − q + 1)) and silu(k(y − q)) differ
    by k when y ≥ q and by at most k·σ(−k) < 1e−12 when y < q, so (their difference)/k steps
    from 0 to 1 at q. A run [lo, hi] of event codes is the step at lo minus the step at
    hi + 1 (§16.1)."""
    base, width = 3 + letters, mixer.conv1d.weight.shape[-1]
    for run in window.ranges:
        for q, sign in ((run[0], 1.0), (run[1] + 1, -1.0)):
            for shift, part in ((1.0, 1.0), (0.0, -1.0)):
                for coord in range(1, 3 + letters):  # BOS, EOS and the letters: code = coord
                    mixer.in_proj.weight[ch, coord] = float(coord)
                for j in range(1, window.taps + 1):
                    mixer.conv1d.weight[ch, 0, width - 1 - j] = WINDOW_K * base ** (j - 1)
                assert mixer.conv1d.bias is not None
                mixer.conv1d.bias[ch] = WINDOW_K * (shift - q)
                mixer.x_proj.weight[rank, ch] = sign * part / WINDOW_K
                ch += 1
    return ch


def set_local_heads(model: Recognizer, l: int, nodes: list[int], first: int, plan: MixerPlan,
               sig_coord: dict[int, int], node_coord: dict[int, int]
               ) -> list[tuple[int, int, str, str]]:
    """Y nodes on strict 1-local heads: zero scores over the one key n−1, value = the signal."""
    attn, roles = model.blocks[l].attn, []
    for j, i in enumerate(nodes):
        h = first + j
        attn.v.weight[h, sig_coord[plan.nodes[i].signals[0]]] = 1.0
        attn.o.weight[node_coord[i], h] = 1.0
        roles.append((l, h, "L1", plan.nodes[i].label))
    return roles
