"""The values of minimal depth d* (docs/theory.md §8): its proof, certificate and bounds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.models.layer_types import N_HEADS, agree_after

__all__ = [
    "SEEDS",
    "SUMMARY_LAYERS",
    "DepthCertificate",
    "DepthProof",
    "MinimalDepth",
]

#: Layers global tokens add to a formula read through E: BOS gathers, then EOS reads BOS.
SUMMARY_LAYERS = 2
#: Mask seeds whose random keys are checked (`minimal_depth`, `seed_certificates`).
SEEDS: tuple[int, ...] = (0, 1, 2)


@dataclass(frozen=True)
class DepthCertificate:
    """Not at depth ``depth``: ``words`` = (u ∈ L, v ∉ L) share their EOS type after ``depth``
    layers of ``layout``'s masks (for each seed of ``seeds``; seeds matter for random keys)."""

    layout: str
    depth: int
    words: tuple[Word, Word]
    seeds: tuple[int, ...] = (0,)
    n_heads: int = N_HEADS

    def check(self, dfa: DFA) -> bool:
        """Re-check on the DFA and the raw masks."""
        u, v = self.words
        return dfa.accepts(u) and not dfa.accepts(v) and all(
            agree_after(u, v, self.layout, self.depth, n_heads=self.n_heads, seed=seed)
            for seed in self.seeds
        )

    def describe(self, fmt: Any = None) -> str:
        f = fmt or (lambda w: "".join(w) if w else "ε")
        u, v = self.words
        seeds = f" (seeds {', '.join(map(str, self.seeds))})" if self.seeds != (0,) else ""
        return (f"not at depth {self.depth}: {f(u)} ∈ L and {f(v)} ∉ L share their EOS type "
                f"after {self.depth} layer{'s' * (self.depth != 1)} of the masks{seeds}")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "layer-pair", "depth": self.depth, "pair": [list(w) for w in self.words],
                "seeds": list(self.seeds)}


@dataclass(frozen=True)
class DepthProof:
    """Yes at depth ``depth``: L is a union of layered depth-``types_depth`` EOS types of the
    layout's operators (``types_depth`` None: not shown by the automaton), read through E with
    `SUMMARY_LAYERS` more layers when ``summary``; ``formula``: an explicit formula of the
    layout's logic with ``depth`` layers, equivalent to L (None when none is known)."""

    layout: str
    depth: int
    types_depth: int | None = None
    summary: bool = False
    machine_states: int = 0
    formula: str | None = None
    part: str = ""  # the operators of the layout the types are of, when fewer than all

    def describe(self) -> str:
        parts = []
        if self.types_depth is not None:
            e = f" (with E at the top: {SUMMARY_LAYERS} more layers)" if self.summary else ""
            of = f" of its heads {self.part}" if self.part else ""
            parts.append(f"a union of layered depth-{self.types_depth} EOS types{of}{e}")
        elif self.part:  # a proof that is not a ladder of types (docs/theory.md §17)
            parts.append(self.part)
        if self.formula is not None:
            parts.append(f"the formula {self.formula}")
        return f"yes at depth {self.depth}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "types_depth": self.types_depth, "summary": self.summary,
                "machine_states": self.machine_states, "formula": self.formula,
                "operators": self.part or None}


@dataclass(frozen=True)
class MinimalDepth:
    """d*(L, layout): ``lower`` ≤ d* ≤ ``upper`` (``upper`` None: no proof); ``never``: not
    at any depth. ``uniform``: the certificate holds for every seed (False for random keys,
    whose lower bound is stated only for the seeds checked)."""

    layout: str
    lower: int
    upper: int | None
    never: bool = False
    proof: DepthProof | None = None
    certificate: DepthCertificate | None = None
    bound: str = ""
    uniform: bool = True

    @property
    def depth(self) -> int | None:
        """d* when it is known exactly, else None."""
        return self.upper if self.upper is not None and self.upper == self.lower else None

    @property
    def status(self) -> str:
        """"exact", "never" (not at any depth) or "unknown"."""
        return "never" if self.never else "exact" if self.depth is not None else "unknown"

    def at(self, n_layers: int) -> str:
        """yes / no / unknown for a model with exactly ``n_layers`` layers."""
        if self.never:
            return "no"
        if self.upper is not None and n_layers >= self.upper:
            return "yes"
        if n_layers < self.lower and self.uniform:
            return "no"
        return "unknown"

    def text(self) -> str:
        """d* as a short cell: ``3``, ``∞``, ``2..4``, ``≥2``."""
        if self.never:
            return "∞"
        if self.depth is not None:
            return str(self.depth)
        if not self.uniform:  # random keys: the lower bound holds only for the seeds checked
            return f"≤{self.upper}" if self.upper is not None else "?"
        if self.upper is None:
            return f"≥{self.lower}"
        return f"{self.lower}..{self.upper}"

    def describe(self, fmt: Any = None) -> str:
        if self.never:
            return "not at any depth (the unbounded verdict is no)"
        parts = [self.proof.describe()] if self.proof else []
        if self.certificate is not None:
            parts.append(self.certificate.describe(fmt))
        if self.status == "unknown":
            span = f"in {self.text()}" if self.upper is not None else f"≥ {self.lower}"
            span = span if self.uniform else "unknown for some seed"
            parts.append(f"d* {span} ({self.bound or 'bound reached'})")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "min_depth": self.depth, "lower": self.lower,
            "upper": self.upper, "uniform": self.uniform, "bound": self.bound or None,
            "proof": self.proof.to_dict() if self.proof else None,
            "certificate": self.certificate.to_dict() if self.certificate else None,
        }
