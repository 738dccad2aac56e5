"""Constructions for dilated and block layouts: ordinary formulas rewritten into their heads.

`prepare` maps ``construct``'s ``layout`` to the formula to plan, the allowed head patterns and
the positional encoding. Ordinary layouts (None, global, local-k, hybrid-k) go to
`construct.layout.head_patterns` unchanged; ``…+periodic`` and formulas with ``mod(m,r)`` to
`construct.periodic`; ``dilated-k-d`` and ``block-b`` are rewritten by
`construct.sparse_rewrite.Rewriter` (docs/theory.md §6, "Constructions"; the rules are in its
module docstring), and the rewritten formula is checked here against the DFA of the original:

- ``block-b``: ``Y^i ψ`` is rewritten exactly wherever the block phase κ(n) ≥ i; where the
  phase is smaller ``Y^i`` is not readable, and the error gives a word where the two differ.
- Both: where a position predicate (a maximal subformula without letters and ``eos``) is not
  a function of what the heads read of the position, the error names two positions that the
  layout cannot tell apart.
"""

from __future__ import annotations

from expressivity.alphabet import Alphabet
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.layouts import parse_preset
from expressivity.logic.syntax import Formula, Mod
from expressivity.logic.temporal import BoundedPast, Yesterday
from expressivity.models.construct.nodes import Prepared, standard
from expressivity.models.construct.sparse_rewrite import (
    BlockReading,
    DilatedReading,
    Reading,
    Rewriter,
)

__all__ = ["LAYOUTS", "MAX_BLOCK", "prepare"]

_PERIODIC = "+periodic"
#: The largest block b of ``block-b`` that `prepare` rewrites (b = 12 takes ~2 s; the
#: rewritten formula's size, and its check, grow steeply with b: b = 14 runs past a minute).
MAX_BLOCK = 12
#: The layouts `construct` takes (besides None: exactly the heads the formula needs).
LAYOUTS = ("global", "local-k", "hybrid-k", "dilated-k-d", "block-b", "global+periodic",
           "hybrid-k+periodic")


def prepare(formula: Formula, alphabet: Alphabet, layout: str | None) -> Prepared:
    """The construction input for ``layout`` (see the module docstring)."""
    from expressivity.models.construct.layout import head_patterns
    from expressivity.models.construct.periodic import prepare_periodic

    text = None if layout is None else layout.strip().lower()
    uses_mod = any(isinstance(s, Mod) for s in formula.subformulas())
    if text is not None and text.endswith(_PERIODIC):
        return prepare_periodic(formula, text[: -len(_PERIODIC)], layout)
    preset = None if text is None else parse_preset(text)
    if preset is None or preset.family not in ("dilated", "block"):
        if text is not None and (preset is None or preset.global_heads is not None
                                 or preset.family not in ("global", "local", "hybrid")):
            raise ConfigError(f"layout: construct takes None, {', '.join(LAYOUTS)}; got "
                              f"{layout!r}")
        if uses_mod:
            return prepare_periodic(formula, text, layout, implicit=True)
        patterns, start = head_patterns(formula, layout)
        return Prepared(formula, patterns, start)
    if preset.family == "block":
        (b,) = preset.params
        if b < 2:
            raise ConfigError(f"layout {layout!r}: block-b needs b >= 2 (block-1 reads nothing)")
        if b > MAX_BLOCK:
            raise ConfigError(
                f"layout {layout!r}: construct builds block-b for b <= {MAX_BLOCK} (limit "
                f"MAX_BLOCK): the rewritten formula, which names each phase of a block, grows "
                "too fast beyond it to be checked against the DFA")
        reading: Reading = BlockReading(b)
    else:
        k, d = preset.params
        if k < 1 or d < 1:
            raise ConfigError(f"layout {layout!r}: dilated-k-d needs k >= 1 and d >= 1")
        reading = DilatedReading(k, d)
    rewriter = Rewriter(reading, layout or "")
    rewritten = rewriter.rewrite(formula)
    _check_same_language(formula, rewritten, alphabet, layout or "", rewriter.conflicts)
    return Prepared(rewritten, frozenset({reading.pattern}), reading.pattern)



def _check_same_language(
    original: Formula, rewritten: Formula, alphabet: Alphabet, layout: str, conflicts: list[str]
) -> None:
    """The rewritten formula must define the same language. It can differ only where a block
    head cannot read Y^i (at positions whose phase is below i) or where a position predicate
    is not a function of the phase (``conflicts``, which are then reported first)."""
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.ops import distinguishing_word

    witness = distinguishing_word(compile_formula(standard(original), alphabet),
                                  compile_formula(standard(rewritten), alphabet))
    if witness is not None:
        word = alphabet.format_word(witness) or "ε"
        if conflicts:
            also = ("" if not any(isinstance(s, Yesterday | BoundedPast) for s in
                                  original.subformulas()) or not layout.startswith("block")
                    else " (or Y^i is used where the block phase is below i)")
            raise UnsupportedFragmentError(f"{conflicts[0]}{also}; the language changes e.g. "
                                           f"on the word {word}")
        raise UnsupportedFragmentError(
            f"{original} is not realised by a layout {layout}: it uses Y^i at positions where "
            f"the block heads cannot read it (block phase below i), and the language changes "
            f"there, e.g. on the word {word}. Guard Y^i by the phase (e.g. mod(2,1) & !start & "
            "Y a for block-2) or use local-k / hybrid-k"
        )
