"""Depth of the SSM constructions: "yes at N layers" for pure selective-mixer cells (§16.1).

Theorem 16.1 (docs/theory.md) builds, for a pure-past formula (``M``, ``mamba``) or also a
letter-parity language (``MS``, ``mamba-signed``), a `Recognizer` whose layers are selective
mixers only and whose EOS decision is the language in float32 at every length. Its number of
layers is an upper bound on the least depth of that layout: a table cell of such a layout
with at least that many layers is "yes at this depth", on the same footing as the unbounded
"yes" of Theorem 14.4 (the construction's own width, no norm). No lower bound is known for
mixers, so every other mixer cell stays "unknown" at its depth. Hybrids (``samba-k``,
``jamba-n``) alternate mixer and attention layers in the trained model, while the
construction puts both kinds in every layer: they get no depth from it.
"""

from __future__ import annotations

from functools import lru_cache

from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_spelling

__all__ = ["construction_depth", "mixer_at_depth", "pure_mixer"]


def pure_mixer(layout: str) -> str | None:
    """``"M"`` or ``"MS"`` when every head of ``layout`` is that one selective mixer, else None."""
    try:
        kinds = {a.kind for pattern in parse_spelling(layout).patterns for a in pattern}
    except ExpressivityError:
        return None
    return next(iter(kinds)) if kinds in ({"M"}, {"MS"}) else None


@lru_cache(maxsize=256)
def construction_depth(language: str, alphabet: str, layout: str, *, at: str | None = None,
                       logic: str | None = None) -> int | None:
    """The number of layers of Theorem 16.1's recognizer of ``language`` (over ``alphabet``,
    "" for its own; a formula read with ``at`` and ``logic`` as `resolve.resolve` reads it)
    with ``layout``'s mixer (`models.construct.construct_language`, the
    catalogue formula or a synthesized one, or the parity plan for ``MS``); None when the
    layout is not a pure selective mixer or no construction applies (future operators, a
    language that is neither R-trivial, definite, nor a parity language, a parity with M)."""
    from expressivity.models.construct.build import construct_language

    kind = pure_mixer(layout)
    if kind is None:
        return None
    try:
        built, _ = construct_language(language, alphabet or None, kind, at=at, logic=logic)
    except ExpressivityError:
        return None
    return int(built.model.config.n_layers)


def mixer_at_depth(language: str, alphabet: str, layout: str, status: str, layers: int, *,
                   at: str | None = None, logic: str | None = None) -> tuple[str, str, str]:
    """(least depth, the answer at exactly ``layers`` layers, why) of a layout with SSM heads
    whose unbounded answer is ``status``: "no" at any depth after an unbounded "no"; "yes" when
    Theorem 16.1's recognizer has at most ``layers`` layers (the least depth is then "≤N");
    else "unknown" (no lower bound is known for mixers). ``at`` and ``logic`` read a formula
    as `resolve.resolve` does. The tables and `classify --depth` both answer with it."""
    if status == "no":
        return "∞", "no", "no at any depth: the unbounded answer is no"
    built = (construction_depth(language, alphabet, layout, at=at, logic=logic)
             if status == "yes" else None)
    if built is not None and built <= layers:
        return f"≤{built}", "yes", (
            f"at {layers} layer{'s' * (layers != 1)}: Theorem 16.1's recognizer has "
            f"{built} (docs/theory.md §16.1, `expressivity construct {language} --layout "
            f"{layout}`)")
    return "?", "unknown", ("no depth analysis for this SSM layout here (docs/theory.md "
                            "§14 proves 'yes' with enough layers; §16.1's construction "
                            + ("needs " + str(built) + " layers" if built is not None
                               else "does not apply") + ")")
