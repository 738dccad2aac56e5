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

from collections.abc import Sequence

import numpy as np

from expressivity.algebra.classification import (
    CLASSES,
    PERIODIC,
    UNIQUE_HARD,
    Classification,
    predicted_recognizers,
)
from expressivity.algebra.layout_verdicts import (
    has_mixers,
    hybrid_verdict,
    local_verdict,
    mixer_layout_verdict,
    named_verdict,
    periodic_verdicts,
    spelling_verdict,
)
from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.mixers import two_groups
from expressivity.algebra.modular import MODULAR_DECISIONS
from expressivity.algebra.monoid import MAX_SIZE
from expressivity.algebra.patterns import layout_fragment
from expressivity.algebra.synthesis import synthesize_past, synthesize_yesterday
from expressivity.algebra.varieties import DECISIONS, semigroup_of
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, ExpressivityError, SemigroupTooLargeError

__all__ = [
    "CLASSES",
    "MAX_CELLS",
    "PERIODIC",
    "UNIQUE_HARD",
    "Classification",
    "LayoutVerdict",
    "classify",
    "has_mixers",
    "one_letter_per_action",
    "predicted_recognizers",
]

#: Bound on |S| × states, the size of the semigroup's element table: the decisions compose
#: elements pairwise, so a larger table takes minutes to hours (Y^10 a over {a,b}, 2047 × 1024,
#: takes about 30 s on 2 cores; Y^12 a, 8191 × 4096, did not finish in 2 minutes).
MAX_CELLS = 1_000_000


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
    recognizers = [named_verdict("global", "LTL[P]", "r_trivial", verdicts)]
    for k in sorted(set(ks)):
        if k == 1:
            recognizers.append(named_verdict("local-1", "LTL[Y]", "definite", verdicts))
        else:
            recognizers.append(local_verdict(dfa, k, member, verdicts, max_depth, max_states))
    for k in sorted(set(ks)):
        if k == 1:
            recognizers.append(named_verdict("hybrid-1", "LTL[P,Y]", "locally_r_trivial", verdicts))
        else:
            local_k = next((r for r in recognizers if r.layout == f"local-{k}"), None)
            recognizers.append(hybrid_verdict(dfa, k, member, verdicts, local_k, max_depth,
                                              max_states))
    recognizers += periodic_verdicts(ks, verdicts)
    known = {r.layout for r in recognizers}
    for text, fragment in fragments:
        if text not in known:
            recognizers.append(
                spelling_verdict(dfa, text, fragment, member, verdicts, max_depth, max_states)
            )
            known.add(text)
    if mixed:
        found = {**dict(verdicts), "two_groups": two_groups(sg)}
        ssm_member = {k: v is True for k, v in found.items()}
        for text in mixed:
            if text not in known:
                recognizers.append(mixer_layout_verdict(dfa, text, ssm_member, found, member,
                                                 verdicts, max_depth, max_states))
                known.add(text)
    recognizers.append(named_verdict(UNIQUE_HARD, "FO[<]", "aperiodic", verdicts))
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
