"""The network as an online predictor: its probabilities, its loss, its Adam step.

fade.model is the network (FADE); this module is what the coding loop does
with it. The network is initialised from the archive's seed on the CPU, so
every machine starts from the same weights, and moved to the device; each
step it gives the next-byte probabilities of every sub-stream, group by
group, then learns from the bytes once they are known (one Adam step per
step: the "lockstep" schedule, fade.lockstep). Encoder and decoder take
their probabilities from the one method `Predictor.probabilities`.
"""

from __future__ import annotations

from fade.config import ModelConfig, group_rows
from fade.lazy import functional as F
from fade.lazy import torch


class Predictor:
    """The online model: probabilities group by group, then one Adam step.

    Per step: `probabilities(g)` for every group, `learn(g, targets)` for
    every group (after its bytes are known), then `update()`. The contexts
    (the last T bytes of every sub-stream) live here, on the device.
    """

    def __init__(self, cfg: ModelConfig, batch_size: int, seed: int, device: torch.device,
                 groups: int = 1, portable: bool = False):
        from fade.model import FADE  # torch's modules: loaded here, not with fade (fade.lazy)
        with torch.random.fork_rng(devices=[]):  # seeded init on the CPU, global RNG untouched
            torch.manual_seed(seed)
            model = FADE(cfg, batch_size, groups, portable)
        self.model = model.to(device)
        self.optimizer = FusedAdam(
            list(self.model.parameters()), lr=cfg.learning_rate,
            betas=(cfg.adam_beta1, cfg.adam_beta2), eps=cfg.adam_eps,
            weight_decay=cfg.weight_decay)
        self.device = device
        self.group_rows = group_rows(batch_size, groups)
        # Each group's loss is its mean weighted by its share of the batch, so
        # the summed gradient is the whole batch's mean; one group: the mean.
        self._weights = [None] if groups == 1 else \
            [(stop - start) / batch_size for start, stop in self.group_rows]
        self.context = torch.zeros(batch_size, cfg.timesteps, dtype=torch.long, device=device)
        self._logits: list[torch.Tensor | None] = [None] * groups
        self._targets: list[torch.Tensor | None] = [None] * groups

    def probabilities(self, group: int = 0) -> torch.Tensor:
        """(B_g, 256) float32 next-byte probabilities of a group's sub-streams,
        on the device.

        The single source of probabilities for encoder and decoder alike.
        """
        start, stop = self.group_rows[group]
        logits = self.model(self.context[start:stop], group)
        self._logits[group] = logits
        return torch.softmax(logits.detach(), dim=-1)

    def learn(self, group: int, targets: torch.Tensor) -> None:
        """Backward of the group's cross-entropy on its (B_g,) int64 bytes;
        gradients accumulate over the groups of a step."""
        if group == 0:
            self.optimizer.zero_grad()
        loss = F.cross_entropy(self._logits[group], targets)
        if self._weights[group] is not None:
            loss = loss * self._weights[group]
        loss.backward()
        self._logits[group] = None
        self._targets[group] = targets

    def update(self) -> None:
        """The Adam step; each context drops its oldest byte and takes the new one."""
        self.optimizer.step()
        targets = self._targets[0] if len(self._targets) == 1 else torch.cat(self._targets)
        self.context = torch.cat((self.context[:, 1:], targets[:, None]), dim=1)


class FusedAdam:
    """torch.optim.Adam(fused=True), the optimizer every learned archive
    records (format.headers.OPTIMIZERS): the same state, made when a
    parameter first has a gradient, and the same kernel, torch._fused_adam_,
    with the same arguments, so its steps are the same bits (a test compares
    them). torch.optim's classes load torch._dynamo when they are made (for
    torch.compile, which fade never runs): about 3 s of every process that
    runs the network, which this class does not pay.
    """

    def __init__(self, params: list, lr: float, betas: tuple[float, float], eps: float,
                 weight_decay: float):
        self.params = params
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.weight_decay = weight_decay
        # parameter index -> (step, exp_avg, exp_avg_sq), as torch.optim.Adam's state
        self.state: dict[int, tuple] = {}

    def zero_grad(self) -> None:
        """Drop every gradient (as torch's zero_grad(set_to_none=True))."""
        for param in self.params:
            param.grad = None

    def step(self) -> None:
        """One Adam step of the parameters that have gradients."""
        with torch.no_grad():
            self._step()

    def _step(self) -> None:
        lists: tuple[list, list, list, list, list] = ([], [], [], [], [])
        for index, param in enumerate(self.params):
            if param.grad is None:
                continue
            if index not in self.state:
                self.state[index] = (
                    torch.zeros((), dtype=torch.float32, device=param.device),
                    torch.zeros_like(param, memory_format=torch.preserve_format),
                    torch.zeros_like(param, memory_format=torch.preserve_format))
            step, exp_avg, exp_avg_sq = self.state[index]
            for kept, tensor in zip(lists, (param, param.grad, exp_avg, exp_avg_sq, step)):
                kept.append(tensor)
        params, grads, exp_avgs, exp_avg_sqs, steps = lists
        if not params:
            return
        torch._foreach_add_(steps, 1)
        torch._fused_adam_(params, grads, exp_avgs, exp_avg_sqs, [], steps, amsgrad=False,
                           lr=self.lr, beta1=self.beta1, beta2=self.beta2,
                           weight_decay=self.weight_decay, eps=self.eps, maximize=False,
                           grad_scale=None, found_inf=None)
