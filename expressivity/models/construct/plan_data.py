"""The data of a construction plan: affine forms, heads, FFN units and the `Plan` they make."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.alphabet import Alphabet

__all__ = ["Affine", "FfnUnit", "HeadOp", "Plan"]


@dataclass(frozen=True)
class Affine:
    """``Σ coef·x[coord] + const`` over residual coordinates (terms sorted by coordinate)."""

    terms: tuple[tuple[int, float], ...] = ()
    const: float = 0.0

    def __add__(self, other: Affine) -> Affine:
        acc = dict(self.terms)
        for c, v in other.terms:
            acc[c] = acc.get(c, 0.0) + v
        return Affine(tuple(sorted((c, v) for c, v in acc.items() if v)), self.const + other.const)

    def shift(self, const: float) -> Affine:
        return Affine(self.terms, self.const + const)

    def scale(self, k: float) -> Affine:
        return Affine(tuple((c, k * v) for c, v in self.terms), k * self.const)


@dataclass(frozen=True)
class HeadOp:
    """A head of block ``layer`` (1-based): query λ, ``key``/``value`` forms, output ``scratch``."""

    layer: int
    pattern: str  # "G", "L<k>", "D<k>.<d>" or "B<b>" (models.layouts atoms)
    key: Affine
    value: Affine
    scratch: int
    label: str
    period: tuple[int, int] | None = None  # (m, r): a periodic-RoPE head reading `ModRead`


@dataclass(frozen=True)
class FfnUnit:
    """One ReLU unit of block ``layer``: ``out[target] += coef · relu(pre)``."""

    layer: int
    pre: Affine
    target: int
    coef: float


@dataclass(frozen=True)
class Plan:
    """Everything `models.construct` needs to set the weights of a `Recognizer`."""

    alphabet: Alphabet
    coords: tuple[str, ...]  # the name of each residual coordinate
    written: tuple[str, ...]  # where each coordinate is written ("embedding", "layer 2 FFN", ...)
    embedding: tuple[tuple[int, ...], ...]  # per coordinate: the symbols (codes) where it is 1
    eos_coords: frozenset[int]  # coordinates that are 1 at the EOS token
    bos: int
    heads: tuple[HeadOp, ...]
    units: tuple[FfnUnit, ...]
    readout: Affine  # classifier logit at EOS (≥ 1 accept, ≤ −1 reject)
    n_layers: int
    start_pattern: str
