"""Pictures of the theory: the class-inclusion diagram, DFAs and attention masks (no graphviz).

Each function returns a `matplotlib.figure.Figure` built without pyplot and does no file I/O.
Graphs are laid out with networkx (`multipartite_layout` by level) and drawn with matplotlib
patches, so nothing outside the Python dependencies is needed.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch

from expressivity.analysis.class_membership import DIAGRAM, smallest_classes
from expressivity.automata.dfa import DFA
from expressivity.automata.drawing import sink_states, to_networkx
from expressivity.models.layouts import Atom, Layout, Pattern, parse_layout

__all__ = [
    "PRESET_LAYOUTS",
    "class_diagram_positions",
    "class_inclusion_graph",
    "plot_class_diagram",
    "plot_dfa",
    "plot_layout_masks",
]

#: Layout spellings shown by notebook 02 (every preset family of `models.layouts`).
PRESET_LAYOUTS: tuple[str, ...] = (
    "global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2", "hybrid-4",
    "interleaved-2", "longformer-2-1", "bigbird-2-2-1", "dilated-2-2", "block-4",
)
NOT_REGULAR = "not regular"


def class_inclusion_graph() -> nx.DiGraph:
    """The Hasse diagram of `class_membership.DIAGRAM`: an edge ``A → B`` means A ⊊ B.

    Node attributes: ``column`` (the membership column), ``note`` (what recognizes it) and
    ``level`` (0 for the smallest classes); a separate ``not regular`` node has no edges.
    """
    graph = nx.DiGraph()
    for node, (column, note, parents) in DIAGRAM.items():
        graph.add_node(node, column=column, note=note)
        for parent in parents:
            graph.add_edge(node, parent)
    for node in nx.topological_sort(graph):
        below = [graph.nodes[c]["level"] for c in graph.predecessors(node)]
        graph.nodes[node]["level"] = 1 + max(below) if below else 0
    top = max(graph.nodes[n]["level"] for n in DIAGRAM)
    graph.add_node(NOT_REGULAR, column="", note="e.g. counting (aⁿbⁿ)", level=top)
    return graph


def class_diagram_positions(graph: nx.DiGraph) -> dict[str, np.ndarray]:
    """Where `plot_class_diagram` draws each node of ``graph`` (`class_inclusion_graph`): one
    row per level, the nodes of a row in the graph's own order, ``not regular`` at the right.

    The levels are passed to `networkx.multipartite_layout` as ordered lists: given the
    attribute name, it groups the nodes into sets, whose order follows the string hash, so
    the drawing changed from one process to the next (``PYTHONHASHSEED``).
    """
    levels: dict[int, list[str]] = {}
    for node, level in graph.nodes(data="level"):
        levels.setdefault(level, []).append(node)
    pos = nx.multipartite_layout(graph, subset_key=levels, align="horizontal", scale=1.0)
    pos[NOT_REGULAR] = np.array([1.0, pos["regular"][1]])
    return pos


def plot_class_diagram(classes: pd.DataFrame) -> Figure:
    """The inclusion diagram with each language of ``classes`` (`class_membership.language_classes`)
    written under the smallest classes that contain it."""
    graph = class_inclusion_graph()
    members: dict[str, list[str]] = {node: [] for node in graph}
    for row in classes.to_dict("records"):
        name = row["language"] + (f" over {{{row['alphabet']}}}" if row["alphabet"] else "")
        places = smallest_classes(row) or ([NOT_REGULAR] if row["regular"] is False else [])
        for node in places:
            members[node].append(name)
    pos = class_diagram_positions(graph)
    lines = {n: textwrap.wrap(", ".join(members[n]), 34) for n in graph}
    box, line, gap = 0.075, 0.048, 0.1  # data units: half box height, one name line, box → names
    fig = Figure(figsize=(9.0, 7.5), layout="constrained")
    ax = fig.add_subplot()
    for child, parent in graph.edges:
        (x0, y0), (x1, y1) = pos[child], pos[parent]
        bottom = y1 - (gap + line * len(lines[parent]) + 0.02 if lines[parent] else box)
        ax.add_patch(FancyArrowPatch(
            (x0, y0 + box), (x1, bottom), arrowstyle="-|>", mutation_scale=14,
            shrinkA=0, shrinkB=0, color="#555555", linewidth=1.2,
        ))
    for node, data in graph.nodes(data=True):
        x, y = pos[node]
        ax.text(x, y, f"{node}\n{data['note']}", ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "#e8f0fe",
                      "edgecolor": "#4a6fa5"})
        if lines[node]:
            ax.text(x, y - gap + 0.01, "\n".join(lines[node]), ha="center", va="top",
                    fontsize=7.5, style="italic", color="#333333", linespacing=1.3)
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(min(p[1] for p in pos.values()) - 0.45, max(p[1] for p in pos.values()) + 0.2)
    ax.set_axis_off()
    ax.set_title("class inclusions (arrow: ⊊) and where each catalogue language first appears",
                 fontsize=10)
    return fig


def _loop(ax: Axes, x: float, y: float, r: float, label: str) -> None:
    ax.add_patch(FancyArrowPatch(
        (x - 0.5 * r, y + 0.85 * r), (x + 0.5 * r, y + 0.85 * r),
        connectionstyle="arc3,rad=-3.0", arrowstyle="-|>", mutation_scale=10, color="#333333",
    ))
    ax.text(x, y + 2.45 * r, label, ha="center", va="bottom", fontsize=8)


def plot_dfa(dfa: DFA, *, title: str = "", hide_sink: bool = True) -> Figure:
    """A DFA drawn left to right by breadth-first depth: double circles accept, an arrow marks
    the initial state; ``hide_sink`` leaves out a rejecting self-looping sink state."""
    graph = to_networkx(dfa)
    hidden = set(sink_states(dfa)) if hide_sink and dfa.n_states > 1 else set()
    graph.remove_nodes_from(hidden - {dfa.initial})
    depth = nx.single_source_shortest_path_length(graph, dfa.initial)
    for node in graph:
        graph.nodes[node]["layer"] = depth.get(node, max(depth.values()) + 1)
    pos = nx.multipartite_layout(graph, subset_key="layer", align="vertical", scale=1.0)
    layers = 1 + max(graph.nodes[n]["layer"] for n in graph)
    spread = max(sum(1 for n in graph if graph.nodes[n]["layer"] == k) for k in range(layers))
    # ``scale`` maps the widest extent onto [-1, 1]; stretch so circles never overlap
    width, height = max(2.2 * layers, 3.0), max(1.8 * spread, 2.4)
    pos = {n: np.array([p[0] * width / 2, p[1] * height / 2]) for n, p in pos.items()}
    r = 0.32
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    xlim = (min(xs) - 3.2 * r, max(xs) + 1.6 * r)
    ylim = (min(ys) - 1.8 * r, max(ys) + 3.4 * r)
    size = (0.8 * (xlim[1] - xlim[0]) + 0.3, 0.8 * (ylim[1] - ylim[0]) + 0.6)
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    for q, target, data in graph.edges(data=True):
        (x, y), label = pos[q], data["label"]
        if q == target:
            _loop(ax, x, y, r, label)
            continue
        (u, v) = pos[target]
        layer_gap = abs(graph.nodes[q]["layer"] - graph.nodes[target]["layer"])
        rad = 0.25 if graph.has_edge(target, q) or layer_gap != 1 else 0.0
        ax.add_patch(FancyArrowPatch(
            (x, y), (u, v), connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
            mutation_scale=11, shrinkA=24, shrinkB=24, color="#333333",
        ))
        mx, my = (x + u) / 2 + 0.5 * rad * (v - y), (y + v) / 2 - 0.5 * rad * (u - x)
        ax.text(mx, my, label, ha="center", va="center", fontsize=8,
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"})
    for q in graph:
        x, y = pos[q]
        ax.add_patch(Circle((x, y), r, facecolor="#f5f5f5", edgecolor="#222222"))
        if graph.nodes[q]["accepting"]:
            ax.add_patch(Circle((x, y), 0.8 * r, facecolor="none", edgecolor="#222222"))
        ax.text(x, y, str(q), ha="center", va="center", fontsize=9)
    x0, y0 = pos[dfa.initial]
    ax.add_patch(FancyArrowPatch((x0 - 3 * r, y0), (x0 - r, y0), arrowstyle="-|>",
                                 mutation_scale=11, color="#333333"))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_axis_off()
    note = f"; rejecting sink {sorted(hidden)[0]} hidden" if hidden - {dfa.initial} else ""
    ax.set_title(f"{title or 'DFA'} over {{{','.join(dfa.alphabet.symbols)}}}{note}", fontsize=9)
    return fig


def _pattern_name(pattern: Pattern) -> str:
    return " + ".join(a.label for a in pattern.atoms)


def _span(values: Sequence[int]) -> str:
    v = sorted(values)
    return f"{v[0]}" if len(v) == 1 else f"{v[0]}–{v[-1]}" if v[-1] - v[0] + 1 == len(v) else (
        ",".join(map(str, v)))


def plot_layout_masks(
    layout: str | Layout,
    *,
    length: int = 12,
    n_layers: int = 5,
    n_heads: int = 8,
    name: str = "",
) -> Figure:
    """One panel per distinct head pattern of a layout: its (T, T) mask over
    ``[BOS, w1..wN, EOS]`` with T = ``length`` (dark = may attend; strict; sink rule applied).

    A parsed `Layout` keeps its own size (``n_layers``/``n_heads`` are for spellings);
    ``name`` titles the figure (default: the spelling, or the canonical form).
    """
    spec = parse_layout(layout, n_layers, n_heads) if isinstance(layout, str) else layout
    # heads whose patterns differ only in the seed of their random keys share one panel
    shown: dict[tuple[Atom, ...], Pattern] = {}
    uses: dict[tuple[Atom, ...], dict[int, list[int]]] = {}
    for i in range(spec.n_layers):
        for pattern, heads in spec.groups(i):
            shown.setdefault(pattern.atoms, pattern)
            uses.setdefault(pattern.atoms, {}).setdefault(i, []).extend(heads)
    random_keys = any(a.reads().seeded for atoms in uses for a in atoms)
    # a square panel 2.9 in wide, its rotated tick labels, key label, 2-3 title lines and the
    # figure title: a fixed 3.4 in clipped the key label (issue 29)
    width = max(3.6, 0.4 + 2.9 * len(uses))  # one panel: room for its three-line title
    fig = Figure(figsize=(width, 4.0 + 0.15 * random_keys), layout="constrained")
    axes = fig.subplots(1, len(uses), squeeze=False)[0]
    ticks = ["BOS", *map(str, range(1, length - 1)), "EOS"]
    for ax, (atoms, where) in zip(axes, uses.items(), strict=True):
        pattern = shown[atoms]
        ax.imshow(pattern.mask(length).numpy(), cmap="Greys", vmin=0, vmax=1,
                  interpolation="nearest")
        head_sets = {tuple(sorted(h)) for h in where.values()}
        head_text = f"heads {_span(head_sets.pop())}" if len(head_sets) == 1 else "some heads"
        random = any(a.reads().seeded for a in pattern.atoms)
        note = "\n(each head draws its own random keys)" if random else ""
        ax.set_title(f"{_pattern_name(pattern)}\nlayers {_span(list(where))}, {head_text}{note}",
                     fontsize=8)
        ax.set_xticks(range(length), ticks, fontsize=6, rotation=90)
        ax.set_yticks(range(length), ticks, fontsize=6)
        ax.set_xlabel("key m", fontsize=7)
    axes[0].set_ylabel("query n", fontsize=7)
    spelled = layout if isinstance(layout, str) else spec.canonical()
    label = f"{name} = {spelled}" if name and name != spelled else spelled
    fig.suptitle(f"layout {label} ({spec.n_layers} layers × {spec.n_heads} heads)", fontsize=9)
    return fig
