"""Names a package imports on first use (PEP 562): the one module ``__getattr__`` they share."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, homes: Mapping[str, str], *, cache: MutableMapping[str, Any] | None = None
) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``name`` comes from ``package.homes[name]``.

    The submodule is imported on the first use of one of its names (so importing the package
    stays cheap); any other name is an `AttributeError`, as for an ordinary module. With
    ``cache`` (the package's ``globals()``) the value is stored there, and later lookups no
    longer call ``__getattr__``. Use: ``__getattr__ = lazy_getattr(__name__, _HOMES)``.
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{homes[name]}"), name)
        if cache is not None:
            cache[name] = value
        return value

    return __getattr__
