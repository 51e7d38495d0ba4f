"""The portable profile's matrix products (fade.kernels) compute the order
the module promises, on the machine the test runs on: every output a chain
of fused multiply-adds over k in order, per block of 1024, blocks added in
order, the bias last; a single row or column in the matrix-vector order.
The reference is numpy, exact: each fused multiply-add is rounded once."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from fade import kernels
from fade.device import deterministic
from fade.network import Predictor
from fade.config import preset

f32, f64 = np.float32, np.float64


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 a * b + c rounded once: the float64 product is exact, the sum
    is made round-to-odd in float64 (TwoSum's error term says which way),
    and rounding that to float32 is then the correctly rounded result."""
    p, c = a.astype(f64) * b.astype(f64), c.astype(f64)
    s = p + c
    virtual = s - c
    error = (p - virtual) + (c - (s - virtual))
    even = (s.view(np.int64) & 1) == 0
    s = np.where((error != 0) & even, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)
    return s.astype(f32)


def chain(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(M, N): the fma chain over k in order, from zero."""
    acc = np.zeros((x.shape[0], w.shape[0]), f32)
    for k in range(x.shape[1]):
        acc = fma(x[:, k:k + 1], w[None, :, k], acc)
    return acc


def gemv_chain(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The matrix-vector order: eight lanes, lane j a chain over k = j mod 8,
    then a_j = l_j + l_(j+4) and (a_0 + a_1) + (a_2 + a_3)."""
    lanes = [chain(x[:, j::8], w[:, j::8]) for j in range(8)]
    a = [lanes[j] + lanes[j + 4] for j in range(4)]
    return (a[0] + a[1]) + (a[2] + a[3])


def reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    one = gemv_chain if 1 in (x.shape[0], w.shape[0]) else chain
    out = None
    for start in range(0, x.shape[1], kernels.K_BLOCK):
        part = one(x[:, start:start + kernels.K_BLOCK], w[:, start:start + kernels.K_BLOCK])
        out = part if out is None else out + part
    return out if bias is None else out + bias


# (M, K, N): the default model's forward, input-gradient and weight-gradient
# shapes, one row, one output, a contraction of three blocks with a tail.
SHAPES = [(74, 512, 96), (74, 96, 512), (96, 74, 512), (1, 300, 40), (1, 40, 300),
          (16, 77, 1), (5, 2500, 12), (1, 2500, 9)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_products_follow_the_portable_order(shape, threads):
    rows, depth, outputs = shape
    rng = np.random.default_rng(depth)
    x = rng.standard_normal((rows, depth), dtype=f32)
    w = rng.standard_normal((outputs, depth), dtype=f32)
    bias = rng.standard_normal(outputs, dtype=f32)
    with deterministic(threads):
        plain = kernels.matmul_nt(torch.from_numpy(x), torch.from_numpy(w)).numpy()
        biased = kernels.matmul_nt(torch.from_numpy(x), torch.from_numpy(w),
                                   torch.from_numpy(bias)).numpy()
        # transposed views, as the backward passes them
        viewed = kernels.matmul_nt(torch.from_numpy(x.T.copy()).t(),
                                   torch.from_numpy(w.T.copy()).t()).numpy()
    expected = reference(x, w, None)
    assert np.array_equal(plain, expected)
    assert np.array_equal(viewed, expected)
    assert np.array_equal(biased, reference(x, w, bias))
    assert not np.array_equal(expected, (x.astype(f64) @ w.T.astype(f64)).astype(f32)) \
        or depth < 8  # the order is visible: a float64 product rounds otherwise


def test_linear_and_bmm_match_torch():
    torch.manual_seed(0)
    layer = torch.nn.Linear(48, 20)
    portable = kernels.Linear(48, 20)
    portable.load_state_dict(layer.state_dict())
    x = torch.randn(3, 7, 48, requires_grad=True)
    x_copy = x.detach().clone().requires_grad_(True)
    target = torch.randn(3, 7, 20)
    F.mse_loss(layer(x), target).backward()
    F.mse_loss(portable(x_copy), target).backward()
    assert torch.allclose(portable(x_copy), layer(x), atol=1e-5)
    assert torch.allclose(x_copy.grad, x.grad, atol=1e-6)
    assert torch.allclose(portable.weight.grad, layer.weight.grad, atol=1e-6)
    assert torch.allclose(portable.bias.grad, layer.bias.grad, atol=1e-6)
    a, b = torch.randn(5, 2, 8), torch.randn(5, 8, 8)
    assert torch.allclose(kernels.bmm(a, b), torch.bmm(a, b), atol=1e-5)


STEP = """
import fade, torch
from fade.device import deterministic
from fade.network import Predictor
from fade.config import preset
with deterministic(1):
    predictor = Predictor(preset("tiny"), 8, seed=0, device=torch.device("cpu"),
                          portable={portable})
    for _ in range(3):
        predictor.probabilities()
        predictor.learn(0, torch.arange(8))
        predictor.update()
print("steps done")
"""


@pytest.mark.parametrize("portable", [True, False])
def test_portable_steps_call_no_mkl(portable):
    """MKL chooses kernels by CPU vendor; a portable step must never reach it
    (MKL_VERBOSE prints a line per call). The native step shows the test can
    see MKL calls at all."""
    result = subprocess.run([sys.executable, "-c", STEP.format(portable=portable)],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "MKL_VERBOSE": "1"})
    assert "steps done" in result.stdout, result.stderr
    calls = [line for line in result.stdout.splitlines() if "GEMM" in line]
    assert (calls == []) == portable


def test_portable_model_predicts_like_native():
    """Same parameters and initialisation: the first probabilities agree to
    float32 rounding, and learning stays close."""
    cfg = preset("tiny")
    with deterministic(1):
        native = Predictor(cfg, 6, seed=3, device=torch.device("cpu"))
        portable = Predictor(cfg, 6, seed=3, device=torch.device("cpu"), portable=True)
        for step in range(5):
            p, q = native.probabilities(), portable.probabilities()
            assert torch.allclose(p, q, atol=1e-5), step
            targets = torch.arange(6) + step
            for predictor in (native, portable):
                predictor.learn(0, targets)
                predictor.update()
