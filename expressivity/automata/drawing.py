"""Pictures of DFAs: a networkx graph, Graphviz DOT text, and rendering with `dot` if present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from expressivity.errors import ExpressivityError

if TYPE_CHECKING:
    import networkx as nx

    from expressivity.automata.dfa import DFA


def sink_states(dfa: DFA) -> list[int]:
    """Rejecting states whose every transition loops back to themselves."""
    loops = (dfa.transitions == np.arange(dfa.n_states)[:, None]).all(axis=1)
    return np.flatnonzero(loops & ~dfa.accepting).tolist()


def _edges(dfa: DFA) -> dict[tuple[int, int], list[str]]:
    edges: dict[tuple[int, int], list[str]] = {}
    for q, row in enumerate(dfa.transitions.tolist()):
        for a, r in enumerate(row):
            edges.setdefault((q, r), []).append(dfa.alphabet.symbols[a])
    return edges


def to_networkx(dfa: DFA) -> nx.DiGraph:
    """A `networkx.DiGraph`: nodes carry ``accepting``/``initial``; an edge ``q → r`` carries
    ``symbols`` (the tuple of symbols leading from q to r) and a printable ``label``."""
    import networkx as nx

    graph = nx.DiGraph(alphabet=dfa.alphabet.symbols, initial=dfa.initial)
    for q in range(dfa.n_states):
        graph.add_node(q, accepting=bool(dfa.accepting[q]), initial=q == dfa.initial)
    for (q, r), symbols in _edges(dfa).items():
        graph.add_edge(q, r, symbols=tuple(symbols), label=",".join(symbols))
    return graph


def to_dot(dfa: DFA, *, hide_sink: bool = False, name: str = "DFA") -> str:
    """Graphviz DOT text: double circles accept, an arrow marks the initial state.

    ``hide_sink`` leaves out rejecting self-looping states (the automaton stays complete;
    the missing arrows all lead to the sink).
    """
    hidden = set(sink_states(dfa)) if hide_sink else set()
    lines = [
        f'digraph "{name}" {{',
        "  rankdir=LR;",
        '  node [shape=circle, fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
        '  __start [shape=point, label=""];',
    ]
    for q in range(dfa.n_states):
        if q not in hidden:
            shape = "doublecircle" if dfa.accepting[q] else "circle"
            lines.append(f'  {q} [shape={shape}, label="{q}"];')
    lines.append(f"  __start -> {dfa.initial};")
    for (q, r), symbols in _edges(dfa).items():
        if q not in hidden and r not in hidden:
            lines.append(f'  {q} -> {r} [label="{",".join(symbols)}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dfa: DFA, path: str | Path, *, fmt: str | None = None, hide_sink: bool = False) -> Path:
    """Draw the DFA into ``path`` with Graphviz (format from the suffix, e.g. ``.png``, ``.svg``).

    Raises `ExpressivityError` when the Graphviz ``dot`` program is not installed.
    """
    exe = shutil.which("dot")
    if exe is None:
        raise ExpressivityError(
            "Graphviz 'dot' is not installed, so no picture can be rendered; install graphviz "
            "(e.g. apt-get install graphviz) or write DOT text with to_dot / --dot"
        )
    out = Path(path)
    kind = fmt or out.suffix.lstrip(".") or "png"
    result = subprocess.run(
        [exe, f"-T{kind}", "-o", str(out)],
        input=to_dot(dfa, hide_sink=hide_sink),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ExpressivityError(
            f"Graphviz failed to render {out} as {kind}: {result.stderr.strip()}"
        )
    return out


def transition_table(dfa: DFA) -> str:
    """The state count and the transition table as text, one row per state ('->' marks the
    initial state, '*' accepting ones; sinks are noted)."""
    accepting = [int(q) for q in dfa.accepting.nonzero()[0]]
    sinks = set(sink_states(dfa))
    head = (
        f"{dfa.n_states} state{'s' if dfa.n_states != 1 else ''} (minimal, complete); "
        f"initial {dfa.initial}; accepting {{{', '.join(map(str, accepting))}}}"
    )
    width = max(len(str(dfa.n_states - 1)), *(len(a) for a in dfa.alphabet.symbols))
    symbols = " ".join(f"{a:>{width}}" for a in dfa.alphabet.symbols)
    lines = [head, f"{'state':<{width + 5}}{symbols}"]
    for q, row in enumerate(dfa.transitions.tolist()):
        mark = ("->" if q == dfa.initial else "  ") + ("*" if dfa.accepting[q] else " ")
        cells = " ".join(f"{r:>{width}}" for r in row)
        lines.append(f"{mark}{q:>{width}}  {cells}" + ("   (sink)" if q in sinks else ""))
    return "\n".join(lines)
