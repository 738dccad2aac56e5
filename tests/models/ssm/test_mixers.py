"""The mixers: parallel vs sequential scan, causality, seeded init, mambapy as independent check."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models.ssm import DeltaRule, DiagonalSSM, SelectiveSSM
from expressivity.models.ssm.scan import chunked_scan, parallel_scan, sequential_scan

MIXERS = {
    "selective": lambda: SelectiveSSM(8, 6, d_state=4),
    "signed": lambda: SelectiveSSM(8, 6, d_state=4, signed=True),
    "s4d-real": lambda: DiagonalSSM(8, 6, d_state=4),
    "s4d-complex": lambda: DiagonalSSM(8, 6, d_state=4, complex_=True),
    "s4d-gelu-glu": lambda: DiagonalSSM(8, 6, d_state=4, output="gelu-glu"),
    "delta": lambda: DeltaRule(8, 6, n_heads=2, d_head=4),
}


def _mixer(name: str, seed: int) -> torch.nn.Module:
    m = MIXERS[name]()
    m.reset_parameters(torch.Generator().manual_seed(seed))
    return m.double()


@settings(max_examples=20)
@given(name=st.sampled_from(sorted(MIXERS)), seed=st.integers(0, 999), t=st.integers(0, 24))
def test_parallel_matches_sequential(name: str, seed: int, t: int) -> None:
    m = _mixer(name, seed)
    x = torch.randn(2, t, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    out = m(x)
    assert out.shape == (2, t, 6)
    torch.testing.assert_close(out, m(x, "sequential"), rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(m(x, "parallel"), out, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", sorted(MIXERS))
def test_causal_and_padding_invariant(name: str) -> None:
    m = _mixer(name, 1)
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(1, 12, 8, dtype=torch.float64, generator=gen)
    y = x.clone()
    y[:, 7:] = torch.randn(1, 5, 8, dtype=torch.float64, generator=gen)
    torch.testing.assert_close(m(x)[:, :7], m(y)[:, :7])
    torch.testing.assert_close(m(x[:, :7]), m(x)[:, :7])


@pytest.mark.parametrize("name", sorted(MIXERS))
def test_seeded_initialisation(name: str) -> None:
    a, b, c = _mixer(name, 5), _mixer(name, 5), _mixer(name, 6)
    for (ka, pa), (_, pb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(pa, pb), ka
    assert any(not torch.equal(pa, pc) for pa, pc in
               zip(a.state_dict().values(), c.state_dict().values(), strict=True))


def test_gate_ranges() -> None:
    x = torch.randn(3, 9, 8, generator=torch.Generator().manual_seed(0)) * 5
    for signed, lo in ((False, 0.0), (True, -1.0)):
        m = SelectiveSSM(8, 6, d_state=4, signed=signed)
        m.reset_parameters(torch.Generator().manual_seed(3))
        with torch.no_grad():
            m.dt_proj.bias.fill_(3.0)  # large Δ: gates near the bottom of their range
        u = torch.nn.functional.silu(m.conv1d(m.in_proj(x).chunk(2, -1)[0].transpose(1, 2))
                                     [:, :, :9].transpose(1, 2))
        a = m.gates(u)[0].detach()
        assert bool((a >= lo).all()) and bool((a <= 1).all())
        assert (float(a.min()) < 0) == signed
    s4 = DiagonalSSM(8, 6, d_state=4, complex_=True)
    assert bool((s4.gate().abs() <= 1).all())


def test_unknown_scan_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="scan"):
        DeltaRule(8, 6)(torch.zeros(1, 2, 8), "blocked")


# ---------------------------------------------------------------- mambapy (test-only reference)


def _mambapy() -> tuple[type, type, object]:
    mamba = pytest.importorskip("mambapy.mamba", reason="mambapy (test extra) not installed")
    pscan = pytest.importorskip("mambapy.pscan")
    return mamba.MambaBlock, mamba.MambaConfig, pscan.pscan


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("use_pscan", [True, False])
def test_selective_ssm_matches_mambapy(seed: int, use_pscan: bool) -> None:
    block_cls, config_cls, _ = _mambapy()
    cfg = config_cls(d_model=16, n_layers=1, d_state=8, pscan=use_pscan)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        theirs = block_cls(cfg)
    ours = SelectiveSSM(16, 16, d_state=8)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(2, 33, 16, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        ref = theirs(x)
        for how in ("chunked", "parallel", "sequential"):
            torch.testing.assert_close(ours(x, how), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("t", [1, 2, 5, 16, 37])
def test_scans_match_mambapy_pscan_with_signed_gates(t: int) -> None:
    _, _, pscan = _mambapy()
    gen = torch.Generator().manual_seed(t)
    a = 2 * torch.rand(2, t, 3, 4, generator=gen) - 1
    b = torch.randn(2, t, 3, 4, generator=gen)
    ref = pscan(a, b)  # type: ignore[operator]
    torch.testing.assert_close(parallel_scan(a, b), ref, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(sequential_scan(a, b), ref, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(chunked_scan(a, b), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["selective", "s4d-real", "s4d-complex"])
@pytest.mark.parametrize("dt_range", [(1e-3, 1e-1), (1e-4, 1e-2), (0.5, 0.5)])
def test_the_initial_step_sizes_lie_in_their_range(name: str, dt_range: tuple[float, float]
                                                   ) -> None:
    """Δ = softplus(bias) starts log-uniform in [dt_min, dt_max] (Mamba's dt_min, dt_max), so
    every real gate starts at exp(−Δ·n) for state n: the range sets the initial memory."""
    kw = {"complex_": True} if name == "s4d-complex" else {}
    cls = SelectiveSSM if name == "selective" else DiagonalSSM
    m = cls(8, 6, d_state=4, dt_range=dt_range, **kw)  # type: ignore[operator]
    m.reset_parameters(torch.Generator().manual_seed(1))
    raw = m.dt_proj.bias if name == "selective" else m.log_dt
    delta = torch.nn.functional.softplus(raw.detach().double())
    lo, hi = dt_range
    assert bool((delta >= lo * (1 - 1e-5)).all()) and bool((delta <= hi * (1 + 1e-5)).all())
    if lo < hi:  # log-uniform: both halves of the log range are drawn from
        mid = (lo * hi) ** 0.5
        assert bool((delta < mid).any()) and bool((delta > mid).any())


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["selective", "s4d-real", "s4d-complex"]),
       fraction=st.sampled_from([0.0, 0.125, 0.25, 0.5, 1.0]), seed=st.integers(0, 999))
def test_a_fast_block_changes_only_its_own_step_sizes(name: str, fraction: float, seed: int
                                                      ) -> None:
    """The two-range initialisation (docs/theory.md §16.5): the last round(f·E) channels start
    Δ in the fast range, every other channel and weight as the one-range draw of the seed."""
    from expressivity.models.ssm.init import fast_channels

    kw = {"complex_": True} if name == "s4d-complex" else {}
    cls = SelectiveSSM if name == "selective" else DiagonalSSM
    one = cls(8, 6, d_state=4, dt_range=(1e-4, 1e-2), **kw)  # type: ignore[operator]
    two = cls(8, 6, d_state=4, dt_range=(1e-4, 1e-2), fast_fraction=fraction,  # type: ignore[operator]
              fast_range=(1.0, 10.0), **kw)
    for m in (one, two):
        m.reset_parameters(torch.Generator().manual_seed(seed))
    raw = "dt_proj.bias" if name == "selective" else "log_dt"
    k = fast_channels(16, fraction)
    assert k == round(16 * fraction)
    for (key, p), q in zip(one.state_dict().items(), two.state_dict().values(), strict=True):
        if key != raw:
            assert torch.equal(p, q), key
            continue
        assert torch.equal(p[:16 - k], q[:16 - k])  # the slow block: bitwise the one-range draw
        fast = torch.nn.functional.softplus(q[16 - k:].double())
        assert bool((fast >= 1.0 * (1 - 1e-5)).all()) and bool((fast <= 10.0 * (1 + 1e-5)).all())
        slow = torch.nn.functional.softplus(p.double())
        assert bool((slow <= 1e-2 * (1 + 1e-5)).all())


@pytest.mark.parametrize(("dt_range", "fraction", "counts", "middle", "delays"), [
    ((1e-4, 1e-2), 0.0, 0.57, 0.0, 0.0),     # the table's draw
    ((1e-4, 10.0), 0.0, 0.23, 0.32, 0.25),   # the fast-gate pilot's
    ((1e-4, 1e-2), 0.25, 0.43, 0.0, 0.25),   # two ranges, f = 1/4
    ((1e-4, 1e-2), 0.5, 0.29, 0.0, 0.5),     # two ranges, f = 1/2
])
def test_the_initial_half_lives_are_remark_19_8_s(dt_range: tuple[float, float], fraction: float,
                                                  counts: float, middle: float, delays: float
                                                  ) -> None:
    """docs/theory.md Remark 19.8 on a draw of 40,000 S4D channels: the share whose slowest
    state starts with a half-life above 500 letters (counts), of 1 to 40 letters (the middle),
    and with a delay state (gate ≤ 0.1 at |A_4| = 4)."""
    import math

    m = DiagonalSSM(1, 1, d_state=4, expand=40_000, dt_range=dt_range, fast_fraction=fraction)
    m.reset_parameters(torch.Generator().manual_seed(0))
    delta = torch.nn.functional.softplus(m.log_dt.detach().double())
    half_life = math.log(2) / delta  # of the slowest state, |A_1| = 1
    gates = m.gate().detach().double()
    share = {
        "counts": float((half_life > 500).double().mean()),
        "middle": float(((half_life >= 1) & (half_life <= 40)).double().mean()),
        "delays": float((gates[:, 3] <= 0.1).double().mean()),
    }
    for name, expected in (("counts", counts), ("middle", middle), ("delays", delays)):
        assert abs(share[name] - expected) < 0.015, (name, share[name])


@settings(max_examples=15)
@given(seed=st.integers(0, 999), t=st.integers(1, 16), complex_=st.booleans())
def test_s4d_s_own_output_is_gelu_then_glu_of_the_linear_mixer_s_sum(seed: int, t: int,
                                                                      complex_: bool) -> None:
    """``output = "gelu-glu"``: GLU(W GELU(y + D u) + b), y the recurrence written out as a
    loop over positions (Gu et al.'s S4D layer), against the module in float64."""
    m = DiagonalSSM(5, 3, d_state=2, complex_=complex_, output="gelu-glu")
    m.reset_parameters(torch.Generator().manual_seed(seed))
    m = m.double()
    with torch.no_grad():  # a bias that matters, and gates away from 1/2
        m.out_proj.bias.copy_(torch.randn(6, generator=torch.Generator().manual_seed(seed),
                                          dtype=torch.float64))
    x = torch.randn(2, t, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        u = m.in_proj(x)
        a, delta = m.gate(), torch.nn.functional.softplus(m.log_dt)
        b_in, c = (torch.view_as_complex(m.B), torch.view_as_complex(m.C)) if complex_ \
            else (m.B[..., 0], m.C[..., 0])
        h = torch.zeros(2, u.shape[2], 2, dtype=a.dtype)
        out = torch.empty(2, t, 3, dtype=torch.float64)
        for s in range(t):
            h = a * h + (delta * u[:, s]).unsqueeze(-1) * b_in
            y = (h * c).sum(-1)
            z = (y.real if complex_ else y) + m.D * u[:, s]
            g = torch.nn.functional.gelu(z) @ m.out_proj.weight.t() + m.out_proj.bias
            out[:, s] = g[:, :3] * torch.sigmoid(g[:, 3:])
        for how in ("chunked", "sequential", "fused"):
            torch.testing.assert_close(m(x, how), out, rtol=1e-10, atol=1e-12)


def test_an_unknown_s4d_output_is_a_clear_error() -> None:
    from expressivity.errors import ConfigError
    from expressivity.models import ModelConfig

    with pytest.raises(ValueError, match="output must be one of"):
        DiagonalSSM(4, 4, output="relu")
    with pytest.raises(ConfigError, match="s4d_output: invalid value 'glu'; choose one of "
                                          "linear, gelu-glu"):
        ModelConfig(layout="s4d", s4d_output="glu")  # type: ignore[arg-type]
