"""Depth of the SSM constructions: "yes at N layers" for mixers and hybrids (§16.4, §16.5).

Theorem 16.1 (docs/theory.md) builds, for a pure-past formula (``M``, ``mamba``) or also a
letter-parity language (``MS``, ``mamba-signed``), a `Recognizer` whose layers are selective
mixers only and whose EOS decision is the language in float32 at every length; Theorem 16.4
does the same for an LTL[P,Y] formula with time-invariant mixers (``SD``, ``s4d``; ``SDC``).
Its number of layers is an upper bound on the least depth of that layout: a table cell of such
a layout with at least that many layers is "yes at this depth", on the same footing as the
unbounded "yes" of Theorem 14.4 (the construction's own width, no norm). No lower bound is
known for mixers, so every other mixer cell stays "unknown" at its depth. The hybrids
``samba-k`` and ``jamba-n`` have rows whose every head is ``M``: the recognizer laid on those
rows, the attention rows writing zero, is one of theirs (Corollary 16.3); and a global row
computes a level of P nodes, a 1-local row one of Y nodes (Corollary 16.5), so a hybrid cell is
"yes" at a depth whose model fits the recognizer's levels on its rows in order
(`models.construct.hybrid`).
"""

from __future__ import annotations

from functools import lru_cache

from expressivity.errors import ExpressivityError
from expressivity.models.construct.laid import (
    HYBRIDS,
    constructed_mixer,
    least_layers,
    mixer_rows,
    pure_mixer,
    selective_mixer,
)

__all__ = ["HYBRIDS", "constructed_mixer", "construction_depth", "mixer_at_depth", "mixer_rows",
           "pure_mixer", "selective_mixer"]

#: The theorem whose recognizer each mixer's construction is, and the section that builds it.
THEOREM = {"M": "Theorem 16.1", "MS": "Theorem 16.1", "SD": "Theorem 16.4", "SDC": "Theorem 16.4"}
SECTION = {"M": "§16.1", "MS": "§16.1", "SD": "§16.5", "SDC": "§16.5"}
#: The sections a "yes at this depth" cites: the construction's and the depth rule's (§16.4).
CITED = {kind: ", ".join(sorted([section, "§16.4"])) for kind, section in SECTION.items()}
#: The ``construct --layout`` that builds a pure mixer's recognizer.
CONSTRUCT_LAYOUT = {"M": "mamba", "MS": "mamba-signed", "SD": "s4d", "SDC": "SDC"}


def construction_depth(language: str, alphabet: str, layout: str, *, at: str | None = None,
                       logic: str | None = None) -> int | None:
    """The number of layers of Theorem 16.1's (M, MS) or 16.4's (SD, SDC) recognizer of
    ``language`` (over ``alphabet``, "" for its own; a formula read with ``at`` and ``logic``
    as `resolve.resolve` reads it) with ``layout``'s `constructed_mixer`
    (`models.construct.construct_language`, the catalogue formula or a synthesized one, or the
    parity plan for ``MS``); None when the layout has no such mixer or no construction applies
    (future operators, a language that is neither R-trivial, definite, nor a parity language,
    a parity with M or SD, S with SD)."""
    kind = constructed_mixer(layout)
    return None if kind is None else _recognizer_layers(language, alphabet, kind, at, logic)


@lru_cache(maxsize=256)
def _recognizer_layers(language: str, alphabet: str, layout: str, at: str | None,
                       logic: str | None) -> int | None:
    """The layers of `construct_language`'s recognizer with ``layout``, or None when it has
    none: by mixer kind for `construction_depth` (`mamba`, `samba-k` and `jamba-n` share
    "M"), by preset for a hybrid's own (Corollary 16.5, its least)."""
    from expressivity.models.construct.build import construct_language

    try:
        built, _ = construct_language(language, alphabet or None, layout, at=at, logic=logic)
    except ExpressivityError:
        return None
    return int(built.model.config.n_layers)


def _construct_layout(layout: str, kind: str | None) -> str:
    """The ``--layout`` of the `construct` command that builds the cell's recognizer."""
    if pure_mixer(layout) is None or kind is None:
        return layout  # a hybrid: construct lays the M recognizer on its M rows
    return CONSTRUCT_LAYOUT[kind]


def mixer_at_depth(language: str, alphabet: str, layout: str, status: str, layers: int, *,
                   at: str | None = None, logic: str | None = None) -> tuple[str, str, str]:
    """(least depth, the answer at exactly ``layers`` layers, why) of a layout with SSM heads
    whose unbounded answer is ``status``: "no" at any depth after an unbounded "no"; "yes" when
    Theorem 16.1's or 16.4's recognizer has at most as many layers as the model has
    `mixer_rows` (the least depth is then "≤N", N the fewest layers with that many); else
    "unknown" (no lower bound is known for mixers). ``at`` and ``logic`` read a formula as
    `resolve.resolve` does.
    The tables and `classify --depth` both answer with it."""
    if status == "no":
        return "∞", "no", "no at any depth: the unbounded answer is no"
    if pure_mixer(layout) is None and constructed_mixer(layout) is not None:
        return _hybrid_at_depth(language, alphabet, layout, status, layers, at, logic)
    built = (construction_depth(language, alphabet, layout, at=at, logic=logic)
             if status == "yes" else None)
    rows = mixer_rows(layout, layers)
    if built is not None and built <= rows:
        kind = constructed_mixer(layout)
        assert kind is not None  # built is None without one
        laid = ("" if rows == layers else f", laid on {built} of its {rows} {kind} rows, the "
                "others writing zero (Corollary 16.3)")
        return f"≤{least_layers(layout, built)}", "yes", (
            f"at {layers} layer{'s' * (layers != 1)}: {THEOREM[kind]}'s recognizer has "
            f"{built}{laid} (docs/theory.md {CITED[kind]}, `expressivity construct "
            f"{language} --layout {_construct_layout(layout, kind)}`)")
    section = SECTION[constructed_mixer(layout) or "M"]
    needs = ("does not apply" if built is None else f"needs {built} layers" + (
        "" if rows == layers else f" on M rows, and the model has {rows}"))
    return "?", "unknown", ("no depth analysis for this SSM layout here (docs/theory.md "
                            f"§14 proves 'yes' with enough layers; {section}'s construction "
                            f"{needs})")


def _hybrid_at_depth(language: str, alphabet: str, layout: str, status: str, layers: int,
                     at: str | None, logic: str | None) -> tuple[str, str, str]:
    """`mixer_at_depth` of a hybrid preset: "yes" when Theorem 16.1's M plan fits a model of
    at most ``layers`` layers, each level on the first row that computes it (Corollary 16.5:
    `models.construct.hybrid`); else "unknown"."""
    least = _recognizer_layers(language, alphabet, layout, at, logic) if status == "yes" else None
    if least is None:
        return "?", "unknown", ("no depth analysis for this SSM layout here (docs/theory.md "
                                "§14 proves 'yes' with enough layers; §16.4's construction "
                                "does not apply)")
    built = construction_depth(language, alphabet, layout, at=at, logic=logic)
    if least <= layers:
        return f"≤{least}", "yes", (
            f"at {layers} layer{'s' * (layers != 1)}: Theorem 16.1's M recognizer ({built} "
            f"level{'s' * (built != 1)}) on the rows of a {least}-layer {layout} model, each "
            "level on the first row that computes it (M rows any, G rows P, L1 rows Y), the "
            "others writing zero (docs/theory.md §16.1, §16.4, Corollary 16.5, `expressivity "
            f"construct {language} --layout {layout}`)")
    return "?", "unknown", ("no depth analysis for this SSM layout here (docs/theory.md §14 "
                            f"proves 'yes' with enough layers; §16.4's construction needs "
                            f"{least} layers of {layout} for its {built} levels)")

