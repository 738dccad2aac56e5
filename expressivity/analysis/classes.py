"""What the theory says about each language: class memberships, class group and predicted layouts.

Everything here comes from `expressivity.algebra.classify` on the minimal DFA over the
language's alphabet (docs/theory.md §3). Layouts map to the theory by name: ``global`` (LTL[P]),
``local-k`` (LTL[Y^≤k]) and ``hybrid-k`` / ``hybrid-k:g=G`` (LTL[P,Y^≤k]; the head split is
a free design choice, docs/theory.md §1); every other valid spelling (dilated, block, longformer,
bigbird, custom) is decided on its operator set (`algebra.patterns`); an invalid spelling has
no prediction ("unknown"). A cell of another positional encoding (`sweeps.cells`:
``global+rope``, ``hybrid-1+periodic-rope(2)``) is predicted only for the periodic encodings,
by ``global+periodic`` / ``hybrid-k+periodic`` (LTL[P,MOD], LTL[P,Y,MOD]), and only when the
periods can express the moduli the language needs (see `predictions`); the other encodings
have no theory here ("unknown"). Cells with length-aware attention (``+log-n``, ``+ssmax``,
`sweeps.cells.cell_scale`) are predicted like their NoPE layout only where docs/theory.md §9
proves the class unchanged (NoPE ``global``, ``local-k``, ``hybrid-k``, ``dilated-k-d``,
``block-b``, ``longformer-k-1``); a ``bigbird`` cell keeps its "yes" (random keys: its
construction stays exact) and is "unknown" otherwise, as is a length-aware encoder cell
(`encoder_predictions.scaled_prediction`: a row that reads the whole word learns its length);
the others (more global tokens) are "unknown", and no length-aware cell is "no" at a given
depth (its heads also read their key count).
Encoder cells (a bidirectional layout such as ``window-1`` or ``full``, or a readout other
than EOS: ``window-1 @cls``) are predicted by the encoder theory of docs/theory.md §13, exactly
as ``classify --layouts "LAYOUT@READOUT"`` answers them (`encoder_predictions`).
Non-regular controls (such as CNT) are predicted unrecognizable by every layout: every
language of LTL[P,Y^≤k] is regular [LC25, LC26].
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import pandas as pd

from expressivity.algebra.classify import (
    PERIODIC,
    Classification,
    LayoutVerdict,
    classify,
    has_mixers,
    one_letter_per_action,
)
from expressivity.algebra.modular import stability_index
from expressivity.algebra.patterns import layout_fragment
from expressivity.analysis.encoder_predictions import encoder_prediction, is_encoder_cell
from expressivity.analysis.mixer_depth import mixer_at_depth
from expressivity.analysis.schema import CLASS_COLUMNS, PREDICTION_COLUMNS, conform
from expressivity.automata.ops import minimize
from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_preset
from expressivity.models.depth import MinimalDepth, minimal_depth
from expressivity.resolve import Source, resolve
from expressivity.sweeps.cells import Cell, cell_layers, per_cell

__all__ = [
    "DIAGRAM",
    "LanguageKey",
    "cell_classification",
    "class_group",
    "classification",
    "language_classes",
    "predictions",
    "smallest_classes",
    "theory_layout",
    "theory_matrix",
]

#: A language as the analysis names it: (name or formula, alphabet override or "").
LanguageKey = tuple[str, str]

#: The class-inclusion diagram of the attention classes (docs/theory.md §3): node → (the
#: `CLASS_COLUMNS` column deciding membership, what recognizes it, the nodes directly above).
DIAGRAM: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "LTL[Y]": ("definite", "definite: local-1", ("LTL[P,Y]",)),
    "LTL[P]": ("r_trivial", "R-trivial: global", ("LTL[P,Y]",)),
    "LTL[P,Y]": ("locally_r_trivial", "locally R-trivial: hybrid-1", ("star-free",)),
    "star-free": ("aperiodic", "FO[<]: unique hard attention", ("regular",)),
    "regular": ("regular", "finite automata", ()),
}

_NONREGULAR_REASON = (
    "not regular: every language of LTL[P,Y^≤k] is regular, so no layout recognizes it "
    "[LC25, LC26]"
)


def theory_layout(layout: str) -> str | None:
    """The `classify` layout name a model layout (or cell label, `sweeps.cells`) is predicted
    by, or None if it has none: ``global+periodic-rope(2)`` → ``global+periodic``; NoPE cells
    by their layout; cells of other encodings (RoPE, ALiBi, ...) have none. A length-aware
    cell (`sweeps.cells.cell_scale`) is predicted by its NoPE layout where docs/theory.md §9
    proves the class unchanged (global, local-k, hybrid-k, dilated, block, longformer-k-1) or
    its "yes" kept (bigbird: random keys), else it has none."""
    cell = Cell.parse(layout)  # its layer suffix plays no part here
    if cell.readout != "eos":  # no causal class: `encoder_predictions` predicts the cell
        return None
    if cell.scale != "none":
        return _scaled_theory(cell)
    base, encoding = cell.layout, cell.positional
    if encoding == "none":
        return _theory_of_layout(base)
    named = _theory_of_layout(base)
    preset = parse_preset(named) if named is not None else None
    if (encoding.startswith("periodic-") and preset is not None and preset.global_heads is None
            and preset.family in ("global", "hybrid")):
        return f"{named}{PERIODIC}"
    return None


#: Layout families whose class docs/theory.md §9 proves unchanged by length-aware logits:
#: every head's key count is definable in the family's own logic (the key-count lemma there;
#: Longformer with one global token, ``longformer-k-1``, too); the mixers, which have no
#: attention head, and their hybrids ``samba-k`` and ``jamba-n`` (star-free either way).
_SCALE_PROVED = ("global", "local", "hybrid", "interleaved", "dilated", "block",
                 "mamba", "mamba-signed", "s4d", "deltanet", "samba", "jamba")
_SCALED_NOTE = ("; length-aware logits (attention_scale) leave this class unchanged under "
                "fixed precision (proved, docs/theory.md §9)")
#: Layout families with random keys: scaled, every "yes" stays "yes" (its construction is exact
#: at every key count) and nothing else is claimed (docs/theory.md §9, "Random keys").
_SCALE_YES_ONLY = ("bigbird",)
_SCALED_YES_NOTE = ("; length-aware logits (attention_scale) keep the construction exact at "
                    "every key count (proved, docs/theory.md §9, random keys)")
_SCALED_UNKNOWN = ("no theory for random keys with attention_scale: a row's key count is a "
                   "seed-dependent function of its position; only a 'yes' carries over "
                   "(docs/theory.md §9, random keys)")


def _scaled_theory(cell: Cell) -> str | None:
    named = _theory_of_layout(cell.layout) if cell.positional == "none" else None
    preset = parse_preset(named) if named is not None else None
    if preset is None or preset.global_heads is not None:
        return None
    one_token_longformer = preset.family == "longformer" and preset.params[1] == 1
    proved = preset.family in _SCALE_PROVED or one_token_longformer
    return named if proved or preset.family in _SCALE_YES_ONLY else None


def _scaled_verdict(theory: str, status: str, reason: str) -> tuple[str, str]:
    """The (status, reason) of a length-aware cell whose NoPE layout ``theory`` answers
    ``status`` for ``reason`` (docs/theory.md §9)."""
    preset = parse_preset(theory)
    if preset is not None and preset.family in _SCALE_YES_ONLY:
        return (status, reason + _SCALED_YES_NOTE) if status == "yes" else (
            "unknown", f"{reason}; {_SCALED_UNKNOWN}")
    return status, reason + _SCALED_NOTE


def _theory_of_layout(layout: str) -> str | None:
    preset = parse_preset(layout)
    if preset is not None and preset.family == "global":
        return "global"
    if preset is None or preset.window is None or (
        preset.global_heads is not None and preset.family == "local"
    ):
        try:
            if not has_mixers(layout):  # SSM layouts: `classify` decides their mixer class
                layout_fragment(layout)
        except ExpressivityError:
            return None
        return layout
    return f"{preset.family}-{preset.window}"


def _named(theory: str | None) -> bool:
    preset = None if theory is None else parse_preset(theory)
    return preset is not None and preset.family in ("global", "local", "hybrid") and (
        preset.global_heads is None)


def _window(theory: str | None) -> int | None:
    theory = theory.removesuffix(PERIODIC) if theory else None
    preset = parse_preset(theory) if theory and _named(theory) else None
    return None if preset is None else preset.window


@lru_cache(maxsize=512)
def _classification(
    language: str, alphabet: str, ks: tuple[int, ...], layouts: tuple[str, ...] = ()
) -> Classification | str:
    """The classification, or a string: "not regular" or the error that prevented it."""
    from expressivity.catalogue import get_language
    from expressivity.resolve import resolve

    if not alphabet:
        try:
            if not get_language(language).is_regular:
                return "not regular"
        except ExpressivityError:
            pass  # not a catalogue name: a formula or a regex, resolved below
    try:
        source = resolve(language, alphabet or None)
        return classify(source.dfa, ks, layouts=layouts, name=language, synthesize=False)
    except ExpressivityError as err:
        return f"not classified: {err}"


def classification(language: str, alphabet: str = "") -> Classification | None:
    """The (cached) classification of a language, or None if it is not regular or unresolvable."""
    c = _classification(language, alphabet, (1,))
    return c if isinstance(c, Classification) else None


def _classify_arguments(layouts: Iterable[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The windows ``ks`` and other ``layouts`` that `classify` needs to predict these cells."""
    theories = [theory_layout(x) for x in layouts]
    windows = {w for w in map(_window, theories) if w is not None}
    others = [t for t in theories if t and not _named(t) and not t.endswith(PERIODIC)]
    return tuple(sorted(windows | {1})), tuple(dict.fromkeys(others))


def cell_classification(
    language: str, alphabet: str, layouts: Iterable[str]
) -> Classification | str:
    """The (cached) classification that `predictions` decides the cells ``layouts`` of this
    language by: a `Classification` (its ``to_table()`` is what ``expressivity classify``
    prints, without synthesized formulas), or why there is none ("not regular", or the
    error that prevented it)."""
    return _classification(language, alphabet, *_classify_arguments(layouts))


def class_group(member: Mapping[str, Any]) -> str:
    """The smallest class group (`schema.GROUPS`) of a row of `CLASS_COLUMNS` memberships."""
    if member.get("regular") is False:
        return "not regular"
    if any(pd.isna(member.get(c)) for c in ("definite", "r_trivial", "aperiodic")):
        return "unknown"
    if member["definite"] and member["r_trivial"]:
        return "LTL[P] ∩ LTL[Y]"
    if member["definite"]:
        return "LTL[Y]-only"
    if member["r_trivial"]:
        return "LTL[P]-only"
    if member["locally_r_trivial"]:
        return "LTL[P,Y]-only"
    return "star-free outside LTL[P,Y]" if member["aperiodic"] else "not star-free"


def smallest_classes(member: Mapping[str, Any]) -> list[str]:
    """The minimal `DIAGRAM` nodes containing the language (several when incomparable)."""
    inside = {node for node, (col, _, _) in DIAGRAM.items() if member.get(col) is True}
    covered = {parent for node in inside for parent in _above(node)}
    return [node for node in DIAGRAM if node in inside and node not in covered]


def _above(node: str) -> set[str]:
    """Every node strictly above ``node`` in the diagram."""
    out: set[str] = set()
    todo = list(DIAGRAM[node][2])
    while todo:
        parent = todo.pop()
        if parent not in out:
            out.add(parent)
            todo.extend(DIAGRAM[parent][2])
    return out


def _keys(languages: Iterable[str | LanguageKey]) -> list[LanguageKey]:
    out: list[LanguageKey] = []
    for item in languages:
        key = (item, "") if isinstance(item, str) else (str(item[0]), str(item[1] or ""))
        if key not in out:
            out.append(key)
    return out


def language_classes(languages: Iterable[str | LanguageKey]) -> pd.DataFrame:
    """One row per language (`CLASS_COLUMNS`): memberships, group and smallest classes.

    ``languages`` are catalogue names, formulas or regexes, optionally paired with an
    alphabet override ("a,b,c"); unclassifiable ones get group "unknown" and NA memberships.
    """
    rows = []
    for language, alphabet in _keys(languages):
        c = _classification(language, alphabet, (1,))
        row: dict[str, Any] = {"language": language, "alphabet": alphabet}
        if isinstance(c, Classification):
            row.update(
                sigma=",".join(c.alphabet.symbols), regular=True, n_states=c.n_states,
                **{col: c.member(col) for col in CLASS_COLUMNS if col in dict(c.verdicts)},
            )
        else:
            row.update(regular=False if c == "not regular" else pd.NA, sigma=alphabet)
        row["group"] = class_group(row)
        row["smallest"] = " ∩ ".join(smallest_classes(row)) or (
            "not regular" if row["regular"] is False else "unknown"
        )
        rows.append(row)
    return conform(pd.DataFrame(rows, columns=list(CLASS_COLUMNS)), CLASS_COLUMNS)


def predictions(
    languages: Iterable[str | LanguageKey],
    layouts: Iterable[str],
    n_layers: int | Mapping[str, int] | None = None,
    n_heads: int | Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """One row per language × layout (`PREDICTION_COLUMNS`): "yes" / "no" only when proven.

    With a depth (``n_layers`` for every cell, or per cell label as `sweeps.cells.cell_depths`
    gives; a cell's own `` [N layers]`` label wins) each row also says what holds at exactly
    that many layers (``predicted_at_depth``, from d*, docs/theory.md §8): "no" where the
    layout needs more layers (or none suffice), "yes" where d* ≤ n_layers; else NA.
    Encoder cells (a bidirectional layout or a readout other than EOS,
    `encoder_predictions.is_encoder_cell`) are predicted by the encoder theory of
    docs/theory.md §13 on a model of that many layers and ``n_heads`` heads (for every cell,
    or per label as `sweeps.cells.cell_heads` gives; `classify`'s default when unknown)."""
    layouts = list(dict.fromkeys(layouts))
    ks, others = _classify_arguments(layouts)
    rows = []
    for language, alphabet in _keys(languages):
        c = _classification(language, alphabet, ks, others)
        for layout in layouts:
            theory, cell = theory_layout(layout), Cell.parse(layout)
            layers = cell_layers(layout, n_layers)
            if isinstance(c, Classification) and is_encoder_cell(cell):
                rows.append((language, alphabet, layout, *_encoder_row(
                    c, language, alphabet, cell, layers, per_cell(n_heads, layout))))
                continue
            if c == "not regular":
                status, reason = "no", _NONREGULAR_REASON
            elif isinstance(c, str):
                status, reason = "unknown", c
            elif theory is None:
                status, reason = "unknown", _no_theory(layout)
            else:
                r = c.recognizer(theory)
                status, reason = _with_periods(c, r, cell.periods)
                if cell.scale != "none":
                    status, reason = _scaled_verdict(theory, status, reason)
            depth = (None, None, None) if layers is None else _at_depth(
                c, language, alphabet, theory, status, reason, layers, cell.scale != "none")
            rows.append((language, alphabet, layout, status, reason, layers, *depth))
    return conform(pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS)), PREDICTION_COLUMNS)


def _encoder_row(c: Classification, language: str, alphabet: str, cell: Cell,
                 layers: int | None, heads: int | None) -> tuple[object, ...]:
    """(predicted, reason, n_layers, d*, at depth, why) of an encoder cell (§13), decided on
    the language's DFA as ``classify`` resolves it (so the answer is the CLI's)."""
    source = _source(language, alphabet)
    p = encoder_prediction(c.dfa if source is None else source.dfa, cell, layers, heads)
    return p.predicted, p.reason, layers, p.min_depth, p.at_depth, p.reason_at_depth


def _at_depth(
    c: Classification | str, language: str, alphabet: str, theory: str | None, status: str,
    reason: str, layers: int, scaled: bool = False,
) -> tuple[str, str, str]:
    """(d*, the answer at exactly ``layers`` layers, why) for one cell; a ``scaled``
    (length-aware) cell gets "unknown" where the NoPE cell gets "no" at that depth."""
    if status == "no":
        return "∞", "no", f"no at any depth: {reason}"
    if not isinstance(c, Classification) or theory is None or theory.endswith(PERIODIC):
        return "?", "unknown", "no depth analysis for this cell (docs/theory.md §8 covers NoPE)"
    if has_mixers(theory):
        return mixer_at_depth(language, alphabet, theory, status, layers)
    key = (language, alphabet, theory)
    md = _DEPTHS.get(key)
    if md is None:
        md = _DEPTHS[key] = _depth(c, language, alphabet, theory)
    at, why = md.at(layers), f"at {layers} layer{'s' * (layers != 1)}: {md.describe()}"
    if at == "yes" and status == "unknown":
        at = "unknown"  # never claim more at a depth than unbounded (e.g. periods unread)
    if at == "no" and scaled:
        at, why = "unknown", why + _SCALED_DEPTH_NOTE
    return md.text(), at, why


#: Why a length-aware cell is never "no at this depth" (docs/theory.md §9).
_SCALED_DEPTH_NOTE = ("; not 'no' at this depth: a length-aware head also reads its key count, "
                      "which the depth-bounded types do not see (docs/theory.md §9)")


#: State bound of the layered type automata behind table predictions: a fifth of
#: `models.depth.DEPTH_STATES`, so a whole table stays within minutes; a cell it leaves as
#: bounds may be exact under `expressivity classify --depth` (TOMITA-7 with hybrid-1: 3..4
#: here, 3 there).
DEPTH_STATES = 20_000
#: Minimal depths by (language, alphabet, classify layout): they do not depend on the cell.
_DEPTHS: dict[tuple[str, str, str], MinimalDepth] = {}


def _depth(c: Classification, language: str, alphabet: str, theory: str) -> MinimalDepth:
    """The minimal depth of one language under one `classify` layout (its catalogue or
    user formula, when it has one, is a candidate proof)."""
    source = _source(language, alphabet)
    formulas = [source.formula] if source is not None and source.formula is not None else []
    dfa = one_letter_per_action(minimize(c.dfa))
    return minimal_depth(dfa, theory, c.recognizer(theory), formulas=formulas,
                         max_states=DEPTH_STATES)


@lru_cache(maxsize=512)
def _source(language: str, alphabet: str) -> Source | None:
    try:
        return resolve(language, alphabet or None)
    except ExpressivityError:
        return None


def _no_theory(layout: str) -> str:
    cell = Cell.parse(layout)
    if (scale := cell.scale) != "none":
        return (f"no theory for {cell.layout} with attention_scale = {scale!r}: "
                "logits times log n reveal a row's key count; that this leaves the class "
                "unchanged is proved for NoPE global, local, hybrid, dilated, block, "
                "longformer-k-1, the mixers, samba-k and jamba-n only; with random keys only "
                "a 'yes' carries over, with more global tokens it is a conjecture, and "
                "encoders keep only their 'yes' (docs/theory.md §9)")
    base, encoding = cell.layout, cell.positional
    if encoding == "none":
        return f"no theory for layout {layout!r} (docs/theory.md §3)"
    return (f"no theory for {base} with {encoding} positions (theory covers NoPE and the "
            "periodic encodings, docs/theory.md §7)")


def _with_periods(c: Classification, r: LayoutVerdict, periods: tuple[int, ...]
                  ) -> tuple[str, str]:
    """``r``'s status and reason for a model with these periods. A "yes" that needs MOD holds
    when the periods read positions modulo the stability index s (docs/theory.md, "Periodic
    positions and MOD": a QR language is defined with mod(s,r) predicates, and n mod s is a
    function of the residues n mod m for the periods m when s divides their lcm); a "no", and
    a hybrid "yes" from LTL[P,Y] (no MOD needed), hold for every period."""
    if r.status != "yes" or not periods or (
            r.layout.startswith("hybrid") and c.member("locally_r_trivial")):
        return r.status, r.reason
    s, lcm = stability_index(c.dfa), math.lcm(*periods)
    if s == 1:
        return r.status, r.reason
    if lcm % s == 0:
        return "yes", f"{r.reason}; the periods {list(periods)} read n mod {s} ({s} divides {lcm})"
    return "unknown", (f"{r.reason}, with mod({s},r) predicates (stability index {s}); the "
                       f"periods {list(periods)} (lcm {lcm}) do not read n mod {s}: undecided")


#: How `theory_matrix` shows a prediction's status.
THEORY_MARKS = {"yes": "yes", "no": "no", "unknown": "?"}


def theory_matrix(predicted: pd.DataFrame) -> pd.DataFrame:
    """`predictions` as a language × layout table of yes / no / ? (rows and columns in order)."""
    languages = list(dict.fromkeys(predicted["language"]))
    layouts = list(dict.fromkeys(predicted["layout"]))
    marks = predicted.assign(mark=predicted["predicted"].map(THEORY_MARKS))
    table = marks.pivot_table(index="language", columns="layout", values="mark",
                              aggfunc="first")
    return table.reindex(index=languages, columns=layouts).rename_axis(None, axis=1)
