"""Per-seed depth certificates and the d* table that `classify --depth` prints (text, JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from expressivity.algebra.classification import Classification
from expressivity.automata.dfa import DFA
from expressivity.models.depth_types import SEEDS, DepthCertificate, MinimalDepth
from expressivity.models.layer_types import N_HEADS, layer_conflict

__all__ = [
    "depth_dict",
    "depth_table",
    "seed_certificates",
]


def seed_certificates(
    dfa: DFA, layout: str, n_layers: int, *, n_heads: int = N_HEADS,
    seeds: Sequence[int] = SEEDS,
) -> dict[int, DepthCertificate | None]:
    """Per mask seed, a raw-mask certificate that the model of exactly ``n_layers`` layers ×
    ``n_heads`` heads with that ``mask_seed`` does not recognize L (a pair of short words with
    one EOS type after its layers), or None where none is found among `layer_conflict`'s
    words. Each holds for its seed and size only (docs/theory.md §17, "Random keys per seed")."""
    out: dict[int, DepthCertificate | None] = {}
    for seed in seeds:
        pair = layer_conflict(dfa, layout, n_layers, n_heads=n_heads, seed=seed)
        cert = DepthCertificate(layout, n_layers, pair, (seed,), n_heads) if pair else None
        out[seed] = cert if cert is not None and cert.check(dfa) else None
    return out


def _per_seed(classification: Classification, md: MinimalDepth, n_layers: int,
              n_heads: int) -> dict[int, DepthCertificate | None] | None:
    """`seed_certificates` where the seed-uniform answer at ``n_layers`` is unknown for a
    random-key layout (None elsewhere: the answer holds for every seed)."""
    if md.uniform or md.at(n_layers) != "unknown" or n_layers < 1:
        return None
    return seed_certificates(classification.dfa, md.layout, n_layers, n_heads=n_heads)


def _seed_text(found: dict[int, DepthCertificate | None], n_layers: int, n_heads: int,
               fmt: Any) -> str:
    no = {s: c for s, c in found.items() if c is not None}
    rest = ", ".join(str(s) for s, c in found.items() if c is None)
    parts = [f"mask seed {s}: no ({fmt(c.words[0])} ∈ L / {fmt(c.words[1])} ∉ L share their "
             "EOS type)" for s, c in no.items()]
    if rest:
        parts.append(f"seed{'s' * (len(found) - len(no) > 1)} {rest}: no pair among the short "
                     "words")
    return (f"per seed at exactly {n_layers} layers × {n_heads} heads: " + "; ".join(parts)
            + "; other seeds: unknown")


def depth_table(
    classification: Classification, depths: Sequence[MinimalDepth], n_layers: int,
    n_heads: int = N_HEADS,
) -> str:
    """The text table `classify --depth` prints: per layout the unbounded answer, d* and the
    answer at exactly ``n_layers`` layers, with the proof or certificate; for random keys
    whose seed-uniform answer is unknown, what holds for mask seeds `SEEDS` at this size."""
    fmt = classification.alphabet.format_word
    lines = [f"depth: exactly {n_layers} layer{'s' * (n_layers != 1)} (d*: least number of "
             "attention layers; docs/theory.md §8)", "",
             f"{'attention':<22} {'unbounded':<10} {'d*':<6} {'at ' + str(n_layers):<8} why"]
    for md in depths:
        unbounded = classification.recognizer(md.layout).status
        why = md.describe(fmt)
        found = _per_seed(classification, md, n_layers, n_heads)
        if found is not None:
            why += "; " + _seed_text(found, n_layers, n_heads, fmt)
        lines.append(f"{md.layout:<22} {unbounded:<10} {md.text():<6} {md.at(n_layers):<8} "
                     f"{why}")
    return "\n".join(lines)


def depth_dict(
    classification: Classification, depths: Sequence[MinimalDepth], n_layers: int,
    n_heads: int = N_HEADS,
) -> dict[str, Any]:
    """The JSON of `depth_table`: ``{"n_layers": L, "layouts": {layout: {...}}}``; random-key
    layouts whose seed-uniform answer is unknown add ``per_seed``: {seed: certificate or None}."""
    out: dict[str, Any] = {"n_layers": n_layers, "n_heads": n_heads, "layouts": {}}
    for md in depths:
        row = {"unbounded": classification.recognizer(md.layout).status,
               "at_depth": md.at(n_layers), **md.to_dict()}
        found = _per_seed(classification, md, n_layers, n_heads)
        if found is not None:
            row["per_seed"] = {str(s): c.to_dict() if c else None for s, c in found.items()}
        out["layouts"][md.layout] = row
    return out
