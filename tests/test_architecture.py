"""The import graph of `expressivity/`: no cycles (file and package level) and a layer order.

The graph is built from the source with `ast`, not by importing: every ``import`` and
``from ... import`` counts, wherever it stands — at the top or inside a function (an import
moved into a function to dodge a cycle is still a dependency, and still a cycle).

Imports under ``if TYPE_CHECKING:`` count for the layer order and for cycles between packages (a
type named in an annotation is knowledge of the other package: a lower layer must not know an
upper layer's types either). They do not count for cycles between two files of one package:
they are never executed, and a module that a class calls at run time may still name that class
in its annotations (`logic.printer` prints the `Formula` whose ``__str__`` calls it).

``from expressivity.models import masks`` is an edge to the submodule ``models.masks``; ``from
expressivity.models import ModelConfig`` is an edge to the package's ``__init__``. The implicit
import of a parent package's ``__init__`` that Python performs before a submodule is not an
edge (it would make every re-exporting ``__init__`` a cycle with its own members).

A *component* is a top-level module (``errors``, ``resolve``...) or subpackage (``logic``,
``automata``...). Components are ordered in `LAYERS`; a component may import only components of
a strictly lower layer (same-layer components do not import each other), and its own files.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "expressivity"

#: Layer of every component: lower layers never import higher ones. The stages up to the data
#: take typed values (a DFA, configs, seeds); the text of a language (catalogue name, formula,
#: regex) is turned into a DFA by `resolve`, above them: only the layers that start from user
#: text (models.construct, training, sweeps, the CLI, `pipeline`) call it.
LAYERS: dict[str, int] = {
    "errors": 0,
    "_version": 0,
    "disk": 0,  # the free space of a folder's disk, for write errors
    "fingerprint": 0,  # the hash of the training-relevant source (reads files, imports nothing)
    "alphabet": 1,
    "config": 1,
    "layout_spec": 1,
    "checkpoint": 1,  # the checkpoint file format (torch tensors and JSON): models and training
    "logic": 2,
    "automata": 3,
    "catalogue": 4,
    "algebra": 5,
    "data": 5,
    "resolve": 6,
    "catalogue_check": 7,
    "models": 7,
    "training": 8,
    "pipeline": 9,
    "sweeps": 10,
    "extraction": 11,
    "analysis": 11,
    "cli": 12,
    "__init__": 13,  # the public API re-exports from everything below
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(module: str, node: ast.Import | ast.ImportFrom, files: dict[str, Path]) -> set[str]:
    """The package modules one import statement depends on."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".")
            if files[module].name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [
            f"{source}.{alias.name}" if f"{source}.{alias.name}" in files else source
            for alias in node.names
        ]
    found = set()
    for name in names:
        while name and name not in files:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph() -> nx.DiGraph:
    """File-level graph: an edge a → b when module a imports module b (anywhere in a)."""
    files = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for inner in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(module, node, files):
                    runs = id(node) not in typing_only
                    if graph.has_edge(module, target):
                        runs = runs or graph.edges[module, target]["runs"]
                    graph.add_edge(module, target, line=node.lineno, runs=runs)
    return graph


def run_time_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """The edges of imports that execute (not only under ``TYPE_CHECKING``)."""
    return graph.edge_subgraph([(a, b) for a, b, runs in graph.edges(data="runs") if runs])


def component(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def package_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """Component-level graph: an edge when any file of one imports any file of the other."""
    packages = nx.DiGraph()
    packages.add_nodes_from(component(m) for m in graph)
    for a, b in graph.edges:
        if component(a) != component(b):
            packages.add_edge(component(a), component(b))
    return packages


def _cycles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return import_graph()


def test_the_graph_sees_function_level_and_type_checking_imports(graph: nx.DiGraph) -> None:
    # resolve.py imports the compiler inside `resolve` and the catalogue's `Language` only for
    # annotations; both are dependencies.
    assert graph.has_edge("expressivity.resolve", "expressivity.automata.compile")
    assert graph.has_edge("expressivity.resolve", "expressivity.catalogue")
    assert not graph.edges["expressivity.logic.printer", "expressivity.logic.syntax"]["runs"]
    assert graph.edges["expressivity.logic.syntax", "expressivity.logic.printer"]["runs"]
    assert graph.has_edge("expressivity.cli", "expressivity._version")
    assert graph.number_of_edges() > 300


def test_no_cycles_between_files(graph: nx.DiGraph) -> None:
    cycles = _cycles(run_time_graph(graph))
    assert not cycles, "\n".join(map(str, cycles))


def test_no_cycles_between_packages(graph: nx.DiGraph) -> None:
    cycles = _cycles(package_graph(graph))
    assert not cycles, "\n".join(map(str, cycles))


def test_every_component_has_a_layer(graph: nx.DiGraph) -> None:
    assert sorted(set(package_graph(graph)) - set(LAYERS)) == []


def test_imports_follow_the_layer_order(graph: nx.DiGraph) -> None:
    wrong = [
        f"{a}:{line} imports {b} ({component(a)} {LAYERS[component(a)]} -> "
        f"{component(b)} {LAYERS[component(b)]})"
        for a, b, line in graph.edges(data="line")
        if component(a) != component(b) and LAYERS[component(a)] <= LAYERS[component(b)]
    ]
    assert not wrong, "\n".join(sorted(wrong))


def test_a_cycle_would_be_found() -> None:
    # The checks above could fail: a two-file cycle and an upward import are caught.
    toy = nx.DiGraph([("expressivity.logic.a", "expressivity.logic.b"),
                      ("expressivity.logic.b", "expressivity.logic.a"),
                      ("expressivity.logic.a", "expressivity.automata.dfa")])
    assert _cycles(toy) == [["expressivity.logic.a", "expressivity.logic.b"]]
    assert _cycles(package_graph(toy)) == []
    logic, automata = component("expressivity.logic.a"), component("expressivity.automata.dfa")
    assert LAYERS[logic] < LAYERS[automata]


if __name__ == "__main__":  # print the package adjacency list: python tests/test_architecture.py
    packages = package_graph(import_graph())
    for name in sorted(packages, key=lambda n: (LAYERS.get(n, 99), n)):
        print(f"{name} ({LAYERS.get(name)}): {', '.join(sorted(packages.successors(name)))}")
