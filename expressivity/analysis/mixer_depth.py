"""Depth of the SSM constructions: "yes at N layers" for selective mixers and hybrids (§16.4).

Theorem 16.1 (docs/theory.md) builds, for a pure-past formula (``M``, ``mamba``) or also a
letter-parity language (``MS``, ``mamba-signed``), a `Recognizer` whose layers are selective
mixers only and whose EOS decision is the language in float32 at every length. Its number of
layers is an upper bound on the least depth of that layout: a table cell of such a layout
with at least that many layers is "yes at this depth", on the same footing as the unbounded
"yes" of Theorem 14.4 (the construction's own width, no norm). No lower bound is known for
mixers, so every other mixer cell stays "unknown" at its depth. The hybrids ``samba-k`` and
``jamba-n`` have rows whose every head is ``M``: the recognizer laid on those rows, the
attention rows writing zero, is one of theirs (Corollary 16.3), so such a cell is "yes" at a
depth whose model has at least as many ``M`` rows as the recognizer has layers.
"""

from __future__ import annotations

from functools import lru_cache

from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_spelling
from expressivity.layouts.presets import parse_preset

__all__ = ["construction_depth", "mixer_at_depth", "mixer_rows", "pure_mixer", "selective_mixer"]

#: Hybrid presets whose non-attention rows are all ``M`` (docs/theory.md §16.4).
HYBRIDS = ("samba", "jamba")


def pure_mixer(layout: str) -> str | None:
    """``"M"`` or ``"MS"`` when every head of ``layout`` is that one selective mixer, else None."""
    try:
        kinds = {a.kind for pattern in parse_spelling(layout).patterns for a in pattern}
    except ExpressivityError:
        return None
    return next(iter(kinds)) if kinds in ({"M"}, {"MS"}) else None


def selective_mixer(layout: str) -> str | None:
    """The selective mixer Theorem 16.1's recognizer uses for ``layout``: its own for a pure
    mixer (`pure_mixer`), ``"M"`` for the hybrids ``samba-k`` and ``jamba-n``, else None."""
    kind = pure_mixer(layout)
    if kind is not None:
        return kind
    preset = parse_preset(layout)
    return "M" if preset is not None and preset.family in HYBRIDS else None


def mixer_rows(layout: str, layers: int) -> int:
    """How many of the ``layers`` rows of a ``layout`` model have `selective_mixer` as every
    head (0 for a layout without one, or with fewer layers than its smallest model has)."""
    kind = selective_mixer(layout)
    if kind is None:
        return 0
    spelled = parse_spelling(layout)
    if layers < spelled.smallest[0]:  # jamba-2's first global row is its second
        return 0
    rows = spelled.sized(layers, 1)  # samba-k's and jamba-n's rows do not depend on heads
    return sum(all(a.kind == kind for head in row for a in head) for row in rows)


def _least_layers(layout: str, built: int) -> int:
    """The fewest layers whose ``layout`` model has ``built`` `mixer_rows`."""
    layers = built
    while mixer_rows(layout, layers) < built:  # a hybrid's M rows grow with every n layers
        layers += 1
    return layers


def construction_depth(language: str, alphabet: str, layout: str, *, at: str | None = None,
                       logic: str | None = None) -> int | None:
    """The number of layers of Theorem 16.1's recognizer of ``language`` (over ``alphabet``,
    "" for its own; a formula read with ``at`` and ``logic`` as `resolve.resolve` reads it)
    with ``layout``'s `selective_mixer` (`models.construct.construct_language`, the
    catalogue formula or a synthesized one, or the parity plan for ``MS``); None when the
    layout has no selective mixer or no construction applies (future operators, a language
    that is neither R-trivial, definite, nor a parity language, a parity with M)."""
    kind = selective_mixer(layout)
    return None if kind is None else _recognizer_layers(language, alphabet, kind, at, logic)


@lru_cache(maxsize=256)
def _recognizer_layers(language: str, alphabet: str, kind: str, at: str | None,
                       logic: str | None) -> int | None:
    """`construction_depth` by mixer: `mamba`, `samba-k` and `jamba-n` share one recognizer."""
    from expressivity.models.construct.build import construct_language

    try:
        built, _ = construct_language(language, alphabet or None, kind, at=at, logic=logic)
    except ExpressivityError:
        return None
    return int(built.model.config.n_layers)


def mixer_at_depth(language: str, alphabet: str, layout: str, status: str, layers: int, *,
                   at: str | None = None, logic: str | None = None) -> tuple[str, str, str]:
    """(least depth, the answer at exactly ``layers`` layers, why) of a layout with SSM heads
    whose unbounded answer is ``status``: "no" at any depth after an unbounded "no"; "yes" when
    Theorem 16.1's recognizer has at most as many layers as the model has `mixer_rows` (the
    least depth is then "≤N", N the fewest layers with that many); else "unknown" (no lower
    bound is known for mixers). ``at`` and ``logic`` read a formula as `resolve.resolve` does.
    The tables and `classify --depth` both answer with it."""
    if status == "no":
        return "∞", "no", "no at any depth: the unbounded answer is no"
    built = (construction_depth(language, alphabet, layout, at=at, logic=logic)
             if status == "yes" else None)
    rows = mixer_rows(layout, layers)
    if built is not None and built <= rows:
        kind = selective_mixer(layout)
        laid = ("" if rows == layers else f", laid on {built} of its {rows} {kind} rows, the "
                "others writing zero (Corollary 16.3)")
        return f"≤{_least_layers(layout, built)}", "yes", (
            f"at {layers} layer{'s' * (layers != 1)}: Theorem 16.1's recognizer has "
            f"{built}{laid} (docs/theory.md §16.1, §16.4, `expressivity construct {language} "
            f"--layout {'mamba' if kind == 'M' else 'mamba-signed'}`)")
    needs = ("does not apply" if built is None else f"needs {built} layers" + (
        "" if rows == layers else f" on M rows, and the model has {rows}"))
    return "?", "unknown", ("no depth analysis for this SSM layout here (docs/theory.md "
                            f"§14 proves 'yes' with enough layers; §16.1's construction {needs})")
