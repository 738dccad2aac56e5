"""`classify`: every class verdict of a regular language, with witnesses and predicted recognizers.

The attention layouts use the toolkit's spellings (`models.layouts`): ``global`` (LTL[P] =
R-trivial [LC25]), ``local-k`` (LTL[Y^≤k]; local-1 = LTL[Y] = definite [LC26]), ``hybrid-k``
(LTL[P,Y^≤k]; hybrid-1 = LTL[P,Y] = locally R-trivial [LC26]); unique hard attention is
reported beside them (star-free = aperiodic [YCA24]). Any other layout spelling (presets such
as ``dilated-2-2``, ``block-4``, ``longformer-2-1``, ``bigbird-3-2-1`` or custom ones such as
``L3+R2+T1``) is decided on its operator set (`algebra.patterns`, docs/theory.md "Sparse
attention patterns"). Class membership depends on the alphabet, which every rendering states.

With periodic positions (RoPE or sinusoidal indexed by the position mod m), ``global+periodic``
is LTL[P,MOD] = QR [JSLC26] and ``hybrid-k+periodic`` is read as LTL[P,Y^≤k,MOD], which is
LTL[P,Y,MOD] for every k: "yes" when L is locally R-trivial or QR, "no" when the stable
semigroup is not locally R-trivial (LTL[P,Y,MOD] ⊆ QLR), unknown otherwise (`algebra.modular`,
docs/theory.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.algebra.locality import LayoutVerdict, types_verdict
from expressivity.algebra.mixers import STAR_FREE_ATOMS, mixer_verdict, two_groups
from expressivity.algebra.modular import MODULAR_DECISIONS
from expressivity.algebra.monoid import MAX_SIZE
from expressivity.algebra.operators import Fragment
from expressivity.algebra.patterns import layout_fragment, pattern_verdict, patterns_fragment
from expressivity.algebra.synthesis import synthesize_past, synthesize_yesterday
from expressivity.algebra.types import hybrid, local, past
from expressivity.algebra.varieties import DECISIONS, Verdict, semigroup_of
from expressivity.algebra.window_sets import MAX_PREFIX, window_sets
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, ExpressivityError, SemigroupTooLargeError
from expressivity.layouts import parse_spelling
from expressivity.layouts.mixer import is_mixer

if TYPE_CHECKING:
    pass

#: Class names in report order (the keys of the catalogue's ``[expected]`` tables).
CLASSES: tuple[str, ...] = (*DECISIONS, *MODULAR_DECISIONS)
UNIQUE_HARD = "unique-hard-attention"
#: Bound on |S| × states, the size of the semigroup's element table: the decisions compose
#: elements pairwise, so a larger table takes minutes to hours (Y^10 a over {a,b}, 2047 × 1024,
#: takes about 30 s on 2 cores; Y^12 a, 8191 × 4096, did not finish in 2 minutes).
MAX_CELLS = 1_000_000
#: Suffix of the layouts with periodic positions (``global+periodic``, ``hybrid-1+periodic``).
PERIODIC = "+periodic"


@dataclass(frozen=True)
class Classification:
    """Class verdicts (True or a witness), recognizer verdicts and synthesized formulas."""

    name: str
    alphabet: Alphabet
    dfa: DFA = field(repr=False)
    semigroup_size: int
    monoid_size: int
    n_idempotents: int
    verdicts: tuple[tuple[str, Verdict], ...]
    recognizers: tuple[LayoutVerdict, ...]
    formulas: tuple[tuple[str, str], ...] = ()
    ks: tuple[int, ...] = (1, 2, 4)
    layouts: tuple[str, ...] = ()

    @property
    def n_states(self) -> int:
        """States of the minimal complete DFA (sink included)."""
        return self.dfa.n_states

    def verdict(self, cls: str) -> Verdict:
        """True or the witness for one class name (see `CLASSES`)."""
        return dict(self.verdicts)[cls]

    def member(self, cls: str) -> bool:
        """Whether the language is in class ``cls``."""
        return self.verdict(cls) is True

    def recognizer(self, layout: str) -> LayoutVerdict:
        """The verdict for one layout (``global``, ``local-2``, ..., ``unique-hard-attention``)."""
        for r in self.recognizers:
            if r.layout == layout:
                return r
        raise KeyError(f"no layout {layout!r}; known: {[r.layout for r in self.recognizers]}")

    # ---------------------------------------------------------------- renderings
    def _fmt(self, word: Sequence[str]) -> str:
        return self.alphabet.format_word(word)

    def to_table(self) -> str:
        """A plain-text report: classes, recognizers (with reasons) and formulas."""
        lines = [
            f"{self.name} over Σ = {self.alphabet}: minimal DFA {self.n_states} states, "
            f"|S| = {self.semigroup_size}, |M| = {self.monoid_size}, "
            f"{self.n_idempotents} idempotents",
            "",
            f"{'class':<22} verdict",
        ]
        for cls, v in self.verdicts:
            text = "yes" if v is True else "no   " + v.describe(self._fmt)
            lines.append(f"{cls:<22} {text}")
        lines += ["", f"{'attention':<22} {'logic':<16} verdict"]
        for r in self.recognizers:
            verdict = (f"{r.status} {r.reason}" if r.status == "unknown"
                       else f"{r.status:<8} {r.reason}")
            lines.append(f"{r.layout:<22} {r.logic:<16} {verdict}")
        if self.formulas:
            lines.append("")
            lines += [f"{logic:<22} {text}" for logic, text in self.formulas]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready nested dict."""
        return {
            "name": self.name,
            "alphabet": list(self.alphabet.symbols),
            "n_states": self.n_states,
            "semigroup_size": self.semigroup_size,
            "monoid_size": self.monoid_size,
            "n_idempotents": self.n_idempotents,
            "classes": {
                cls: {"member": v is True, "witness": None if v is True else v.to_dict()}
                for cls, v in self.verdicts
            },
            "recognizers": {r.layout: r.to_dict() for r in self.recognizers},
            "formulas": dict(self.formulas),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict` as JSON (UTF-8 text, ω and ≤ kept)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_row(self) -> dict[str, Any]:
        """One flat row for a pandas DataFrame: classes as bools, layouts as True/False/None."""
        row: dict[str, Any] = {
            "language": self.name,
            "alphabet": ",".join(self.alphabet.symbols),
            "n_states": self.n_states,
            "semigroup_size": self.semigroup_size,
        }
        row.update({cls: v is True for cls, v in self.verdicts})
        status = {"yes": True, "no": False, "unknown": None}
        row.update({r.layout: status[r.status] for r in self.recognizers})
        return row


def predicted_recognizers(
    classification: Classification, *, periodic: bool = False
) -> dict[str, bool]:
    """Layout name (``global``, ``local-k``, ``hybrid-k`` and every spelling passed as
    ``layouts`` to `classify`) → True iff proven to recognize L.

    False covers both a proven "no" and an "unknown"; `Classification.recognizer` tells them
    apart. Unique hard attention is not a model layout and is left out. With ``periodic``,
    the layouts with periodic positions instead (``global+periodic``, ``hybrid-k+periodic``).
    """
    return {
        r.layout: r.status == "yes"
        for r in classification.recognizers
        if r.layout != UNIQUE_HARD and r.layout.endswith(PERIODIC) == periodic
    }


def classify(
    dfa: DFA,
    ks: Sequence[int] = (1, 2, 4),
    *,
    layouts: Sequence[str] = (),
    name: str | None = None,
    max_size: int = MAX_SIZE,
    max_cells: int = MAX_CELLS,
    max_depth: int = 4,
    max_states: int = 20_000,
    synthesize: bool = True,
) -> Classification:
    """Classify the language of ``dfa`` (``name`` labels it). Decisions run on the minimal DFA.

    Text (a catalogue name, formula or regex) is resolved at the edge first:
    ``classify(resolve(text, alphabet).dfa, name=...)`` or ``expressivity.language``.

    ``max_size`` bounds the semigroup and ``max_cells`` its element table (elements × states,
    `MAX_CELLS`); ``max_depth``/``max_states`` bound the type automata
    behind the k ≥ 2 layouts. ``layouts``: further layout spellings (any preset or custom
    spelling, see `expressivity.layouts`), each decided on its operator set; a bad
    spelling raises `ConfigError` before any work.
    """
    from expressivity.automata.ops import minimize

    if not isinstance(dfa, DFA):
        raise ConfigError(
            f"classify takes a DFA, got {type(dfa).__name__}: resolve text first, e.g. "
            "classify(expressivity.resolve.resolve(text, alphabet).dfa, name=text)"
        )
    mixed = [text for text in dict.fromkeys(layouts) if has_mixers(text)]
    fragments = [(text, layout_fragment(text)) for text in dict.fromkeys(layouts)
                 if text not in mixed]
    full = minimize(dfa)
    dfa = one_letter_per_action(full)  # same verdicts, far cheaper over large alphabets
    elements = min(max_size, max(1, max_cells // dfa.n_states))
    try:
        sg = semigroup_of(dfa, max_size=elements)
    except SemigroupTooLargeError:
        if elements == max_size:
            raise
        raise SemigroupTooLargeError(
            f"the transition semigroup of this {dfa.n_states}-state DFA has more than {elements} "
            f"elements, so its table exceeds max_cells={max_cells} (elements × states); the "
            "decisions on it would take minutes or more. Raise the bound to try anyway "
            "(classify(..., max_cells=N); CLI: --max-cells N)"
        ) from None
    decisions = {**DECISIONS, **MODULAR_DECISIONS}
    verdicts = tuple((cls, decide(sg)) for cls, decide in decisions.items())
    member = {cls: v is True for cls, v in verdicts}
    recognizers = [_recognizer("global", "LTL[P]", "r_trivial", verdicts)]
    for k in sorted(set(ks)):
        if k == 1:
            recognizers.append(_recognizer("local-1", "LTL[Y]", "definite", verdicts))
        else:
            recognizers.append(_local(dfa, k, member, verdicts, max_depth, max_states))
    for k in sorted(set(ks)):
        if k == 1:
            recognizers.append(_recognizer("hybrid-1", "LTL[P,Y]", "locally_r_trivial", verdicts))
        else:
            local_k = next((r for r in recognizers if r.layout == f"local-{k}"), None)
            recognizers.append(_hybrid(dfa, k, member, verdicts, local_k, max_depth, max_states))
    recognizers += _periodic(ks, verdicts)
    known = {r.layout for r in recognizers}
    for text, fragment in fragments:
        if text not in known:
            recognizers.append(
                _any_layout(dfa, text, fragment, member, verdicts, max_depth, max_states)
            )
            known.add(text)
    if mixed:
        found = {**dict(verdicts), "two_groups": two_groups(sg)}
        ssm_member = {k: v is True for k, v in found.items()}
        for text in mixed:
            if text not in known:
                recognizers.append(_mixer_layout(dfa, text, ssm_member, found, member,
                                                 verdicts, max_depth, max_states))
                known.add(text)
    recognizers.append(_recognizer(UNIQUE_HARD, "FO[<]", "aperiodic", verdicts))
    formulas: list[tuple[str, str]] = []
    if synthesize:
        from expressivity.logic.printer import to_text

        for logic, cls, make in (
            ("LTL[P]", "r_trivial", synthesize_past),
            ("LTL[Y]", "definite", synthesize_yesterday),
        ):
            if member[cls]:
                try:
                    formulas.append((logic, to_text(make(full))))
                except ExpressivityError as err:  # e.g. the check compile outgrew its bound
                    formulas.append((logic, f"(not synthesized: {err})"))
    return Classification(
        name=name or "L",
        alphabet=full.alphabet,
        dfa=full,
        semigroup_size=sg.semigroup_size,
        monoid_size=sg.size,
        n_idempotents=int(sg.idempotent.sum()),
        verdicts=verdicts,
        recognizers=tuple(recognizers),
        formulas=tuple(formulas),
        ks=tuple(ks),
        layouts=tuple(text for text in dict.fromkeys(layouts)),
    )


def one_letter_per_action(dfa: DFA) -> DFA:
    """``dfa`` restricted to the first letter of each class of letters that act alike.

    Letters a, b with equal columns of the minimal DFA are interchangeable: L = h⁻¹(L') for the
    letter-to-class map h, so every decision here (semigroup varieties, type automata for any
    operator set, QR) gives the same verdict on the restriction, and its witnesses, spelled in
    real letters, are witnesses for ``dfa`` (docs/theory.md §3, "Letters that act alike").
    The restriction of a minimal DFA is minimal, with the same states.
    """
    _, first = np.unique(dfa.transitions, axis=1, return_index=True)
    keep = sorted(int(a) for a in first)  # the first letter of each column
    if len(keep) == len(dfa.alphabet):
        return dfa
    sigma = Alphabet(tuple(dfa.alphabet.symbols[a] for a in keep))
    return DFA(sigma, dfa.transitions[:, keep], dfa.accepting, dfa.initial)


_NAMES = {
    "r_trivial": "R-trivial",
    "definite": "definite",
    "locally_r_trivial": "locally R-trivial",
    "aperiodic": "aperiodic (star-free)",
    "qr": "QR [JSLC26]",
}


def _recognizer(
    layout: str, logic: str, cls: str, verdicts: tuple[tuple[str, Verdict], ...]
) -> LayoutVerdict:
    v = dict(verdicts)[cls]
    if v is True:
        return LayoutVerdict(layout, logic, "yes", f"{logic} = {_NAMES[cls]}: yes")
    return LayoutVerdict(layout, logic, "no", f"{logic} = {_NAMES[cls]}: no", v)


def _local(
    dfa: DFA, k: int, member: dict[str, bool], verdicts: Any, depth: int, states: int
) -> LayoutVerdict:
    logic = str(local(k))
    if not member["definite"]:
        v = dict(verdicts)["definite"]
        return LayoutVerdict(
            f"local-{k}", logic, "no", f"{logic} ⊊ LTL[Y] = definite: not definite", v
        )
    return types_verdict(dfa, f"local-{k}", local(k), depth, states)


def _hybrid(
    dfa: DFA,
    k: int,
    member: dict[str, bool],
    verdicts: Any,
    local_k: LayoutVerdict | None,
    depth: int,
    states: int,
) -> LayoutVerdict:
    layout, logic = f"hybrid-{k}", str(hybrid(k))
    if not member["locally_r_trivial"]:
        v = dict(verdicts)["locally_r_trivial"]
        reason = f"{logic} ⊊ LTL[P,Y] = LR: not locally R-trivial"
        return LayoutVerdict(layout, logic, "no", reason, v)
    if member["r_trivial"]:
        return LayoutVerdict(layout, logic, "yes", "R-trivial: its global heads suffice (LTL[P])")
    if local_k is not None and local_k.status == "yes":
        return LayoutVerdict(layout, logic, "yes", f"its {k}-local heads suffice: {local_k.reason}")
    windows = window_sets(dfa, k, min(dfa.n_states, MAX_PREFIX))
    if windows is not None:  # prefix, content and window sets, read through P (§17)
        reason = (f"{windows.describe()}, which the {k}-local and global heads read with "
                  f"{windows.layers} layers: yes")
        return LayoutVerdict(layout, logic, "yes", reason, windows)
    return types_verdict(dfa, layout, hybrid(k), depth, states)


def _any_layout(
    dfa: DFA,
    text: str,
    fragment: Fragment,
    member: dict[str, bool],
    verdicts: Any,
    depth: int,
    states: int,
) -> LayoutVerdict:
    """A layout spelling: through the named decisions when its operator set is P, Y^≤k or
    P,Y^≤k (so ``8xG`` and ``global`` agree), else `pattern_verdict`."""
    named: LayoutVerdict | None = None
    if fragment == past():
        named = _recognizer(text, "LTL[P]", "r_trivial", verdicts)
    elif fragment == local(1):
        named = _recognizer(text, "LTL[Y]", "definite", verdicts)
    elif fragment == hybrid(1):
        named = _recognizer(text, "LTL[P,Y]", "locally_r_trivial", verdicts)
    elif fragment.window and fragment == local(fragment.window):
        named = _local(dfa, fragment.window, member, verdicts, depth, states)
    elif fragment.window and fragment == hybrid(fragment.window):
        local_k = _local(dfa, fragment.window, member, verdicts, depth, states)
        named = _hybrid(dfa, fragment.window, member, verdicts, local_k, depth, states)
    if named is not None:
        return LayoutVerdict(text, named.logic, named.status, named.reason, named.witness,
                          named.depth)
    return pattern_verdict(dfa, text, fragment, member, dict(verdicts), depth, states)


def has_mixers(text: str) -> bool:
    """Whether a layout spelling has SSM heads (`ConfigError` on a bad spelling)."""
    return any(is_mixer(a.spec) for p in parse_spelling(text).patterns for a in p)


def _mixer_layout(
    dfa: DFA, text: str, ssm_member: dict[str, bool], found: dict[str, Any],
    member: dict[str, bool], verdicts: Any, depth: int, states: int,
) -> LayoutVerdict:
    """A spelling with SSM heads: `algebra.mixers.mixer_verdict` on its mixer kinds and the
    verdict of its attention heads alone (docs/theory.md §14)."""
    patterns = parse_spelling(text).patterns
    kinds = frozenset(a.kind for p in patterns for a in p if is_mixer(a.spec))
    attention = [p for p in patterns if not any(is_mixer(a.spec) for a in p)]
    heads = None
    if attention:
        heads = _any_layout(dfa, text, patterns_fragment(attention), member, verdicts, depth,
                            states)
    star_free = all(a.kind in STAR_FREE_ATOMS for p in attention for a in p)
    return mixer_verdict(text, kinds, heads, star_free, ssm_member, found)


def _periodic(ks: Sequence[int], verdicts: tuple[tuple[str, Verdict], ...]) -> list[LayoutVerdict]:
    """The layouts with periodic positions (see the module docstring and docs/theory.md).

    With MOD, every window k is as good as k = 1: Y ψ = ⋁_r mod(k,r) ∧ Y^≤k(ψ ∧ mod(k,r−1)),
    so LTL[P,Y^≤k,MOD] = LTL[P,Y,MOD] ⊇ LTL[P,Y] ∪ LTL[P,MOD], and LTL[P,Y,MOD] ⊆ QLR.
    """
    glob = _recognizer(f"global{PERIODIC}", "LTL[P,MOD]", "qr", verdicts)
    out = [glob]
    member = dict(verdicts)
    for k in sorted(set(ks)):
        layout = f"hybrid-{k}{PERIODIC}"
        logic = "LTL[P,Y,MOD]" if k == 1 else f"LTL[P,Y<={k},MOD]"
        full = "LTL[P,Y,MOD]" if k == 1 else f"LTL[P,Y,MOD] = {logic}"  # Y from Y<=k and MOD
        if member["locally_r_trivial"] is True:
            reason = f"LTL[P,Y] = locally R-trivial: yes, and LTL[P,Y] ⊆ {full}"
            out.append(LayoutVerdict(layout, logic, "yes", reason))
        elif glob.status == "yes":
            reason = f"its global heads suffice: {glob.reason}"
            out.append(LayoutVerdict(layout, logic, "yes", reason))
        elif member["qlr"] is not True:
            reason = f"{full} ⊆ QLR: the stable semigroup is not locally R-trivial"
            out.append(LayoutVerdict(layout, logic, "no", reason, member["qlr"]))
        else:
            reason = f"QLR, but neither QR nor locally R-trivial: undecided for {full}"
            out.append(LayoutVerdict(layout, logic, "unknown", reason))
    return out
