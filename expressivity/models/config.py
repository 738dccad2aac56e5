"""`ModelConfig`: the typed, validated, hashable description of a recognizer transformer."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from expressivity.config import from_mapping, to_plain
from expressivity.errors import ConfigError
from expressivity.models.layouts import Layout, parse_layout
from expressivity.models.readout import READOUTS, Readout
from expressivity.models.readout_reach import index_problem, readout_problem
from expressivity.models.scaling import SCALES, AttentionScale
from expressivity.models.ssm.init import DT_FLOOR, DT_RANGE, FAST_DT_RANGE, SLOW_FLOOR
from expressivity.models.ssm.mixers import S4D_OUTPUTS

__all__ = ["PRESETS", "ModelConfig"]

Positional = Literal[
    "none", "sinusoidal", "learned", "rope", "alibi", "periodic-rope", "periodic-sinusoidal"
]
Norm = Literal["layer", "none"]
Activation = Literal["gelu", "relu"]
Kernel = Literal["auto", "dense", "banded", "sparse"]
Scan = Literal["chunked", "parallel", "sequential", "fused"]
S4DOutput = Literal["linear", "gelu-glu"]
DType = Literal["float32", "float64"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "positional": (
        "none",
        "sinusoidal",
        "learned",
        "rope",
        "alibi",
        "periodic-rope",
        "periodic-sinusoidal",
    ),
    "norm": ("layer", "none"),
    "activation": ("gelu", "relu"),
    "kernel": ("auto", "dense", "banded", "sparse"),
    "attention_scale": SCALES,
    "readout": READOUTS,
    "ssm_scan": ("chunked", "parallel", "sequential", "fused"),
    "s4d_output": S4D_OUTPUTS,
    "dtype": ("float32", "float64"),
}


@dataclass(frozen=True)
class ModelConfig:
    """A recognizer transformer (docs/theory.md §1; defaults: the `paper` preset, [LC25, LC26])."""

    n_layers: int = 5  # transformer blocks
    d_model: int = 64  # width of the residual stream
    n_heads: int = 8  # attention heads per layer
    d_head: int | None = None  # width of one head; None means d_model // n_heads
    d_ff: int = 256  # hidden width of the feed-forward sublayer (Linear -> act -> Linear)
    layout: str = "global"  # attention pattern of every head (models.layouts spelling)
    positional: Positional = "none"  # NoPE by default; sinusoidal/learned absolute; rope; alibi
    norm: Norm = "layer"  # "layer": pre-LN blocks + final LN; "none": no normalisation at all
    activation: Activation = "gelu"  # FFN non-linearity
    dropout: float = 0.0  # on embeddings and on each residual branch (not on attention weights)
    bias: bool = True  # biases in Q/K/V/O, FFN and LayerNorm (the classifier always has one)
    max_len: int = 1024  # token positions of the learned absolute embedding table
    lm_head: bool = False  # add a next-token head (Linear(d_model, vocab)) for LM experiments
    strict: bool = True  # strict masking (keys m < n); False adds the diagonal (m <= n)
    mask_seed: int = 0  # seed of random (BigBird) attention patterns
    #: attention kernel: "auto" picks the linear-memory kernels on long inputs (banded for band
    #: heads, gathered keys for random-key and global-token heads: models.gather), "banded"
    #: the banded kernel for band heads at every length, "sparse" both kernels at every length
    kernel: Kernel = "auto"
    #: "auto" uses the linear-memory kernels from this many tokens on (the evaluation of the
    #: quick and standard profiles on lengths 41-500 measures fastest so: benchmarks/sweep.py)
    banded_min_len: int = 256
    init_std: float = 0.02  # std of the normal initialisation (nanoGPT)
    periods: tuple[int, ...] = ()  # periodic-rope / periodic-sinusoidal: the periods m (≤ max_len)
    rope_unrotated: int = 0  # rope / periodic-rope: channels per head left unrotated (partial)
    #: length-aware logits (`models.scaling`, docs/theory.md §9): "none"; "log-n" multiplies
    #: each row's logits by log N (N: the keys the row attends to); "ssmax" by s_h log N with
    #: a learnable s_h per head (Scalable-Softmax)
    attention_scale: AttentionScale = "none"
    #: the positions the classifier reads (`models.readout`): "eos" (position N + 1, the
    #: default), "cls" (position 0, BOS), "last" (position N) or "mean" (positions 0..N+1)
    readout: Readout = "eos"
    #: SSM heads (layout atoms M, MS, SD, SDC, DR; docs/theory.md §14): states per channel
    ssm_state: int = 4
    ssm_expand: int = 1  # inner width of an SSM head group: ssm_expand * d_model channels
    ssm_scan: Scan = "chunked"  # "chunked" (O(T)), "parallel" (log depth), "sequential", "fused"
    #: the range [ssm_dt_min, ssm_dt_max] of the step sizes Δ that Mamba and S4D mixers start
    #: from (log-uniform per channel: Mamba's dt_min, dt_max); a gate is exp(Δ·A), so a small Δ
    #: starts every channel close to gate 1 (a long memory). The delta rule has no Δ.
    ssm_dt_min: float = DT_RANGE[0]
    ssm_dt_max: float = DT_RANGE[1]
    #: the first state of every Mamba and S4D channel starts with |A| times this (1: S4D's
    #: and Mamba's initialisation); 1e-3 makes it a slow state, its gate exp(Δ·A) near 1 for
    #: thousands of letters while Δ, the size of a write, starts where the other states' do
    ssm_slow_scale: float = 1.0
    #: a two-range initialisation: this fraction of every Mamba and S4D mixer's channels (the
    #: last round(fraction · channels)) starts Δ log-uniform in [ssm_fast_dt_min,
    #: ssm_fast_dt_max] instead (fast gates: Theorem 16.4's delays beside its counts,
    #: docs/theory.md §16.5, §19.8); 0, the default, is the one-range initialisation bitwise
    ssm_fast_fraction: float = 0.0
    ssm_fast_dt_min: float = FAST_DT_RANGE[0]
    ssm_fast_dt_max: float = FAST_DT_RANGE[1]
    #: what an S4D mixer (SD, SDC) does with y + D·u before its output: "linear" (a linear
    #: map, the default) or "gelu-glu" (Gu et al.'s S4D layer: GELU, then a position-wise
    #: linear map to twice the width with a bias and a GLU; docs/theory.md §16.6)
    s4d_output: S4DOutput = "linear"
    #: numeric mode of every parameter and activation, recorded with each run ("float32")
    dtype: DType = "float32"

    def __post_init__(self) -> None:
        for name in ("n_layers", "d_model", "n_heads", "d_ff", "max_len", "banded_min_len",
                     "ssm_state", "ssm_expand"):
            _check_int(name, getattr(self, name), minimum=1)
        _check_int("mask_seed", self.mask_seed, minimum=0)
        if self.d_head is None:
            if self.d_model % self.n_heads:
                raise ConfigError(
                    f"d_head: d_model={self.d_model} is not divisible by n_heads={self.n_heads}; "
                    "set d_head explicitly or change n_heads"
                )
            object.__setattr__(self, "d_head", self.d_model // self.n_heads)
        _check_int("d_head", self.d_head, minimum=1)
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise ConfigError(
                    f"{name}: invalid value {getattr(self, name)!r}; choose one of "
                    + ", ".join(choices)
                )
        for name in ("bias", "lm_head", "strict"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}: expected true or false, got {getattr(self, name)!r}")
        if isinstance(self.dropout, bool) or not 0.0 <= float(self.dropout) < 1.0:
            raise ConfigError(f"dropout: {self.dropout!r} must be a number in [0, 1)")
        if isinstance(self.init_std, bool) or not float(self.init_std) > 0.0:
            raise ConfigError(f"init_std: {self.init_std!r} must be a positive number")
        self._check_dt()
        self._check_positions()
        if not isinstance(self.layout, str):
            raise ConfigError(f"layout: expected a string, got {self.layout!r}")
        layout = self.layout_spec()  # raises ConfigError naming the layout field
        why = index_problem(self.layout, layout, self.max_len) or readout_problem(
            layout, self.readout, strict=self.strict)
        if why is not None:
            raise ConfigError(why)

    def _check_dt(self) -> None:
        """DT_FLOOR ≤ ssm_dt_min ≤ ssm_dt_max ≤ 10 and likewise the fast range, all finite
        numbers; SLOW_FLOOR ≤ ssm_slow_scale ≤ 1; 0 ≤ ssm_fast_fraction ≤ 1."""
        for name in ("ssm_dt_min", "ssm_dt_max", "ssm_fast_dt_min", "ssm_fast_dt_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not DT_FLOOR <= float(value) <= 10.0:
                raise ConfigError(f"{name}: {value!r} must be a number from {DT_FLOOR:g} "
                                  "(mambapy's dt_init_floor) to 10")
        for low, high in (("ssm_dt_min", "ssm_dt_max"), ("ssm_fast_dt_min", "ssm_fast_dt_max")):
            if getattr(self, low) > getattr(self, high):
                raise ConfigError(f"{low}: {getattr(self, low)!r} exceeds {high} = "
                                  f"{getattr(self, high)!r}; the initial Δ is drawn from "
                                  "[min, max]")
        fraction = self.ssm_fast_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) \
                or not 0.0 <= float(fraction) <= 1.0:
            raise ConfigError(f"ssm_fast_fraction: {fraction!r} must be a number from 0 (one "
                              "range: every channel's Δ in [ssm_dt_min, ssm_dt_max]) to 1")
        scale = self.ssm_slow_scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
                or not SLOW_FLOOR <= float(scale) <= 1.0:
            raise ConfigError(f"ssm_slow_scale: {scale!r} must be a number from {SLOW_FLOOR:g} "
                              "to 1 (1 keeps S4D's |A| of the first state; smaller is slower)")

    def _check_positions(self) -> None:
        """Periods only for the periodic encodings (each in 2..max_len); an even rotated width."""
        periodic = self.positional.startswith("periodic-")
        if not isinstance(self.periods, tuple):
            raise ConfigError(f"periods: expected a list of integers, got {self.periods!r}")
        if periodic and not self.periods:
            raise ConfigError(
                f"periods: {self.positional} needs at least one period, e.g. periods = [2]"
            )
        if self.periods and not periodic:
            raise ConfigError(
                f"periods: only periodic-rope and periodic-sinusoidal use periods, not "
                f"positional = {self.positional!r}"
            )
        for i, m in enumerate(self.periods):
            _check_int(f"periods[{i}]", m, minimum=2)
            if m > self.max_len:
                raise ConfigError(
                    f"periods[{i}]: the period {m} exceeds max_len={self.max_len}; a period "
                    "longer than every input never repeats (use rope, or raise max_len)"
                )
        rope = self.positional in ("rope", "periodic-rope")
        _check_int("rope_unrotated", self.rope_unrotated, minimum=0)
        if self.rope_unrotated and not rope:
            raise ConfigError(
                f"rope_unrotated: only rope and periodic-rope leave channels unrotated, not "
                f"positional = {self.positional!r}"
            )
        if rope and (
            self.head_width - self.rope_unrotated < 2 or (self.head_width - self.rope_unrotated) % 2
        ):
            raise ConfigError(
                f"d_head: {self.positional} needs an even number (>= 2) of rotated channels, got "
                f"d_head={self.head_width} minus rope_unrotated={self.rope_unrotated}"
            )

    @property
    def head_width(self) -> int:
        """``d_head`` resolved (never None after construction)."""
        assert self.d_head is not None
        return self.d_head

    def layout_spec(self) -> Layout:
        """The parsed `Layout` (n_layers x n_heads patterns) of this config."""
        return parse_layout(self.layout, self.n_layers, self.n_heads, seed=self.mask_seed)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> ModelConfig:
        """``paper`` (5 layers, width 64, 8 heads, [LC25]) or ``cpu`` (3 layers, width 32,
        4 heads), with field overrides."""
        if name not in PRESETS:
            raise ConfigError(f"preset: unknown model preset {name!r}; choose one of "
                              + ", ".join(PRESETS))
        return cls.from_dict({**PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "") -> ModelConfig:
        """Validated construction from a plain mapping (JSON/TOML); unknown keys are errors."""
        return from_mapping(cls, data, where)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that round-trips through `from_dict`."""
        return to_plain(self)  # type: ignore[no-any-return, unused-ignore]

    def replace(self, **changes: Any) -> ModelConfig:
        """A validated copy with some fields changed; a default ``d_head`` follows the new
        ``d_model // n_heads`` unless ``d_head`` is given."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ConfigError(f"unknown ModelConfig field(s): {', '.join(sorted(unknown))}")
        if "d_head" not in changes and self.head_width == self.d_model // self.n_heads:
            changes["d_head"] = None
        return replace(self, **changes)


def _check_int(name: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name}: expected an integer >= {minimum}, got {value!r}")


#: Named model sizes; `ModelConfig.preset` applies overrides on top.
PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"n_layers": 5, "d_model": 64, "n_heads": 8, "d_ff": 256},
    "cpu": {"n_layers": 3, "d_model": 32, "n_heads": 4, "d_ff": 64},
}
