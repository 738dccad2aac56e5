"""The data of an SSM construction plan: atoms, Boolean signals, temporal nodes, `MixerPlan`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from expressivity.alphabet import Alphabet

__all__ = ["CONV_TAPS", "Atom", "Env", "MixerPlan", "Node", "Op", "Signal", "Window"]

#: The earliest position a mixer channel reads through Mamba's causal convolution (width 4):
#: taps t−1, t−2 and t−3 (`SelectiveSSM`'s ``d_conv`` − 1).
CONV_TAPS = 3

#: An atom of a signal: ("sym", a), ("eos",) or ("node", i).
Atom = tuple[str, ...]
Env = Mapping[Atom, bool]


class Op(Enum):
    """The temporal operator a node computes."""

    ONCE = "P"
    SINCE = "S"
    PREV = "Y"
    FLIP = "flip"


@dataclass(frozen=True)
class Signal:
    """A Boolean function of ``atoms`` at each position; ``at_bos``: its value at BOS (every
    other signal is false there, so no channel sees BOS as a position)."""

    label: str
    atoms: tuple[Atom, ...]
    fn: Callable[[Env], bool]
    at_bos: bool = False
    level: int = 0

    def true_assignments(self) -> list[dict[Atom, bool]]:
        """Every assignment of ``atoms`` (at most one of the letters and ``eos``) where the
        function is true."""
        tokens = [a for a in self.atoms if a[0] in ("sym", "eos")]
        nodes = [a for a in self.atoms if a[0] == "node"]
        out = []
        for tok in [None, *tokens]:
            for bits in itertools.product((False, True), repeat=len(nodes)):
                env = {a: a == tok for a in tokens} | dict(zip(nodes, bits, strict=True))
                if self.fn(env):
                    out.append(env)
        return out


@dataclass(frozen=True)
class Window:
    """A ONCE node's event read straight from the tokens at taps t−1 … t−``taps`` (§16.1,
    "Window events"): the event holds at t exactly when the code Σ_j base^(j−1)·code(token at
    t−j) lies in one of ``ranges`` (inclusive), where a token's code is its residual
    coordinate (BOS 1, EOS 2, letter i 3 + i) and a position before BOS codes 0; base is
    3 + the alphabet's size."""

    taps: int
    ranges: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Node:
    """One temporal operator: ``op`` over ``signals`` (indices into `MixerPlan.signals`):
    ONCE (ψ,), SINCE (event, value), PREV (ψ,), FLIP (event, start). ``lag``: a PREV node
    on a mixer channel reads its level-0 signal at tap t−lag (Y^lag in one channel);
    ``window``: a ONCE node whose event is read from the tokens (`Window`), in layer 1."""

    op: Op
    signals: tuple[int, ...]
    label: str
    level: int
    lag: int = 1
    window: Window | None = None


@dataclass(frozen=True)
class MixerPlan:
    """Nodes, signals and the readout signal of a construction over ``alphabet``."""

    alphabet: Alphabet
    nodes: tuple[Node, ...]
    signals: tuple[Signal, ...]
    readout: Signal

    @property
    def n_layers(self) -> int:
        return max([1, self.readout.level, *(n.level for n in self.nodes)])
