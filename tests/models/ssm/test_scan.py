"""The parallel scans against the sequential references: diagonal (real, complex) and delta rule."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from expressivity.models.ssm import (
    chunked_scan,
    parallel_delta,
    parallel_scan,
    scan,
    sequential_delta,
    sequential_scan,
)
from expressivity.models.ssm.scan import SCANS


def _pair(seed: int, b: int, t: int, s: int, *, complex_: bool = False,
          signed: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    a = torch.rand(b, t, s, generator=gen, dtype=torch.float64)
    if signed:
        a = 2 * a - 1
    x = torch.randn(b, t, s, generator=gen, dtype=torch.float64)
    if complex_:
        phase = torch.rand(b, t, s, generator=gen, dtype=torch.float64) * 6.3
        a = torch.polar(a.abs(), phase)
        x = torch.complex(x, torch.randn(b, t, s, generator=gen, dtype=torch.float64))
    return a, x


def _loop(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The recurrence written out element by element (the reference of the reference)."""
    out = torch.zeros_like(b)
    for i in range(b.shape[0]):
        for s in range(b.shape[2]):
            h = 0.0 * b[i, 0, s] if b.shape[1] else 0.0
            for t in range(b.shape[1]):
                h = a[i, t, s] * h + b[i, t, s]
                out[i, t, s] = h
    return out


@given(seed=st.integers(0, 2**16), t=st.integers(0, 40), s=st.integers(1, 3),
       complex_=st.booleans(), signed=st.booleans())
def test_parallel_scan_matches_sequential(seed: int, t: int, s: int, complex_: bool,
                                          signed: bool) -> None:
    a, b = _pair(seed, 2, t, s, complex_=complex_, signed=signed)
    ref = sequential_scan(a, b)
    assert ref.shape == b.shape
    torch.testing.assert_close(parallel_scan(a, b), ref, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(chunked_scan(a, b), ref, rtol=1e-10, atol=1e-10)


@given(seed=st.integers(0, 2**16), t=st.integers(1, 50), chunk=st.integers(1, 12))
def test_chunked_scan_any_chunk(seed: int, t: int, chunk: int) -> None:
    a, b = _pair(seed, 2, t, 2, signed=True)
    torch.testing.assert_close(chunked_scan(a, b, chunk), sequential_scan(a, b),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("t", [0, 1, 2, 7])
def test_sequential_scan_is_the_recurrence(t: int) -> None:
    a, b = _pair(t, 2, t, 2, signed=True)
    torch.testing.assert_close(sequential_scan(a, b), _loop(a, b))


@given(seed=st.integers(0, 2**16), t=st.integers(1, 30))
def test_initial_state(seed: int, t: int) -> None:
    a, b = _pair(seed, 2, t, 3, signed=True)
    h0 = torch.randn(2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    ref = sequential_scan(a, b, h0)
    torch.testing.assert_close(parallel_scan(a, b, h0), ref)
    # h_0 enters as one more step whose input is h_0
    ones = torch.ones_like(a[:, :1])
    longer = sequential_scan(torch.cat([ones, a], 1), torch.cat([h0[:, None], b], 1))
    torch.testing.assert_close(longer[:, 1:], ref)


@given(seed=st.integers(0, 2**16), t=st.integers(1, 25), pad=st.integers(1, 9))
def test_padding_never_changes_earlier_states(seed: int, t: int, pad: int) -> None:
    a, b = _pair(seed, 1, t + pad, 2, signed=True)
    junk_a, junk_b = _pair(seed + 1, 1, pad, 2)
    padded = parallel_scan(torch.cat([a[:, :t], junk_a], 1), torch.cat([b[:, :t], junk_b], 1))
    torch.testing.assert_close(padded[:, :t], parallel_scan(a[:, :t], b[:, :t]))


def test_exact_sign_flips_in_float32() -> None:
    """Gates −1 and 1 are exact in float32: the scan tracks parity at any length."""
    flips = torch.tensor([1.0, -1.0, -1.0, 1.0, -1.0] * 2000).view(1, -1, 1)
    b = torch.zeros_like(flips)
    b[0, 0] = 1.0
    flips[0, 0] = 0.0
    h = parallel_scan(flips, b)
    parity = torch.cumprod(torch.where(flips[0, 1:, 0] < 0, -1.0, 1.0), 0)
    assert torch.equal(h[0, 1:, 0], parity)


def test_scan_by_name_rejects_unknown() -> None:
    a, b = _pair(0, 1, 3, 1)
    torch.testing.assert_close(scan(a, b, "sequential"), sequential_scan(a, b))
    torch.testing.assert_close(scan(a, b), sequential_scan(a, b))
    with pytest.raises(ValueError, match="parallel"):
        scan(a, b, "blocked")
    with pytest.raises(ValueError, match="shape"):
        parallel_scan(a, b[:, :2])


def _delta_inputs(seed: int, t: int, d_k: int = 3, d_v: int = 2) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 2, t, d_k, generator=gen, dtype=torch.float64)
    k = torch.nn.functional.normalize(torch.randn(2, 2, t, d_k, generator=gen,
                                                  dtype=torch.float64), dim=-1)
    v = torch.randn(2, 2, t, d_v, generator=gen, dtype=torch.float64)
    beta = 2 * torch.rand(2, 2, t, generator=gen, dtype=torch.float64)
    alpha = torch.rand(2, 2, t, generator=gen, dtype=torch.float64)
    return [q, k, v, beta, alpha]


@given(seed=st.integers(0, 2**16), t=st.integers(0, 20))
def test_parallel_delta_matches_sequential(seed: int, t: int) -> None:
    inputs = _delta_inputs(seed, t)
    ref = sequential_delta(*inputs)
    assert ref.shape == (2, 2, t, 2)
    torch.testing.assert_close(parallel_delta(*inputs), ref, rtol=1e-9, atol=1e-9)


def test_delta_rule_is_the_matrix_recurrence() -> None:
    q, k, v, beta, alpha = _delta_inputs(3, 6)
    s = torch.zeros(2, 3, dtype=torch.float64)
    for t in range(6):
        kt = k[0, 1, t][:, None]
        a = alpha[0, 1, t] * (torch.eye(3, dtype=torch.float64) - beta[0, 1, t] * kt @ kt.T)
        s = s @ a + beta[0, 1, t] * v[0, 1, t][:, None] @ kt.T
        torch.testing.assert_close(sequential_delta(q, k, v, beta, alpha)[0, 1, t],
                                   s @ q[0, 1, t])


def test_householder_with_beta_two_reflects() -> None:
    """β = 2 along a unit key is a reflection: the eigenvalue −1 that PARITY needs."""
    k = torch.tensor([1.0, 0.0]).view(1, 1, 1, 2)
    s = torch.tensor([[3.0, 5.0]])
    eye_minus = torch.eye(2) - 2 * k[0, 0, 0][:, None] @ k[0, 0, 0][None]
    assert torch.equal(s @ eye_minus, torch.tensor([[-3.0, 5.0]]))


@pytest.mark.parametrize("how", SCANS)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 5)), ((2, 3, 4), (2, 4, 4)), ((3,), (3,))])
def test_every_scan_refuses_gates_and_inputs_of_different_shapes(
        how: str, shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    with pytest.raises(ValueError, match=r"gates and inputs must share one shape \(B, T, \.\.\.\)"):
        scan(torch.zeros(shapes[0]), torch.zeros(shapes[1]), how)
