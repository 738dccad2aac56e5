"""The FFN of a compiled mixer model: residual coordinates and the minterm units of its signals.

Every signal of level l (a Boolean function of tokens and nodes, `mixer_data.Signal`) is
written by block l's FFN as a sum of minterm units ReLU(Σ literals − (k − 1) − bos) over its
true assignments, each literal a (nearly) Boolean residual coordinate; the readout is one more
signal, written into the accept coordinate in the last block (docs/theory.md §16). The
selective (`mixer`), diagonal (`diagonal`) and hybrid (`hybrid`) constructions share them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from expressivity.models.construct.mixer_plan import Atom, MixerPlan, Op, Signal
from expressivity.models.transformer import Recognizer

__all__ = ["BOS", "EOS", "ONE", "Coordinates", "SignalUnits", "Unit", "layer_units",
           "minterm_units", "set_ffn", "token_coordinate"]

ONE, BOS, EOS = 0, 1, 2  # residual coordinates: the constant, "at BOS", "at EOS"


@dataclass(frozen=True)
class Coordinates:
    """The residual coordinates of a plan's model: names, who writes each, and where the
    signals, the nodes and the accept coordinate are."""

    names: tuple[str, ...]
    written: tuple[str, ...]
    signal: dict[int, int]
    node: dict[int, int]
    accept: int

    def padded(self, d_model: int) -> Coordinates:
        """The same coordinates with "(padding)" up to ``d_model``."""
        pad = d_model - len(self.names)
        return Coordinates((*self.names, *["(padding)"] * pad), (*self.written, *["-"] * pad),
                           self.signal, self.node, self.accept)


Unit = tuple[dict[int, float], float, int, float]  # up terms, up bias, target, down coef


def token_coordinate(plan: MixerPlan, atom: Atom) -> int:
    """The embedding coordinate of a token atom: ("sym", a) or ("eos",)."""
    return EOS if atom[0] == "eos" else 3 + plan.alphabet.symbols.index(atom[1])


def _literal(plan: MixerPlan, atom: Atom, node_coord: dict[int, int]) -> tuple[int, float, float]:
    """(coordinate, α, β): the atom's truth value is α·x[coordinate] + β."""
    if atom[0] in ("sym", "eos"):
        return token_coordinate(plan, atom), 1.0, 0.0
    i = int(atom[1])
    if plan.nodes[i].op is Op.FLIP:  # raw ±1: even = (x + 1) / 2
        return node_coord[i], 0.5, 0.5
    return node_coord[i], 1.0, 0.0


def minterm_units(plan: MixerPlan, sig: Signal, target: int,
                  node_coord: dict[int, int]) -> list[Unit]:
    """The minterm units writing ``sig`` into coordinate ``target``: one per true assignment
    of its atoms (and one for BOS when the signal is true there)."""
    units: list[Unit] = []
    if sig.at_bos:
        units.append(({BOS: 1.0}, 0.0, target, 1.0))
    for env in sig.true_assignments():
        terms: dict[int, float] = {BOS: -1.0}
        bias = 1.0 - len(env)
        for atom, value in env.items():
            c, alpha, beta = _literal(plan, atom, node_coord)
            sign = 1.0 if value else -1.0
            terms[c] = terms.get(c, 0.0) + sign * alpha
            bias += beta if value else 1.0 - beta
        units.append((terms, bias, target, 1.0))
    return units


SignalUnits = Callable[[MixerPlan, Signal, int, dict[int, int]], list[Unit]]


def layer_units(plan: MixerPlan, layer: int, coords: Coordinates,
                signal_units: SignalUnits) -> list[Unit]:
    """Block ``layer``'s FFN units: ``signal_units`` of every signal of that level, and of the
    readout (into the accept coordinate) in the last block."""
    units = [u for j, sig in enumerate(plan.signals) if sig.level == layer
             for u in signal_units(plan, sig, coords.signal[j], coords.node)]
    if layer == plan.n_layers:
        units += signal_units(plan, plan.readout, coords.accept, coords.node)
    return units


def set_ffn(model: Recognizer, l: int, units: list[Unit]) -> None:
    """Block ``l``'s FFN: one ReLU unit per `Unit`, each written into its target."""
    ffn = model.blocks[l].ffn
    for j, (terms, bias, target, coef) in enumerate(units):
        for c, w in terms.items():
            ffn.up.weight[j, c] += w
        ffn.up.bias[j] = bias
        ffn.down.weight[target, j] = coef
