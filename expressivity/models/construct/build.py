"""Compile LTL[P, Y^{≤k}] formulas into `Recognizer` transformers with exact hand-set weights.

``construct(formula, alphabet)`` returns a `ConstructedModel` (`models.construct.constructed`):
a plain `Recognizer` (NoPE, strict masking, no normalisation, ReLU FFNs, one-dimensional heads,
classifier at EOS) whose weights follow the plan of `models.construct.plan` [LC25, Lemma B.12;
LC26], plus a report: layers, heads, width, the residual coordinate of every materialized
subformula and the subformula each head computes. Because the model *is* a `Recognizer`,
trained-model code (`training.evaluate.predict`, checkpoints) runs on it unchanged.

Layouts: ``None`` uses exactly the heads the formula needs (global for P/H, 1-local for Y and
Y^k, k-local for Y^{≤k}); ``"global"``, ``"local-k"`` and ``"hybrid-k"`` restrict the heads to
that attention type, and a formula outside the matching fragment (LTL[P], LTL[Y^{≤k}],
LTL[P,Y^{≤k}]) raises `UnsupportedFragmentError` naming what it needs. With 1-local heads only,
Y^{≤k}ψ is first rewritten as Yψ ∨ … ∨ Y^kψ. ``"dilated-k-d"`` and ``"block-b"`` rewrite the
formula into what their heads read, and ``"global+periodic"`` / ``"hybrid-k+periodic"`` (the
default for formulas with ``mod(m,r)``) add periodic RoPE for the MOD predicates; see
`models.construct.sparse` and `models.construct.periodic`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import torch

from expressivity.alphabet import Alphabet
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.logic.syntax import Formula
from expressivity.models.config import ModelConfig, S4DOutput
from expressivity.models.construct.constructed import DEFAULT_SHARPNESS, ConstructedModel, HeadRole
from expressivity.models.construct.diagonal import build_diagonal_model
from expressivity.models.construct.hybrid import build_hybrid_model
from expressivity.models.construct.laid import lay_model, moved_label, pure_mixer, selective_mixer
from expressivity.models.construct.layout import layout_spelling
from expressivity.models.construct.mixer import MixerModel, build_mixer_model
from expressivity.models.construct.mixer_plan import (
    MixerPlan,
    mixer_layout,
    parity_plan,
    plan_formula,
)
from expressivity.models.construct.periodic import set_period_head
from expressivity.models.construct.plan import Affine, HeadOp, Plan, plan
from expressivity.models.construct.sparse import prepare
from expressivity.models.scaling import SSMAX_INIT, AttentionScale
from expressivity.models.ssm.heads import SELECTIVE
from expressivity.models.tokens import bos_id, eos_id
from expressivity.models.transformer import Recognizer

if TYPE_CHECKING:
    from expressivity.automata.dfa import DFA
    from expressivity.resolve import Source

__all__ = ["DEFAULT_SHARPNESS", "construct", "construct_language", "lay_on"]



def construct(
    formula: Formula | str,
    alphabet: Alphabet | str,
    layout: str | None = None,
    *,
    sharpness: float = DEFAULT_SHARPNESS,
    attention_scale: AttentionScale = "none",
    s4d_output: S4DOutput = "linear",
) -> ConstructedModel:
    """A `Recognizer` with hand-set weights that recognizes L(``formula``) over ``alphabet``.

    ``formula`` must lie in LTL[P, Y^{≤k}] (past operators P, H, Y, Y^k, Y<=k, the atoms
    ``start`` and ``eos``, any connectives); ``layout`` restricts the attention type (see the
    module docstring). ``sharpness`` is the attention score λ of a satisfying key: a head
    over at most e^λ / 2θ keys (θ: the threshold of its argument's form, 1 for a literal) is
    exact in real arithmetic; `extraction.agreement.precision_report` measures it in practice.
    ``attention_scale`` builds the same weights into a length-aware model (`models.scaling`;
    SSMax heads with s = 1): a satisfying key then scores λ log N among N keys, which only
    sharpens a head over N ≥ 3 keys (docs/theory.md §9); the checker runs it as it is.
    ``s4d_output`` is the output map of S4D mixers (layouts ``s4d``, ``SD``, ``SDC``):
    "linear", or S4D's "gelu-glu" (Corollary 16.6); other layouts ignore it.
    """
    from expressivity.logic.parser import parse

    sigma = alphabet if isinstance(alphabet, Alphabet) else Alphabet.parse(alphabet)
    phi = parse(formula, sigma) if isinstance(formula, str) else formula
    if not sharpness > 0:
        raise ConfigError(f"sharpness: expected a positive number, got {sharpness!r}")
    hybrid = _hybrid(layout)
    if hybrid is not None:  # Theorem 16.1's M plan level by level on the hybrid's rows (§16.4)
        built = build_hybrid_model(plan_formula(phi, sigma, signed=False), hybrid,
                                   sharpness=sharpness, attention_scale=attention_scale)
        return _constructed(built, phi, sigma, sharpness)
    ssm = mixer_layout(layout)
    if ssm is not None:
        return _mixer_model(plan_formula(phi, sigma, signed=ssm[0] == "MS",
                                         selective=ssm[0] in SELECTIVE), ssm, phi, s4d_output)
    prepared = prepare(phi, sigma, layout)
    p = plan(prepared.formula, sigma, prepared.patterns, prepared.start_pattern)
    spelling, n_heads, head_index = layout_spelling(p, prepared.patterns)
    n_units = [len({u.pre for u in p.units if u.layer == n}) for n in range(1, p.n_layers + 1)]
    periods = prepared.periods
    config = ModelConfig(
        n_layers=p.n_layers, d_model=len(p.coords), n_heads=n_heads, d_head=2 * len(periods) + 1,
        d_ff=max([1, *n_units]), layout=spelling, norm="none", activation="relu", dropout=0.0,
        bias=True, strict=True, positional="periodic-rope" if periods else "none",
        periods=periods, rope_unrotated=1 if periods else 0, attention_scale=attention_scale,
    )
    model = Recognizer(config, len(sigma))
    _set_weights(model, p, head_index, sharpness, periods)
    model.eval()
    heads = tuple(sorted(
        HeadRole(op.layer - 1, head_index[op.layer - 1][i], op.pattern, op.label)
        for i, op in _numbered(p)
    ))
    return ConstructedModel(model, phi, sigma, float(sharpness), p.coords, p.written, heads,
                            _affine_text(p.readout))


def construct_language(
    text: str,
    alphabet: Alphabet | str | None = None,
    layout: str | None = None,
    *,
    sharpness: float = DEFAULT_SHARPNESS,
    at: str | None = None,
    logic: str | None = None,
    attention_scale: AttentionScale = "none",
    s4d_output: S4DOutput = "linear",
) -> tuple[ConstructedModel, Source]:
    """Resolve ``text`` (catalogue name, formula or regex) and construct its recognizer.

    A language without a formula (regex, explicit DFA) gets one from the algebra layer's
    synthesis when it is R-trivial (LTL[P]) or definite (LTL[Y]); otherwise
    `UnsupportedFragmentError` says why. Returns the model and the resolved `Source` (with
    the reference DFA).
    """
    from expressivity.resolve import resolve

    source = resolve(text, alphabet, at=at, logic=logic)
    hybrid = _hybrid(layout)
    if hybrid is not None:  # the M recognizer's formula (synthesized, or the refusal) on its rows
        built, source = construct_language(text, alphabet, "M", at=at, logic=logic)
        assert built.formula is not None  # M builds no parity plan
        return construct(built.formula, source.alphabet, hybrid, sharpness=sharpness,
                         attention_scale=attention_scale), source
    ssm = mixer_layout(layout)
    if ssm is not None and source.formula is None:
        parities = parity_plan(source.dfa)
        if parities is not None and ssm[0] == "MS":
            return _mixer_model(parities, ssm, None), source
        if parities is not None and len(parities.nodes):
            raise UnsupportedFragmentError(
                f"construct: {source.name} counts letters mod 2, which needs a sign-flipping "
                "mixer: M's gates in (0, 1] recognize only star-free languages (docs/theory.md "
                "§14, Theorem 14.3); use --layout mamba-signed (MS)")
    formula = source.formula if source.formula is not None else _synthesize(source.dfa)
    return construct(formula, source.alphabet, layout, sharpness=sharpness,
                     attention_scale=attention_scale, s4d_output=s4d_output), source


def _hybrid(layout: str | None) -> str | None:
    """``layout`` when it is a hybrid preset (``samba-k``, ``jamba-n``), else None."""
    if layout is None or selective_mixer(layout) is None or pure_mixer(layout) is not None:
        return None
    return layout


def lay_on(built: ConstructedModel, layout: str, n_layers: int | None = None
           ) -> ConstructedModel:
    """``built`` (a recognizer whose every layer is one selective mixer) laid on the first
    mixer rows of a ``layout`` model of ``n_layers`` layers (default: the fewest that fit),
    every other row silent (Corollary 16.3, `models.construct.laid.lay_model`), with its report
    renumbered to the new rows."""
    model, rows = lay_model(built.model, layout, n_layers)
    heads = tuple(replace(h, layer=rows[h.layer]) for h in built.heads)
    written = tuple(moved_label(w, rows) for w in built.written)
    return replace(built, model=model, heads=heads, written=written)


def _mixer_model(p: MixerPlan, ssm: tuple[str, bool], phi: Formula | None,
                 s4d_output: S4DOutput = "linear") -> ConstructedModel:
    """The `ConstructedModel` of an SSM plan (`models.construct.mixer` for M and MS,
    `models.construct.diagonal` for SD and SDC with output map ``s4d_output``; no λ:
    sharpness 0)."""
    if ssm[0] in SELECTIVE:
        built = build_mixer_model(p, ssm[0], l1_heads=ssm[1])
    else:
        built = build_diagonal_model(p, ssm[0], l1_heads=ssm[1], output=s4d_output)
    return _constructed(built, phi, p.alphabet, 0.0)


def _constructed(built: MixerModel, phi: Formula | None, sigma: Alphabet,
                 sharpness: float) -> ConstructedModel:
    """The `ConstructedModel` report of a built SSM or hybrid model."""
    heads = tuple(HeadRole(*role) for role in built.heads)
    accept = next(i for i, c in enumerate(built.coordinates) if c.startswith("accept"))
    return ConstructedModel(built.model, phi, sigma, sharpness, built.coordinates,
                            built.written, heads, f"+1·x[{accept}] -0.5")


def _synthesize(dfa: DFA) -> Formula:
    from expressivity.algebra.synthesis import (
        NotInFragmentError,
        synthesize_past,
        synthesize_yesterday,
    )

    reasons = []
    for make in (synthesize_past, synthesize_yesterday):
        try:
            return make(dfa)
        except NotInFragmentError as err:
            reasons.append(str(err))
    raise UnsupportedFragmentError(
        f"cannot synthesize a formula over {dfa.alphabet}: {'; '.join(reasons)}. Only LTL[P] "
        "and LTL[Y] languages are synthesized; pass an LTL[P,Y] formula to construct it"
    )


def _numbered(p: Plan) -> list[tuple[int, HeadOp]]:
    """Each plan head with its position among the heads of its layer."""
    seen: dict[int, int] = {}
    out = []
    for op in p.heads:
        i = seen.get(op.layer, 0)
        seen[op.layer] = i + 1
        out.append((i, op))
    return out


@torch.no_grad()
def _set_weights(
    model: Recognizer, p: Plan, head_index: list[list[int]], lam: float,
    periods: tuple[int, ...] = (),
) -> None:
    for param in model.parameters():
        param.zero_()
    for block in model.blocks:  # SSMax heads: s = 1, the "log-n" model
        if block.attn.length_scale is not None:
            block.attn.length_scale.fill_(SSMAX_INIT)
    s = len(p.alphabet)
    emb = model.embed.weight
    for c, codes in enumerate(p.embedding):
        for a in codes:
            emb[a, c] = 1.0
    emb[bos_id(s), p.bos] = 1.0
    for c in p.eos_coords:
        emb[eos_id(s), c] = 1.0
    for i, op in _numbered(p):
        attn = model.blocks[op.layer - 1].attn
        h = head_index[op.layer - 1][i]
        assert attn.q.bias is not None and attn.k.bias is not None and attn.v.bias is not None
        if op.period is not None:
            set_period_head(attn, h, op.period, periods, lam, p.bos, op.scratch)
            continue
        ch = (h + 1) * attn.d_head - 1  # the last (with periodic RoPE: unrotated) channel
        attn.q.bias[ch] = lam * attn.d_head**0.5  # score = λ · key
        for lin, form in ((attn.k, op.key), (attn.v, op.value)):
            for c, coef in form.terms:
                lin.weight[ch, c] = coef
            lin.bias[ch] = form.const
        attn.o.weight[op.scratch, ch] = 1.0
    units: dict[tuple[int, Affine], int] = {}
    used = [0] * (p.n_layers + 1)
    for u in p.units:  # identical pre-activations of one layer share a hidden unit
        ffn = model.blocks[u.layer - 1].ffn
        if (u.layer, u.pre) not in units:
            units[u.layer, u.pre] = used[u.layer]
            used[u.layer] += 1
        j = units[u.layer, u.pre]
        for c, coef in u.pre.terms:
            ffn.up.weight[j, c] = coef
        ffn.up.bias[j] = u.pre.const
        ffn.down.weight[u.target, j] += u.coef
    for c, coef in p.readout.terms:
        model.classifier.weight[0, c] = coef
    model.classifier.bias[0] = p.readout.const


def _affine_text(form: Affine) -> str:
    parts = [f"{coef:+g}·x[{c}]" for c, coef in form.terms]
    return " ".join([*parts, f"{form.const:+g}"])
