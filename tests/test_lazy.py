"""`lazy_getattr`: the packages' shared PEP 562 ``__getattr__``."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest

import expressivity
import expressivity.analysis
import expressivity.sweeps
from expressivity.automata.dfa import DFA
from expressivity.lazy import lazy_getattr


@pytest.mark.parametrize("package", [expressivity, expressivity.analysis, expressivity.sweeps])
def test_every_lazy_name_resolves_to_its_home(package: ModuleType) -> None:
    homes, prefix = vars(package)["_HOMES"], vars(package)["__name__"]
    assert sorted(homes) == sorted(set(vars(package)["__all__"]) - {"__version__"})
    for name, home in homes.items():
        value = getattr(package, name)  # imports the home on first use
        assert value is getattr(sys.modules[f"{prefix}.{home}"], name)
    with pytest.raises(AttributeError, match=r"module '.*' has no attribute 'no_such_name'"):
        _ = package.no_such_name


def test_the_cache_keeps_a_value_and_nothing_else() -> None:
    cache: dict[str, object] = {}
    get = lazy_getattr("expressivity.automata", {"DFA": "dfa"}, cache=cache)
    assert get("DFA") is DFA and cache == {"DFA": DFA}
    assert lazy_getattr("expressivity.automata", {"DFA": "dfa"})("DFA") is DFA
    with pytest.raises(AttributeError, match=r"'expressivity\.automata' has no attribute 'NFA'"):
        get("NFA")
    assert cache == {"DFA": DFA}
