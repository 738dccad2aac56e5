"""The fused scans (hand-written gradients) against autograd through the sequential reference."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models.ssm import DiagonalSSM, SelectiveSSM, scan, sequential_scan
from expressivity.models.ssm.fused import (
    KERNEL_MAX_LENGTH,
    causal_convolution,
    causal_depthwise,
    recurrence,
    selective_scan,
)


def _tensors(seed: int, *shapes: tuple[int, ...], complex_: bool = False) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    dtype = torch.complex128 if complex_ else torch.float64
    return [torch.randn(s, generator=gen, dtype=dtype).requires_grad_() for s in shapes]


def _grads(out: torch.Tensor, weight: torch.Tensor, inputs: list[torch.Tensor]
           ) -> tuple[torch.Tensor, ...]:
    loss = (out * weight).real.sum() if out.is_complex() else (out * weight).sum()
    return torch.autograd.grad(loss, inputs, retain_graph=True)


@settings(deadline=None)
@given(seed=st.integers(0, 2**16), t=st.integers(0, 30), s=st.integers(1, 3),
       complex_=st.booleans(), signed=st.booleans())
def test_the_recurrence_and_its_gradient_are_the_reference_s(seed: int, t: int, s: int,
                                                             complex_: bool, signed: bool) -> None:
    a, b, w = _tensors(seed, (2, t, s, 2), (2, t, s, 2), (2, t, s, 2), complex_=complex_)
    with torch.no_grad():  # gates of modulus < 1, as a mixer's are (signed: in (-1, 1))
        a.copy_(torch.tanh(a.real) if signed and not complex_ else a / (1 + a.abs()))
    ref, fused = sequential_scan(a, b), recurrence(a, b)
    torch.testing.assert_close(fused, ref, rtol=1e-12, atol=1e-12)
    if t:
        for g_fused, g_ref in zip(_grads(fused, w, [a, b]), _grads(ref, w, [a, b]), strict=True):
            torch.testing.assert_close(g_fused, g_ref, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(scan(a, b, "fused"), ref, rtol=1e-12, atol=1e-12)


def _reference(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
               C: torch.Tensor, signed: bool) -> torch.Tensor:
    """The selective read-out spelled out: gates, inputs, `sequential_scan`, Σ_n C_n h_n."""
    a = torch.exp(delta.unsqueeze(-1) * A)
    if signed:
        a = 2 * a - 1
    h = sequential_scan(a, (delta * u).unsqueeze(-1) * B.unsqueeze(2))
    return (h * C.unsqueeze(2)).sum(-1)


@settings(deadline=None)
@given(seed=st.integers(0, 2**16), t=st.integers(1, 25), e=st.integers(1, 5),
       n=st.integers(1, 4), signed=st.booleans())
def test_the_selective_scan_and_its_gradient_are_the_reference_s(seed: int, t: int, e: int,
                                                                 n: int, signed: bool) -> None:
    u, raw, log_a, B, C, w = _tensors(seed, (3, t, e), (3, t, e), (e, n), (3, t, n), (3, t, n),
                                      (3, t, e))
    delta = torch.nn.functional.softplus(raw)  # Δ > 0 and A < 0, as in the mixer
    A = -torch.exp(log_a)
    inputs = [u, raw, log_a, B, C]
    ref, fused = _reference(u, delta, A, B, C, signed), selective_scan(u, delta, A, B, C, signed)
    torch.testing.assert_close(fused, ref, rtol=1e-12, atol=1e-12)
    for g_fused, g_ref in zip(_grads(fused, w, inputs), _grads(ref, w, inputs), strict=True):
        torch.testing.assert_close(g_fused, g_ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("signed", [False, True])
def test_gradcheck_of_the_selective_scan(signed: bool) -> None:
    u, raw, log_a, B, C = _tensors(7, (2, 5, 3), (2, 5, 3), (3, 2), (2, 5, 2), (2, 5, 2))
    assert torch.autograd.gradcheck(
        lambda u, raw, log_a, B, C: selective_scan(
            u, torch.nn.functional.softplus(raw), -torch.exp(log_a), B, C, signed),
        (u, raw, log_a, B, C))


@pytest.mark.parametrize("complex_", [False, True])
def test_gradcheck_of_the_recurrence(complex_: bool) -> None:
    a, b = _tensors(3, (2, 6, 3), (2, 6, 3), complex_=complex_)
    with torch.no_grad():
        a.copy_(a / (1 + a.abs()))
    assert torch.autograd.gradcheck(recurrence, (a, b))


@pytest.mark.parametrize("mixer", [
    SelectiveSSM(6, 5, d_state=3), SelectiveSSM(6, 5, d_state=3, signed=True),
    DiagonalSSM(6, 5, d_state=3), DiagonalSSM(6, 5, d_state=3, complex_=True),
    DiagonalSSM(6, 5, d_state=3, output="gelu-glu"),
], ids=["M", "MS", "SD", "SDC", "SD-gelu-glu"])
def test_each_mixer_s_fused_pass_is_its_sequential_pass(mixer: torch.nn.Module) -> None:
    x = torch.randn(3, 9, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    _fused_is_sequential(mixer.double(), x, 1e-12, 1e-9, grad_atol=1e-15)


def _fused_is_sequential(mixer: torch.nn.Module, x: torch.Tensor, rtol: float,
                         grad_rtol: float, grad_atol: float = 1e-12) -> None:
    """The mixer's "fused" pass gives its "sequential" pass's values and parameter gradients."""
    params = list(mixer.parameters())
    outs = [mixer(x, how) for how in ("sequential", "fused")]
    torch.testing.assert_close(outs[1], outs[0], rtol=rtol, atol=1e-12)
    ref, fused = (torch.autograd.grad(out.square().sum(), params) for out in outs)
    for g_fused, g_ref in zip(fused, ref, strict=True):
        torch.testing.assert_close(g_fused, g_ref, rtol=grad_rtol, atol=grad_atol)


def test_the_fused_selective_pass_keeps_its_step_sizes_for_the_penalty() -> None:
    mixer = SelectiveSSM(4, 4, d_state=2)
    mixer.record_steps = True
    x = torch.randn(2, 5, 4, generator=torch.Generator().manual_seed(0))
    mixer(x, "sequential")
    kept = mixer.step_sizes
    mixer(x, "fused")
    assert kept is not None and mixer.step_sizes is not None
    torch.testing.assert_close(mixer.step_sizes, kept)
    assert mixer.step_sizes.requires_grad


@settings(deadline=None)
@given(seed=st.integers(0, 2**16), t=st.integers(1, 20), e=st.integers(1, 4),
       k=st.integers(1, 5))
def test_the_shifted_products_are_the_causal_convolution(seed: int, t: int, e: int, k: int
                                                         ) -> None:
    conv = torch.nn.Conv1d(e, e, k, groups=e, padding=k - 1).double()
    u, w = _tensors(seed, (2, t, e), (2, t, e))
    assert conv.bias is not None
    ref = conv(u.transpose(1, 2))[:, :, :t].transpose(1, 2)
    fused = causal_depthwise(u, conv.weight, conv.bias)
    torch.testing.assert_close(fused, ref, rtol=1e-12, atol=1e-12)
    inputs = [u, conv.weight, conv.bias]
    for g_fused, g_ref in zip(_grads(fused, w, inputs), _grads(ref, w, inputs), strict=True):
        torch.testing.assert_close(g_fused, g_ref, rtol=1e-10, atol=1e-12)


@settings(deadline=None)
@given(seed=st.integers(0, 2**16), t=st.integers(0, 24), e=st.integers(1, 4),
       extra=st.integers(0, 3))
def test_the_toeplitz_product_is_the_convolution_written_out(seed: int, t: int, e: int,
                                                              extra: int) -> None:
    u, kernel, w = _tensors(seed, (2, t, e), (e, t + extra), (2, t, e))
    ref = torch.stack([sum((kernel[:, i - j] * u[:, j] for j in range(i + 1)),
                           torch.zeros(2, e, dtype=u.dtype)) for i in range(t)], dim=1) \
        if t else torch.zeros(2, 0, e, dtype=u.dtype)
    out = causal_convolution(u, kernel)
    torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)
    if t:
        for g, g_ref in zip(_grads(out, w, [u, kernel]), _grads(ref, w, [u, kernel]),
                            strict=True):
            torch.testing.assert_close(g, g_ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("length", [1, KERNEL_MAX_LENGTH, KERNEL_MAX_LENGTH + 1])
def test_s4d_s_kernel_pass_is_its_recurrence_at_every_length(complex_: bool, length: int
                                                              ) -> None:
    """Up to `KERNEL_MAX_LENGTH` the fused S4D pass is the convolution by its kernel, beyond it
    the fused recurrence: both the sequential scan's values and gradients (slow and fast
    gates, random B and C)."""
    mixer = DiagonalSSM(3, 2, d_state=3, complex_=complex_, dt_range=(1e-3, 1.0)).double()
    with torch.no_grad():
        mixer.B.normal_(generator=torch.Generator().manual_seed(2))
        mixer.C.normal_(generator=torch.Generator().manual_seed(3))
    x = torch.randn(2, length, 3, generator=torch.Generator().manual_seed(1),
                    dtype=torch.float64)
    _fused_is_sequential(mixer, x, 1e-10, 1e-8)


def test_the_kernel_is_the_impulse_response() -> None:
    """K is what the mixer's recurrence gives to a unit impulse on one channel (read out before
    the skip D u and the output projection)."""
    mixer = DiagonalSSM(1, 1, d_state=2, expand=1, complex_=True).double()
    with torch.no_grad():
        mixer.C.normal_(generator=torch.Generator().manual_seed(0))
    impulse = torch.zeros(1, 6, 1, 2, dtype=torch.complex128)
    impulse[0, 0] = torch.view_as_complex(mixer.B)[0] * torch.nn.functional.softplus(
        mixer.log_dt)[0]
    a = mixer.gate().expand(impulse.shape)
    h = sequential_scan(a, impulse)
    response = (h * torch.view_as_complex(mixer.C)).sum(-1).real[0, :, 0]
    torch.testing.assert_close(mixer.kernel(6)[0], response.detach(), rtol=1e-12, atol=1e-14)


def test_shapes_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match=r"a kernel \(E, >= T\)"):
        causal_convolution(torch.zeros(2, 5, 3), torch.zeros(3, 4))
    with pytest.raises(ValueError, match="share one shape"):
        recurrence(torch.zeros(2, 3, 4), torch.zeros(2, 3, 5))
    with pytest.raises(ValueError, match="share one shape"):
        selective_scan(torch.zeros(2, 3, 4), torch.zeros(2, 4, 4), torch.zeros(4, 2),
                       torch.zeros(2, 3, 2), torch.zeros(2, 3, 2))
    with pytest.raises(ValueError, match=r"A must be \(E, N\)"):
        selective_scan(torch.zeros(2, 3, 4), torch.zeros(2, 3, 4), torch.zeros(5, 2),
                       torch.zeros(2, 3, 2), torch.zeros(2, 3, 2))
