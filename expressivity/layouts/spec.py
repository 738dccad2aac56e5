"""Parse a layout spelling (preset or custom, `GRAMMAR`) into an `UnsizedLayout`, once.

Custom spelling: a pattern is a ``+``-union of atoms (the registered kinds, `registry.KINDS`:
capital letters then ``.``-separated numbers, ``G``, ``L4``, ``D4.2``); a layer is a comma list
of ``[Nx]pattern``; layers are separated by ``;`` and ``Nx(layer)`` repeats one. Presets are
read by `presets.read_preset`. A spelling that no model size fits (layers of different head
counts, no layer at all) is an error here; whether it fits a given size is
`UnsizedLayout.sized`'s.
"""

from __future__ import annotations

import re
from functools import lru_cache

from expressivity.errors import ConfigError
from expressivity.layouts.grammar import LIMITS, check_atom, fail, number, quote
from expressivity.layouts.layout import SizedRows, UnsizedLayout
from expressivity.layouts.mixer import is_mixer
from expressivity.layouts.presets import PRESET_ARITY, did_you_mean, read_preset
from expressivity.layouts.registry import KINDS, Atom
from expressivity.layouts.rows import Group, Row

__all__ = ["parse_atom", "parse_heads", "parse_spelling"]

_ATOM_RE = re.compile(r"([A-Z]+)((?:\d+(?:\.\d+)*)?)")


def parse_atom(text: str, whole: str) -> Atom:
    """One atom (any case) of spelling ``whole``: a registered kind with the right numbers."""
    text = text.upper()
    m = _ATOM_RE.fullmatch(text)
    if not m or m.group(1) not in KINDS:
        raise fail(whole, f"unknown atom {text!r}{did_you_mean(whole)}")
    params = tuple(number(x, whole) for x in m.group(2).split(".") if x)
    return check_atom(Atom(m.group(1), params), text, whole)


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _groups(text: str, whole: str) -> tuple[Group, ...]:
    groups: list[Group] = []
    items = [s.strip() for s in text.split(",")]
    for i, item in enumerate(items, start=1):
        if not item:
            raise fail(whole, f"layer {quote(text)}: head group {i} of {len(items)} is empty "
                       "(',' twice in a row, or at an end)")
        m = re.fullmatch(r"(?:(\d+)x)?(.+)", item)
        if not m:
            raise fail(whole, f"layer {quote(text)}: head group {quote(item)} is a count "
                       "without a pattern (write e.g. 4xG)")
        if "(" in item or ")" in item:
            raise fail(whole, f"layer {quote(text)}: head group {quote(item)} has a parenthesis; "
                       "only a whole layer is parenthesized, as in 2x(4xG,4xL1)")
        parts = m.group(2).split("+")
        if any(not a.strip() for a in parts):
            raise fail(whole, f"pattern {quote(m.group(2))}: an empty atom ('+' twice in a row, "
                       "or at an end)")
        count = number(m.group(1), whole) if m.group(1) else None
        if count is not None and count > LIMITS["heads"]:
            raise fail(whole, f"{quote(item)} asks for {count} heads, above the limit "
                       f"{LIMITS['heads']} (layouts.LIMITS['heads'])")
        atoms = tuple(sorted({parse_atom(a.strip(), whole) for a in parts}))
        mixers = [str(a) for a in atoms if is_mixer(a.spec)]
        if mixers and len(atoms) > 1:
            raise fail(whole, f"pattern {quote(m.group(2))}: the SSM atom {mixers[0]} is a head "
                       "pattern of its own, never in a '+'-union (write separate head groups, "
                       "e.g. 4xM,4xL1)")
        groups.append(Group(atoms, count, item))
    return tuple(groups)


def _check_shape(spelled: str, whole: str) -> None:
    """Balanced parentheses, and no preset name with a malformed tail (named in the error)."""
    depth = 0
    for column, ch in enumerate(spelled, start=1):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise fail(whole, f"the ')' at column {column} closes no '('")
    if depth:
        raise fail(whole, f"{depth} '(' without a closing ')'")
    family = re.match(r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*", spelled)
    words = family.group(0).split("-") if family else []
    # the longest hyphenated prefix that names a family (``window-x``: ``window``)
    known = [n for n in ("-".join(words[:i]) for i in range(len(words), 0, -1))
             if n in PRESET_ARITY]
    if known and spelled != known[0]:
        name = known[0]
        form = {"hybrid": "hybrid-k or hybrid-k:g=G"}.get(
            name, "-".join([name, *"kdrgb"[: PRESET_ARITY[name]]]) if PRESET_ARITY[name]
            else name)
        raise fail(whole, f"preset {name!r} is spelled {form} with {PRESET_ARITY[name]} "
                   f"number(s) >= 1; {quote(spelled)} does not match")


def _rows(spelled: str, whole: str) -> tuple[Row, ...]:
    rows: list[Row] = []
    layers = _split_top(spelled, ";")
    for i, part in enumerate(layers, start=1):
        if not part:
            raise fail(whole, f"layer {i} of {len(layers)} is empty (';' twice in a row, or "
                       "at an end)")
        m = re.fullmatch(r"(\d+)x\((.*)\)", part)
        reps, body = (number(m.group(1), whole), m.group(2)) if m else (1, part)
        if reps > LIMITS["layers"]:
            raise fail(whole, f"{quote(part)} repeats a layer {reps} times, above the limit "
                       f"{LIMITS['layers']} (layouts.LIMITS['layers'])")
        rows.append(Row(_groups(body, whole), reps, part))
    return tuple(rows)


def _check_sizable(rows: tuple[Row, ...], whole: str) -> None:
    """Some model size fits ``rows``: at least one layer, one head count for every layer."""
    if sum(r.repeat for r in rows) == 0:
        raise fail(whole, "it spells 0 layers")
    counts = dict.fromkeys(r.heads for r in rows if r.repeat and r.heads is not None)
    if 0 in counts:
        raise fail(whole, "a layer with 0 heads")
    if len(counts) > 1:
        raise fail(whole, f"its layers have different head counts ({', '.join(map(str, counts))})"
                   ": no model size fits")


def parse_spelling(text: str) -> UnsizedLayout:
    """A preset or custom spelling (any case, spaces ignored) as an `UnsizedLayout`; a located
    `ConfigError` quoting `GRAMMAR` when it is no layout at any size. Cached per spelling."""
    if not isinstance(text, str):
        raise fail(str(text), "empty layout")
    return _parse(text)


@lru_cache(maxsize=1024)
def _parse(text: str) -> UnsizedLayout:
    spelled = re.sub(r"\s+", "", text).lower()
    if not spelled:
        raise fail(text, "empty layout")
    preset = read_preset(spelled, text)
    if preset is not None:
        return UnsizedLayout(text, (), preset)
    _check_shape(spelled, text)
    rows = _rows(spelled, text)
    _check_sizable(rows, text)
    return UnsizedLayout(text, rows)


def parse_heads(text: str, n_layers: int, n_heads: int) -> SizedRows:
    """Parse a preset or custom spelling into ``n_layers`` rows of ``n_heads`` atom tuples."""
    if n_layers < 1 or n_heads < 1:
        raise ConfigError(f"layout needs n_layers, n_heads >= 1, got {n_layers}, {n_heads}")
    return parse_spelling(text).sized(n_layers, n_heads)
