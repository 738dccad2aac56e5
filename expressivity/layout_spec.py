"""Layout spellings as pure data: the atoms of each head of each layer (no torch, no masks).

The grammar (`GRAMMAR`) is documented in `expressivity.models.layouts`, which builds masks from
the parsed atoms; the theory (`expressivity.algebra.patterns`) reads the same atoms, so both
layers agree on what a spelling means.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from expressivity.errors import ConfigError, echo

__all__ = ["GRAMMAR", "LIMITS", "PRESET_ARITY", "Atom", "HeadAtoms", "Preset", "parse_heads",
           "parse_preset"]

#: Bounds on the numbers of a spelling, checked while it is parsed, before anything is built
#: (issue 28). ``window`` bounds k of Lk, the band k·d of Dk.d, r of Rr and g of Tg: a window
#: of 10,001 token positions already holds every earlier symbol of the longest word the
#: toolkit samples (``data.splits.MAX_LENGTH`` = 10,000), so on every such word a larger one
#: reads exactly what 10,001 reads (k-local then differs from global only in not seeing BOS).
#: ``block`` bounds b of Bb lower: the theory's block automaton grows with b (b = 1,024 takes
#: about a second to classify). ``heads`` and ``layers`` bound ``Nx`` counts and repeats.
LIMITS = {"window": 10_001, "block": 1_024, "heads": 1_024, "layers": 1_024}
_DIGITS = 12  # digits of a spelled number read at most (every limit has fewer)

_KINDS = {"G": 0, "L": 1, "D": 2, "B": 1, "R": 1, "T": 1}  # atom letter -> number of parameters
_ATOM_RE = re.compile(r"^([GLDBRT])(\d*)(?:\.(\d+))?$")
_PRESET_RE = re.compile(r"([a-z]+)((?:-\d+)*)(?::g=(\d+))?")
#: Every preset family and how many numbers its spelling takes (``dilated-k-d``: 2).
PRESET_ARITY = {"global": 0, "local": 1, "hybrid": 1, "interleaved": 1, "longformer": 2,
                "bigbird": 3, "dilated": 2, "block": 1}

#: The spelling grammar, quoted by every parse error.
GRAMMAR = (
    "presets: global, local-k, hybrid-k[:g=G], interleaved-k, longformer-k-g, bigbird-k-r-g, "
    "dilated-k-d, block-b; custom: layers ';'-separated (Nx(layer) repeats one), a layer is a "
    "','-list of [Nx]pattern, a pattern a '+'-union of atoms G (global), Lk (k-local), Dk.d "
    "(k keys spaced d), Bb (block of b tokens), Rr (r random keys), Tg (g global tokens); "
    "a custom spelling such as '4xG,4xL1', 'L3+R2+T1' or '2x(8xG);3x(8xL2)'"
)

#: One head's pattern as its sorted, distinct atoms.
HeadAtoms = tuple["Atom", ...]


@dataclass(frozen=True, order=True)
class Atom:
    """One pattern family with its integer parameters, e.g. ``Atom("L", (4,))`` for 4-local."""

    kind: str
    params: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.kind + ".".join(str(p) for p in self.params)

    @property
    def band(self) -> int | None:
        """Largest key offset ``n - m`` this atom allows, or None when not a causal band."""
        if self.kind == "L":
            return self.params[0]
        if self.kind == "D":
            return self.params[0] * self.params[1]
        if self.kind == "B":
            return self.params[0] - 1
        return None


def _number(digits: str, whole: str) -> int:
    """A spelled number; more digits than any limit has is refused before `int` reads them."""
    if len(digits) > _DIGITS:
        raise _fail(whole, f"the number {_echo(digits)} has {len(digits)} digits, more than any "
                    f"layout limit (layout_spec.LIMITS: {LIMITS})")
    return int(digits)


def _fail(text: str, why: str) -> ConfigError:
    return ConfigError(f"layout: invalid value {echo(text, 80)}: {why}. Grammar: {GRAMMAR}")


@dataclass(frozen=True)
class Preset:
    """A preset spelling as a value: ``hybrid-2:g=3`` is ``Preset("hybrid", (2,), 3)``."""

    family: str  # a key of PRESET_ARITY
    params: tuple[int, ...] = ()  # its numbers, in spelling order (window first)
    global_heads: int | None = None  # hybrid's ``:g=G``

    @property
    def window(self) -> int | None:
        """The local window k of ``local-k`` / ``hybrid-k``, else None."""
        return self.params[0] if self.family in ("local", "hybrid") else None

    def __str__(self) -> str:
        g = "" if self.global_heads is None else f":g={self.global_heads}"
        return "-".join([self.family, *map(str, self.params)]) + g


def parse_preset(text: str) -> Preset | None:
    """``text`` (any case, spaces ignored) as a well-formed preset, or None if it is not one
    (a custom spelling, an unknown name, the wrong count of numbers, ``:g=`` off hybrid).
    Numbers above `LIMITS` are a `ConfigError`; others are not range-checked here:
    `parse_heads` and the callers say what they need."""
    m = _PRESET_RE.fullmatch(re.sub(r"\s+", "", text).lower())
    if not m or m.group(1) not in PRESET_ARITY:
        return None
    nums = tuple(_number(x, text) for x in m.group(2).split("-")[1:])
    if len(nums) != PRESET_ARITY[m.group(1)] or (m.group(3) is not None
                                                  and m.group(1) != "hybrid"):
        return None
    g = None if m.group(3) is None else _number(m.group(3), text)
    preset = Preset(m.group(1), nums, g)
    for atom in _preset_atoms(preset):
        _atom(atom, text)  # the numbers within `LIMITS`
    return preset


def _preset_atoms(preset: Preset) -> list[str]:
    """The custom atoms a preset spells (for the limits on their numbers)."""
    p = preset.params
    spelled = {"local": "L{0}", "hybrid": "L{0}", "interleaved": "L{0}", "longformer": "L{0}+T{1}",
               "bigbird": "L{0}+R{1}+T{2}", "dilated": "D{0}.{1}", "block": "B{0}"}
    if preset.family not in spelled or any(x < 1 for x in p):
        return []
    return spelled[preset.family].format(*p).split("+")


def _preset(text: str, n_layers: int, n_heads: int) -> str | None:
    """Translate a preset name into the custom spelling, or None if ``text`` is no preset."""
    m = _PRESET_RE.fullmatch(text)
    if not m:
        return None
    name, nums = m.group(1), [_number(x, text) for x in m.group(2).split("-")[1:]]
    arity = PRESET_ARITY
    if name not in arity:
        return None
    if len(nums) != arity[name] or (m.group(3) is not None and name != "hybrid"):
        raise _fail(text, f"preset '{name}' takes {arity[name]} number(s)")
    if any(x < 1 for x in nums):
        raise _fail(text, "preset numbers must be >= 1")
    if name == "global":
        return "G"
    if name in ("local", "dilated", "block"):
        return {"local": "L{}", "dilated": "D{}.{}", "block": "B{}"}[name].format(*nums)
    if name == "hybrid":
        g = _number(m.group(3), text) if m.group(3) is not None else n_heads // 2
        if not 1 <= g <= n_heads - 1:
            raise _fail(text, f"a hybrid layer needs 1 <= g <= n_heads - 1 = {n_heads - 1}")
        return f"{g}xG,{n_heads - g}xL{nums[0]}"
    if name == "interleaved":
        return ";".join("G" if i % 2 == 0 else f"L{nums[0]}" for i in range(n_layers))
    if name == "longformer":
        return f"L{nums[0]}+T{nums[1]}"
    return f"L{nums[0]}+R{nums[1]}+T{nums[2]}"


def _atom(text: str, whole: str) -> Atom:
    text = text.upper()
    m = _ATOM_RE.match(text)
    if not m:
        raise _fail(whole, f"unknown atom {text!r}{_did_you_mean(whole)}")
    kind, a, b = m.group(1), m.group(2), m.group(3)
    params = tuple(_number(x, whole) for x in (a, b) if x)
    if len(params) != _KINDS[kind]:
        raise _fail(whole, f"atom {kind} takes {_KINDS[kind]} number(s), got {text!r}")
    if any(p < 1 for p in params):
        raise _fail(whole, f"atom {text!r} needs numbers >= 1")
    name = "block" if kind == "B" else "window"
    size = params[0] * params[1] if kind == "D" else params[0] if params else 0
    if size > LIMITS[name]:
        what = {"L": "window k", "D": "band k·d", "B": "block b", "R": "random keys r",
                "T": "global tokens g"}[kind]
        beyond = ("; a window of the longest sampled word reads like global attention: use "
                  "G, or a smaller number" if kind in "LD" else "")
        raise _fail(whole, f"atom {_echo(text)}: {what} = {size} is above the limit "
                    f"{LIMITS[name]} (layout_spec.LIMITS[{name!r}]){beyond}")
    return Atom(kind, params)


def _did_you_mean(whole: str) -> str:
    """`` (did you mean 'hybrid-1'?)`` when ``whole`` is a preset with a misspelled family."""
    m = _PRESET_RE.fullmatch(re.sub(r"\s+", "", whole).lower())
    if not m or m.group(1) in PRESET_ARITY:
        return ""
    close = difflib.get_close_matches(m.group(1), PRESET_ARITY, n=1, cutoff=0.6)
    return f" (did you mean {close[0] + whole.strip()[len(m.group(1)):]!r}?)" if close else ""
def _echo(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit] + "…")


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


def _layer(text: str, n_heads: int, whole: str) -> list[tuple[Atom, ...]]:
    heads: list[tuple[Atom, ...]] = []
    items = [s.strip() for s in text.split(",")]
    for i, item in enumerate(items, start=1):
        if not item:
            raise _fail(whole, f"layer {_echo(text)}: head group {i} of {len(items)} is empty "
                        "(',' twice in a row, or at an end)")
        m = re.fullmatch(r"(?:(\d+)x)?(.+)", item)
        if not m:
            raise _fail(whole, f"layer {_echo(text)}: head group {_echo(item)} is a count "
                        "without a pattern (write e.g. 4xG)")
        if "(" in item or ")" in item:
            raise _fail(whole, f"layer {_echo(text)}: head group {_echo(item)} has a parenthesis; "
                        "only a whole layer is parenthesized, as in 2x(4xG,4xL1)")
        parts = m.group(2).split("+")
        if any(not a.strip() for a in parts):
            raise _fail(whole, f"pattern {_echo(m.group(2))}: an empty atom ('+' twice in a row, "
                        "or at an end)")
        count = _number(m.group(1), whole) if m.group(1) else None
        if count is not None and count > min(n_heads, LIMITS["heads"]):
            raise _fail(whole, f"{_echo(item)} asks for {count} heads but the model has "
                        f"{n_heads} per layer (limit {LIMITS['heads']})")
        atoms = tuple(sorted({_atom(a.strip(), whole) for a in parts}))
        if count is None:
            count = n_heads if len(items) == 1 else 1
        heads.extend([atoms] * count)
    if len(heads) != n_heads:
        raise _fail(whole, f"layer {text!r} has {len(heads)} heads but the model has {n_heads}")
    return heads


def _check_shape(spelled: str, whole: str) -> None:
    """Balanced parentheses, and no preset name with a malformed tail (named in the error)."""
    depth = 0
    for column, ch in enumerate(spelled, start=1):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise _fail(whole, f"the ')' at column {column} closes no '('")
    if depth:
        raise _fail(whole, f"{depth} '(' without a closing ')'")
    family = re.match(r"[a-z]+", spelled)
    if family and family.group(0) in PRESET_ARITY and spelled != family.group(0):
        name = family.group(0)
        form = {"hybrid": "hybrid-k or hybrid-k:g=G"}.get(
            name, "-".join([name, *"kdrgb"[: PRESET_ARITY[name]]]) if PRESET_ARITY[name]
            else name)
        raise _fail(whole, f"preset {name!r} is spelled {form} with {PRESET_ARITY[name]} "
                    f"number(s) >= 1; {_echo(spelled)} does not match")


def parse_heads(text: str, n_layers: int, n_heads: int) -> tuple[tuple[HeadAtoms, ...], ...]:
    """Parse a preset or custom spelling into ``n_layers`` rows of ``n_heads`` atom tuples."""
    if n_layers < 1 or n_heads < 1:
        raise ConfigError(f"layout needs n_layers, n_heads >= 1, got {n_layers}, {n_heads}")
    spelled = re.sub(r"\s+", "", str(text)).lower() if isinstance(text, str) else ""
    if not spelled:
        raise _fail(str(text), "empty layout")
    custom = _preset(spelled, n_layers, n_heads)
    if custom is None:
        _check_shape(spelled, str(text))
    custom = custom if custom is not None else spelled
    rows: list[list[HeadAtoms]] = []
    layers = _split_top(custom, ";")
    for i, part in enumerate(layers, start=1):
        if not part:
            raise _fail(str(text), f"layer {i} of {len(layers)} is empty (';' twice in a row, or "
                        "at an end)")
        m = re.fullmatch(r"(\d+)x\((.*)\)", part)
        reps, body = (_number(m.group(1), str(text)), m.group(2)) if m else (1, part)
        if reps > min(n_layers, LIMITS["layers"]):
            raise _fail(str(text), f"{_echo(part)} repeats a layer {reps} times but the model "
                        f"has {n_layers} layers (limit {LIMITS['layers']})")
        rows.extend([_layer(body, n_heads, str(text))] * reps)
    if len(rows) == 1:
        rows = rows * n_layers
    if len(rows) != n_layers:
        raise _fail(str(text), f"it spells {len(rows)} layers but the model has {n_layers}")
    return tuple(tuple(row) for row in rows)
