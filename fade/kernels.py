"""Matrix products whose bits do not depend on the machine: the portable profile.

torch's own `nn.Linear` and `bmm` on a CPU are MKL SGEMMs, and MKL picks its
kernels by CPU vendor and instruction set: the same product gives other
low bits on an AMD and an Intel CPU, with or without AVX-512, whatever the
environment says (`MKL_CBWR=COMPATIBLE` is the one MKL setting honoured on
every vendor, and it makes the default model's step twice as slow). So the
portable profile never calls MKL. Its matrix products run in oneDNN's
brgemm matmul, pinned to AVX2 by `ONEDNN_MAX_CPU_ISA` (fade.environment):
there every output element is one chain of fused multiply-adds over k in
order, for any M and N blocking, thread split over M and N, vector width or
vendor, which is what makes the bits the machine's own business no longer.
tests/test_kernels.py checks that claim on the machine it runs on, against
a chain computed independently in numpy, for the shapes fade uses.

Longer contractions are cut by oneDNN into blocks of K_BLOCK = 1024 (a
constant in its source, not a cache-size heuristic), each block its own
chain, the blocks added in order; a single row or a single output column
takes its matrix-vector kernel, eight lanes of chains over k mod 8 summed in
a fixed tree (given dense rows: a transposed view there would fall back to a
gemm whose order depends on the thread count). Neither depends on the
machine (read in oneDNN v3.12's source, and checked by the test). The
per-sample products of the coarse refiner (a bmm) are an ATen product and
sum over k (`_product_sum`), whose kernels `ATEN_CPU_CAPABILITY` pins. The
backward of every product is the same kind of product, so the gradients are
portable too.
"""

from __future__ import annotations

import torch
import torch.nn as nn

K_BLOCK = 1024  # oneDNN's contraction block for float32 on AVX2 (see above)

_linear = torch.ops.mkldnn._linear_pointwise


def matmul_nt(x: torch.Tensor, w: torch.Tensor,
              bias: torch.Tensor | None = None) -> torch.Tensor:
    """x @ w.T (+ bias, added to each finished chain) for float32 x (M, K)
    and w (N, K), either possibly a transposed view, in the portable order
    (module docstring)."""
    if 1 in (x.shape[0], w.shape[0]):  # the matrix-vector kernel reads only dense rows
        x, w = x.contiguous(), w.contiguous()
    return _linear(x, w, bias, "none", [], "")


class _PortableLinear(torch.autograd.Function):
    """y = x W^T + b with forward and backward products from matmul_nt."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        flat = x.reshape(-1, x.shape[-1])
        ctx.save_for_backward(flat, weight)
        ctx.input_shape = x.shape
        return matmul_nt(flat, weight, bias).reshape(*x.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(ctx, grad):
        flat, weight = ctx.saved_tensors
        grad = grad.reshape(-1, grad.shape[-1])
        grad_x = grad_w = grad_b = None
        if ctx.needs_input_grad[0]:  # (M, N) @ (N, K): the weight read as (K, N)
            grad_x = matmul_nt(grad, weight.t()).reshape(ctx.input_shape)
        if ctx.needs_input_grad[1]:  # (N, M) @ (M, K)
            grad_w = matmul_nt(grad.t(), flat.t())
        if ctx.needs_input_grad[2]:
            grad_b = grad.sum(0)
        return grad_x, grad_w, grad_b


class Linear(nn.Linear):
    """nn.Linear (same parameters, same initialisation) computed by matmul_nt."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _PortableLinear.apply(x, self.weight, self.bias)


def _product_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """out[:, i, j] = sum over k of a[:, i, k] * b[:, k, j]: an ATen product
    and sum over k, whose kernels (and so order) ATEN_CPU_CAPABILITY pins."""
    return (a.unsqueeze(-1) * b.unsqueeze(1)).sum(2)


class _PortableBmm(torch.autograd.Function):
    """torch.bmm with forward and backward products from _product_sum (one
    product and sum each, where autograd through them would take several)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _product_sum(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = _product_sum(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
        grad_b = _product_sum(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """torch.bmm(a, b) for float32 a (B, n, k) and b (B, k, m), without MKL
    (the coarse refiner's per-sub-stream memory products)."""
    return _PortableBmm.apply(a, b)
