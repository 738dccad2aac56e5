"""The import graph of `expressivity/`: no cycles (file and package level) and a layer order.

The graph is built from the source with `ast`, not by importing: every ``import`` and
``from ... import`` counts, wherever it stands — at the top or inside a function (an import
moved into a function to dodge a cycle is still a dependency, and still a cycle).

Imports under ``if TYPE_CHECKING:`` count by the same rule, for the layer order and for cycles
between packages and between files: a type named in an annotation is knowledge of the other
module, even if the import never executes. Where a module must read a value of a module above
it, it names what it reads in a `typing.Protocol` of its own (`logic.printer.Node`, which
`Formula.__str__` calls; `algebra.green.CayleyGraphs`, which `TransitionSemigroup.green` is
built from) or the shared value moves to a module of its own (`analysis.report.Report`,
`data.split_config.SplitConfig`).

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
    "interrupts": 0,  # the command line's Ctrl-C handler, which the sweep driver asks
    "fingerprint": 0,  # the hash of the training-relevant source (reads files, imports nothing)
    "machine": 0,  # the processor and kernels a run computed on (imports torch only)
    "alphabet": 1,
    "config": 1,
    "layouts": 3,  # atom kinds (one file each) and layout spellings, pure: masks and theory read it
    "lazy": 0,  # the lazy-export helper of the package __init__ files
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
    "analysis": 12,  # reports over stores; may probe stored models with extraction's decider
    "cli": 13,
    "__init__": 14,  # the public API re-exports from everything below
}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


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


def import_graph(package: Path = PACKAGE) -> nx.DiGraph:
    """File-level graph: an edge a → b when module a imports module b (anywhere in a).

    An edge's ``runs`` is False when every import behind it stands under ``TYPE_CHECKING``.
    """
    files = _modules(package)
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
    assert not graph.edges["expressivity.data.heldout", "expressivity.data.split_config"]["runs"]
    assert graph.edges["expressivity.logic.syntax", "expressivity.logic.printer"]["runs"]
    assert graph.has_edge("expressivity.cli", "expressivity._version")
    assert graph.number_of_edges() > 300


def test_no_cycles_between_files(graph: nx.DiGraph) -> None:
    # every edge counts: module level, inside a function, or under TYPE_CHECKING
    cycles = _cycles(graph)
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


def test_annotation_and_function_imports_close_a_cycle(tmp_path: Path) -> None:
    # A file that names its importer's type only under TYPE_CHECKING, or imports it inside a
    # function, still closes a cycle between the two files.
    package = tmp_path / "expressivity"
    (package / "logic").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "logic" / "__init__.py").write_text("")
    (package / "logic" / "a.py").write_text("from expressivity.logic.b import g\n")
    (package / "logic" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from expressivity.logic.a import A\n"
    )
    (package / "logic" / "c.py").write_text("import expressivity.logic.a\n")
    (package / "logic" / "d.py").write_text(
        "def f():\n    from expressivity.logic import c\n"
    )
    (package / "logic" / "e.py").write_text("from . import d\n")
    toy = import_graph(package)
    assert not toy.edges["expressivity.logic.b", "expressivity.logic.a"]["runs"]
    assert toy.edges["expressivity.logic.a", "expressivity.logic.b"]["runs"]
    assert _cycles(toy) == [["expressivity.logic.a", "expressivity.logic.b"]]
    assert toy.has_edge("expressivity.logic.d", "expressivity.logic.c")
    assert toy.has_edge("expressivity.logic.e", "expressivity.logic.d")
    (package / "logic" / "a.py").write_text("from expressivity.logic import e\n")
    assert _cycles(import_graph(package)) == [
        ["expressivity.logic.a", "expressivity.logic.c", "expressivity.logic.d",
         "expressivity.logic.e"]
    ]


if __name__ == "__main__":  # print the package adjacency list: python tests/test_architecture.py
    packages = package_graph(import_graph())
    for name in sorted(packages, key=lambda n: (LAYERS.get(n, 99), n)):
        print(f"{name} ({LAYERS.get(name)}): {', '.join(sorted(packages.successors(name)))}")


#: Modules whose imports all stand at module level (the house rule: no import inside a
#: function to dodge a cycle; the layer order above shows none is needed here).
TOP_LEVEL_IMPORTS_ONLY = ("analysis/figures.py", "analysis/store_report.py", "data/splits.py",
                          "sweeps/store.py", "sweeps/store_open.py", "sweeps/store_read.py")


def _function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return [
        f"{path.name}:{node.lineno}"
        for func in ast.walk(tree) if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(func) if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def test_these_modules_import_at_module_level_only() -> None:
    found = [hit for name in TOP_LEVEL_IMPORTS_ONLY
             for hit in _function_level_imports(PACKAGE / name)]
    assert not found, found


def test_analysis_reads_training_rules_from_their_public_homes() -> None:
    """`analysis` replays training's rules (the plateau rule: `training.stopping`) and reads its
    values (`training.spec`, `training.profiles`), never the loop's or the state's internals."""
    internals = {"expressivity.training.loop", "expressivity.training.state"}
    found = []
    for path in sorted((PACKAGE / "analysis").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in internals:
                found.append(f"{path.name}:{node.lineno} {node.module}")
    assert not found, found
