"""Ordered alphabets of named symbols, words over them, and their integer encodings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from expressivity.errors import AlphabetError

Word = tuple[str, ...]

#: Names that the formula and regex grammars reserve; a symbol may not take one of them.
RESERVED = frozenset(
    {"true", "false", "start", "eos", "eps", "P", "O", "Y", "H", "S", "X", "WX", "F", "G", "U"}
)
_SYMBOL_RE = re.compile(r"^[a-z][A-Za-z0-9_]*$|^[0-9]$")


@dataclass(frozen=True)
class Alphabet:
    """A finite, ordered alphabet Σ of symbol names (multi-character names allowed).

    Symbol ``i`` is encoded as the integer ``i``; models reserve further ids for BOS/EOS/padding.
    """

    symbols: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        symbols = tuple(self.symbols)
        object.__setattr__(self, "symbols", symbols)
        if not symbols:
            raise AlphabetError("an alphabet needs at least one symbol")
        for s in symbols:
            if not isinstance(s, str) or not _SYMBOL_RE.match(s) or s in RESERVED:
                raise AlphabetError(
                    f"invalid symbol name {s!r}: use a lower-case identifier such as 'a' or 'b0' "
                    f"(or a single digit), not a reserved word ({', '.join(sorted(RESERVED))})"
                )
        if len(set(symbols)) != len(symbols):
            dup = sorted({s for s in symbols if symbols.count(s) > 1})
            raise AlphabetError(f"duplicate symbols in alphabet: {', '.join(dup)}")
        object.__setattr__(self, "_index", {s: i for i, s in enumerate(symbols)})

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> Alphabet:
        """Build an alphabet from ``"a,b,c"``, ``"a b c"``, ``"abc"`` or an iterable of names."""
        if isinstance(text, str):
            parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
            if len(parts) == 1 and len(parts[0]) > 1 and parts[0].isalpha() and parts[0].islower():
                parts = list(parts[0])
            return cls(tuple(parts))
        return cls(tuple(text))

    def __len__(self) -> int:
        return len(self.symbols)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.symbols)

    def __contains__(self, symbol: object) -> bool:
        return symbol in self._index

    def __str__(self) -> str:
        return "{" + ",".join(self.symbols) + "}"

    @property
    def single_char(self) -> bool:
        """True when every symbol is one character, so words can be written as ``abc``."""
        return all(len(s) == 1 for s in self.symbols)

    def index(self, symbol: str) -> int:
        """The integer code of ``symbol``; an `AlphabetError` names it if it is not in Σ."""
        try:
            return self._index[symbol]
        except KeyError:
            raise AlphabetError(
                f"symbol {symbol!r} is not in the alphabet {self}; "
                "add it to the alphabet or fix the word"
            ) from None

    def check_word(self, word: Sequence[str]) -> Word:
        """Return ``word`` as a tuple after checking every symbol is in Σ."""
        for s in word:
            self.index(s)
        return tuple(word)

    def encode(self, word: Sequence[str]) -> np.ndarray:
        """Encode a word as an int64 array of symbol codes."""
        return np.fromiter((self.index(s) for s in word), dtype=np.int64, count=len(word))

    def decode(self, codes: Iterable[int]) -> Word:
        """Decode integer codes back to a word."""
        n = len(self.symbols)
        out = []
        for c in codes:
            c = int(c)
            if not 0 <= c < n:
                raise AlphabetError(f"code {c} is outside the alphabet {self} (0..{n - 1})")
            out.append(self.symbols[c])
        return tuple(out)

    def parse_word(self, text: str) -> Word:
        """Parse a word written as ``abc`` (single-character alphabets) or ``a1 b0 a1``.

        The empty word is written ``""``, ``ε`` or ``eps``.
        """
        text = text.strip()
        if text in ("", "ε", "eps"):
            return ()
        if re.search(r"[\s,]", text):
            parts = [p for p in re.split(r"[\s,]+", text) if p]
        elif text in self._index:
            parts = [text]
        elif self.single_char:
            parts = list(text)
        else:
            parts = [text]
        return self.check_word(parts)

    def format_word(self, word: Sequence[str]) -> str:
        """Write a word back as text (``abc`` or ``a1 b0``; ``ε`` for the empty word)."""
        if not word:
            return "ε"
        return "".join(word) if self.single_char else " ".join(word)
