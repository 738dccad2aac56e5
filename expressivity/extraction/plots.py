"""Figures of what a model learned: DFAs side by side, distance by length, attention, probes.

Each function returns a `matplotlib.figure.Figure` built without pyplot and does no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from expressivity.automata.dfa import DFA
    from expressivity.extraction.extract import Extraction
    from expressivity.extraction.inspect import AttentionMaps, ProbeTable

__all__ = ["plot_attention", "plot_dfa_pair", "plot_distance", "plot_probes"]


def _draw_dfa(ax: Axes, dfa: DFA, title: str) -> None:
    import networkx as nx

    from expressivity.automata.drawing import to_networkx

    graph = to_networkx(dfa)
    pos = nx.circular_layout(graph) if dfa.n_states > 1 else {0: np.zeros(2)}
    colors = ["#9ecae1" if graph.nodes[q]["accepting"] else "#f0f0f0" for q in graph.nodes]
    widths = [3.0 if graph.nodes[q]["initial"] else 1.0 for q in graph.nodes]
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colors, edgecolors="black",
                           linewidths=widths, node_size=500)
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=9)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, connectionstyle="arc3,rad=0.15",
                           node_size=500)
    labels = {(q, r): d["label"] for q, r, d in graph.edges(data=True) if q != r}
    nx.draw_networkx_edge_labels(graph, pos, edge_labels=labels, ax=ax, font_size=8,
                                 connectionstyle="arc3,rad=0.15")
    loops = [f"{q}↺{d['label']}" for q, r, d in graph.edges(data=True) if q == r]
    ax.set_title(f"{title}: {dfa.n_states} states\n(blue: accepting, thick: initial)",
                 fontsize=9)
    ax.text(0.0, -0.02, "loops: " + "  ".join(loops), transform=ax.transAxes, fontsize=7,
            va="top")
    ax.set_axis_off()
    ax.margins(0.2)


def plot_dfa_pair(extracted: DFA, target: DFA) -> Figure:
    """The extracted DFA beside the target DFA."""
    fig = Figure(figsize=(9, 4), layout="constrained")
    left, right = fig.subplots(1, 2)
    _draw_dfa(left, extracted, "extracted")
    _draw_dfa(right, target, "target")
    return fig


def plot_distance(extraction: Extraction) -> Figure:
    """By length: density of extracted △ target (exact), and the model's agreement with the
    extracted DFA and with the target on fresh words."""
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    dens = np.asarray(extraction.difference_density)
    left.plot(np.arange(len(dens)), dens, marker=".", color="C3")
    left.set_xlabel("length n")
    left.set_ylabel("|L △ target ∩ Σⁿ| / |Σ|ⁿ")
    left.set_title("difference language density (exact)", fontsize=9)
    left.set_ylim(-0.02, 1.02)
    lengths = [a.length for a in extraction.agreement]
    right.plot(lengths, [a.rate for a in extraction.agreement], marker=".",
               label="model = extracted DFA")
    right.plot(lengths, [a.with_target / a.n for a in extraction.agreement], marker=".",
               label="model = target")
    right.set_xlabel("length n")
    right.set_ylabel("agreement on fresh words")
    right.set_ylim(-0.02, 1.02)
    right.legend(fontsize=8)
    right.set_title("is the model this DFA at every length?", fontsize=9)
    return fig


def plot_attention(maps: AttentionMaps) -> Figure:
    """One heatmap per layer (rows) and head (columns): query token → key token weights."""
    n_l, n_h = maps.n_layers, maps.n_heads
    size = 0.9 + 0.18 * len(maps.tokens)
    fig = Figure(figsize=(size * n_h, size * n_l + 0.4), layout="constrained")
    axes = np.atleast_2d(fig.subplots(n_l, n_h, squeeze=False))
    ticks = np.arange(len(maps.tokens))
    for layer in range(n_l):
        for head in range(n_h):
            ax = axes[layer, head]
            ax.imshow(maps.weights[layer, head], cmap="Blues", vmin=0.0, vmax=1.0)
            ax.set_title(f"layer {layer} head {head} [{maps.patterns[layer][head]}]", fontsize=8)
            ax.set_xticks(ticks, maps.tokens, fontsize=6, rotation=90)
            ax.set_yticks(ticks, maps.tokens, fontsize=6)
    fig.supxlabel("key", fontsize=9)
    fig.supylabel("query", fontsize=9)
    return fig


def plot_probes(table: ProbeTable, title: str = "") -> Figure:
    """Held-out probe accuracy, subformula × residual layer (x0 = embeddings)."""
    n_s, n_l = table.accuracy.shape
    fig = Figure(figsize=(1.8 + 0.8 * n_l, 0.8 + 0.35 * n_s), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(table.accuracy, cmap="viridis", vmin=0.5, vmax=1.0, aspect="auto")
    for i in range(n_s):
        for j in range(n_l):
            ax.text(j, i, f"{table.accuracy[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if table.accuracy[i, j] < 0.8 else "black")
    ax.set_xticks(np.arange(n_l), [f"x{j}" for j in range(n_l)])
    ax.set_yticks(np.arange(n_s), table.subformulas, fontsize=8)
    ax.set_title(title or "linear probe accuracy (held-out positions)", fontsize=9)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig
