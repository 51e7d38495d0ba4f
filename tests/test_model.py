"""The predictor's shape and size match the paper; its init is reproducible."""

import dataclasses

import torch
from torch.utils.flop_counter import FlopCounterMode

from fade.config import PRESETS, ModelConfig, default_batch_size
from fade.network import Predictor
from fade.model import FADE, paper_parameter_count


def test_paper_preset_is_the_dataclass_default():
    assert PRESETS["paper"] == ModelConfig()
    cfg = ModelConfig()
    assert (cfg.timesteps, cfg.embed_dim, cfg.global_width, cfg.fine_width) == (16, 32, 4096, 8192)


def test_parameter_counts_match_the_paper():
    model = FADE(PRESETS["paper"], batch_size=512)
    # 15.2 M as the paper counts (no first-step projection, no memories) ...
    assert paper_parameter_count(model) == 15_206_531
    # ... + 4.2 M first-step cache projection + 2.4 M per-stream memories = 21.8 M.
    first = sum(p.numel() for p in model.global_stream.first.parameters())
    assert first == 512 * 8192 + 8192
    memories = [*model.coarse.memory, *model.coarse.memory_bias]
    assert sum(p.numel() for p in memories) == 512 * (64 * 64 + 512)
    assert sum(p.numel() for p in model.parameters()) == 21_768_323


def test_paper_step_costs_7_8_gmac_at_batch_512():
    model = FADE(PRESETS["paper"], batch_size=512)
    context = torch.randint(0, 256, (512, 16))
    with torch.no_grad():
        model(context)  # first step builds the cache with the 512->4096 projection
        with FlopCounterMode(display=False) as counter:
            model(context)  # every later step
    gmac = counter.get_total_flops() / 2 / 1e9
    assert 7.7 < gmac < 7.9, gmac


def test_forward_shapes_for_every_preset():
    for name, cfg in PRESETS.items():
        model = FADE(cfg, batch_size=3)
        logits = model(torch.randint(0, 256, (3, cfg.timesteps)))
        assert logits.shape == (3, 256), name
        logits = model(torch.randint(0, 256, (3, cfg.timesteps)))  # rolling-cache path
        assert logits.shape == (3, 256), name


def _initial_state(seed):
    return Predictor(PRESETS["tiny"], 4, seed, torch.device("cpu")).model.state_dict()


def test_init_depends_only_on_the_seed():
    torch.manual_seed(1234)  # the global RNG must not leak into the init
    first = _initial_state(7)
    torch.manual_seed(999)
    again = _initial_state(7)
    other = _initial_state(8)
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_default_batch_size_rule():
    assert default_batch_size(0) == 1
    assert default_batch_size(1) == 1
    assert default_batch_size(4095) == 1
    assert default_batch_size(100_000) == 48
    assert default_batch_size(1_000_000) == 488
    assert default_batch_size(10**9) == 512
    # Per preset and device: balanced is capped at 128 on the CPU only.
    assert default_batch_size(1_000_000, "balanced") == 128
    assert default_batch_size(100_000, "balanced") == 48
    assert default_batch_size(1_000_000, "balanced", "cuda") == 488
    assert default_batch_size(10**9, "fast") == default_batch_size(10**9, "paper") == 512


def test_config_validation_rejects_impossible_sizes():
    import pytest

    from fade.errors import FadeError

    with pytest.raises(FadeError, match="multiple of cache_step"):
        dataclasses.replace(ModelConfig(), cache_step=100).validate()
    with pytest.raises(FadeError, match="timesteps = 0 is outside its domain"):
        dataclasses.replace(ModelConfig(), timesteps=0).validate()
    with pytest.raises(FadeError, match=r"learning_rate = nan is outside its domain \(0, 1\]"):
        dataclasses.replace(ModelConfig(), learning_rate=float("nan")).validate()
    with pytest.raises(FadeError, match="above 16384"):
        dataclasses.replace(ModelConfig(), timesteps=256, embed_dim=128).validate()


def test_parameter_count_and_limits_match_the_model():
    """config's analytic parameter count is the built model's, for every
    preset, batch and group count; MODEL_LIMITS covers every field."""
    from fade.config import MODEL_LIMITS

    assert set(MODEL_LIMITS) == {f.name for f in dataclasses.fields(ModelConfig)}
    for name, cfg in PRESETS.items():
        if name == "paper":
            continue  # 19 M parameters: the formula is the same
        for batch, groups in ((1, 1), (7, 3), (128, 4)):
            model = FADE(cfg, batch, groups)
            assert cfg.parameter_count(batch) == sum(p.numel() for p in model.parameters())


def test_fused_adam_steps_are_torch_adams_bits():
    """fade's FusedAdam (which spares the network's processes torch._dynamo's
    import) takes the steps torch.optim.Adam(fused=True) takes, bit for bit:
    the same state, made when a parameter first has a gradient, and the same
    kernel; some steps leave a parameter without a gradient, as a router may."""
    from fade.network import FusedAdam

    cfg = PRESETS["tiny"]
    torch.manual_seed(5)
    ours = FADE(cfg, 4)
    theirs = FADE(cfg, 4)
    theirs.load_state_dict(ours.state_dict())
    start = [param.clone() for param in ours.parameters()]
    settings = dict(lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
                    eps=cfg.adam_eps, weight_decay=cfg.weight_decay)
    optimizers = (FusedAdam(list(ours.parameters()), **settings),
                  torch.optim.Adam(theirs.parameters(), fused=True, **settings))
    x = torch.randint(0, 256, (4, cfg.timesteps))
    targets = torch.randint(0, 256, (4,))
    for step in range(6):
        for model, optimizer in zip((ours, theirs), optimizers):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), targets).backward()
            if step in (1, 4):  # a parameter with no gradient this step
                next(model.parameters()).grad = None
            optimizer.step()
        for mine, torchs in zip(ours.parameters(), theirs.parameters()):
            assert torch.equal(mine, torchs), step
    # what moved is what had a gradient (the first call's parameters of the
    # global stream, say, have none after it), and torch's state is as large
    moved = {index for index, (now, then) in enumerate(zip(ours.parameters(), start))
             if not torch.equal(now, then)}
    assert moved == set(optimizers[0].state) and len(moved) == len(optimizers[1].state) > 30
