"""The FADE next-byte predictor.

Ma et al., "Efficient Learned Data Compression via Dual-Stream Feature
Decoupling", arXiv 2604.07239. One forward predicts, for every sub-stream in
the batch, the next byte from the last T bytes:

    x      = LayerNorm(concat of T byte embeddings)            (B, T*d)
    g      = GlobalStream(x)     rolling GeGLU cache of the history
    local  = LocalStream(emb)    depthwise conv over the T positions
    h      = r * g + (1 - r) * local,  r = sigmoid(Linear(x))  (the router)
    z      = CoarseRefiner(h)    channel interaction + per-sub-stream memory
    out    = FineRefiner(z)      GeGLU refinement
    logits = Linear(out)                                       (B, 256)

The module is stateful in two ways, both part of the coding state: the global
stream's rolling cache, and the coarse refiner's per-sub-stream memories
(one row of parameters per sub-stream, so the batch size is fixed at build
time).

The batch may be cut into G contiguous groups of sub-streams that run as
separate forwards (`forward(context, group)`), so that a decoder can decode
one group while the device computes the next (fade.pipeline). Each group
has its own rolling cache and its own memory tensors; the weights are
shared. With one group this is exactly the single-batch model.
"""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from fade import kernels
from fade.config import ModelConfig, split_sizes

VOCAB = 256  # bytes


class GeGLU(nn.Module):
    """Linear to 2*d_out, then GELU(value) * gate."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.proj = nn.Linear(d_in, 2 * d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        value, gate = self.proj(x).chunk(2, dim=-1)
        return F.gelu(value) * gate


class GlobalStream(nn.Module):
    """Macro-semantic stream: a rolling cache of GeGLU features of the history.

    On the first step the cache (width Fg) is GeGLU(x); on each later step the
    oldest `cache_step` values drop out and GeGLU(newest byte's d channels of
    x) is appended, so the cache covers Fg / cache_step bytes. As in the
    paper's code the cache is detached: only the projection out of it trains.
    """

    def __init__(self, cfg: ModelConfig, groups: int = 1):
        super().__init__()
        self.embed_dim = cfg.embed_dim
        self.cache_step = cfg.cache_step
        self.first = GeGLU(cfg.width, cfg.global_width)  # first step only
        self.append = GeGLU(cfg.embed_dim, cfg.cache_step)  # every later step
        self.out = nn.Linear(cfg.global_width, cfg.width)
        self.skip_scale = nn.Parameter(torch.tensor(1.0))  # a_g
        # One (B_g, Fg) cache per group: separate tensors, so that updating one
        # group's cache never touches a tensor another group's backward saved.
        self.rolling_cache: list[torch.Tensor | None] = [None] * groups

    def forward(self, x: torch.Tensor, group: int = 0) -> torch.Tensor:  # x: (B_g, T*d)
        with torch.no_grad():
            cache = self.rolling_cache[group]
            if cache is None:
                cache = self.first(x)
            else:
                newest = self.append(x[:, -self.embed_dim:])  # (B_g, cache_step)
                cache = torch.cat((cache[:, self.cache_step:], newest), dim=1)
            self.rolling_cache[group] = cache
        return F.gelu(self.out(cache)) + self.skip_scale * x


class LocalStream(nn.Module):
    """Micro-syntactic stream: LayerNorm over d, depthwise Conv1d over T, GELU."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.norm = nn.LayerNorm(cfg.embed_dim)
        self.conv = nn.Conv1d(cfg.embed_dim, cfg.embed_dim, kernel_size=3, padding=1,
                              groups=cfg.embed_dim)

    def forward(self, emb: torch.Tensor) -> torch.Tensor:  # emb: (B, T, d)
        y = self.conv(self.norm(emb).transpose(1, 2))  # (B, d, T)
        return F.gelu(y).transpose(1, 2).flatten(1)  # (B, T*d)


class Router(nn.Module):
    """Content-adaptive fusion: h = r * g + (1 - r) * local, r = sigmoid(Wx + b)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.width, cfg.width)

    def forward(self, x, g, local):
        r = torch.sigmoid(self.gate(x))
        return r * g + (1 - r) * local


class CoarseRefiner(nn.Module):
    """Hierarchical gated refiner, coarse part: channel interaction per branch.

    z = up(down(u) @ U_s) * sigmoid(gate(u)) + bias_s + a_c * u, u = LN(h_b),
    where U_s (rank x rank) and bias_s (branches x branch width) belong to
    sub-stream s: a persistent memory, one row of the batch each. The rows
    are drawn for the whole batch at once, then cut into one parameter per
    group (the same values whatever the grouping).
    """

    def __init__(self, cfg: ModelConfig, group_sizes: Sequence[int]):
        super().__init__()
        self.branches = cfg.branches
        branch_width = cfg.width // cfg.branches
        batch_size = sum(group_sizes)
        self.norm = nn.LayerNorm(branch_width)
        self.down = nn.Linear(branch_width, cfg.coarse_rank)
        self.up = nn.Linear(cfg.coarse_rank, branch_width)
        self.gate = nn.Linear(branch_width, branch_width)
        self.skip_scale = nn.Parameter(torch.tensor(1.0))  # a_c
        self.bmm = torch.bmm  # kernels.bmm in the portable profile
        memory = torch.randn(batch_size, cfg.coarse_rank, cfg.coarse_rank) * cfg.init_std
        memory_bias = torch.randn(batch_size, cfg.branches, branch_width) * cfg.init_std
        self.memory = nn.ParameterList(  # U_s per group: (B_g, rank, rank)
            nn.Parameter(rows.clone()) for rows in memory.split(list(group_sizes)))
        self.memory_bias = nn.ParameterList(  # bias_s per group: (B_g, branches, branch width)
            nn.Parameter(rows.clone()) for rows in memory_bias.split(list(group_sizes)))

    def forward(self, h: torch.Tensor, group: int = 0) -> torch.Tensor:  # h: (B_g, T*d)
        u = self.norm(h.view(h.shape[0], self.branches, -1))  # (B_g, branches, width/branches)
        mixed = self.up(self.bmm(self.down(u), self.memory[group]))  # (B_g, branches, ...)
        z = mixed * torch.sigmoid(self.gate(u)) + self.memory_bias[group] + self.skip_scale * u
        return z.flatten(1)  # (B_g, T*d)


class FineRefiner(nn.Module):
    """Fine part: out = GELU(LN(Linear(GeGLU(v)))) + a_f * v, v = LN(z)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.norm_in = nn.LayerNorm(cfg.width)
        self.expand = GeGLU(cfg.width, cfg.fine_width)
        self.project = nn.Linear(cfg.fine_width, cfg.width)
        self.norm_out = nn.LayerNorm(cfg.width)
        self.skip_scale = nn.Parameter(torch.tensor(1.0))  # a_f

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        v = self.norm_in(z)
        return F.gelu(self.norm_out(self.project(self.expand(v)))) + self.skip_scale * v


class FADE(nn.Module):
    """The dual-stream predictor for a batch of `batch_size` sub-streams, cut
    into `groups` contiguous groups (config.split_sizes).

    `portable`: compute every matrix product with fade.kernels, whose bits
    do not depend on the CPU (the portable profile); otherwise with torch's
    own (MKL on a CPU: the native profile). The parameters and their
    initialisation are the same either way."""

    def __init__(self, cfg: ModelConfig, batch_size: int, groups: int = 1,
                 portable: bool = False):
        super().__init__()
        self.cfg = cfg
        self.group_sizes = split_sizes(batch_size, groups)
        self.embedding = nn.Embedding(VOCAB, cfg.embed_dim)
        self.norm = nn.LayerNorm(cfg.width)
        self.global_stream = GlobalStream(cfg, groups)
        self.local_stream = LocalStream(cfg)
        self.router = Router(cfg)
        self.coarse = CoarseRefiner(cfg, self.group_sizes)
        self.fine = FineRefiner(cfg)
        self.head = nn.Linear(cfg.width, VOCAB)
        nn.init.normal_(self.embedding.weight, 0.0, cfg.init_std)
        nn.init.normal_(self.head.weight, 0.0, cfg.init_std)
        nn.init.zeros_(self.head.bias)
        if portable:
            for module in self.modules():
                if type(module) is nn.Linear:
                    module.__class__ = kernels.Linear
            self.coarse.bmm = kernels.bmm

    def forward(self, context: torch.Tensor, group: int = 0) -> torch.Tensor:
        """Logits (B_g, 256) for the (B_g, T) int64 context of `group`."""
        emb = self.embedding(context)  # (B_g, T, d)
        x = self.norm(emb.flatten(1))  # (B_g, T*d)
        h = self.router(x, self.global_stream(x, group), self.local_stream(emb))
        return self.head(self.fine(self.coarse(h, group)))  # (B_g, 256)


def paper_parameter_count(model: FADE) -> int:
    """Parameters as the paper counts them: without the first-step cache
    projection and without the per-sub-stream memories."""
    skipped = {id(p) for p in model.global_stream.first.parameters()}
    skipped |= {id(p) for p in model.coarse.memory.parameters()}
    skipped |= {id(p) for p in model.coarse.memory_bias.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in skipped)
