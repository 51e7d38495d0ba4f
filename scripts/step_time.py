"""Time one coding step of the model (forward, softmax, backward, Adam),
without the range coder: the cost that bounds fade's throughput.

    python scripts/step_time.py [PRESET:BATCH ...] [--threads N] [--steps N] [--native]

Prints one Markdown row per configuration: median ms per step and the
throughput it allows (batch bytes per step). Example:

    python scripts/step_time.py paper:512 balanced:64 fast:512 tiny:64 --threads 2
"""

from __future__ import annotations

import argparse
import statistics
import time

import fade  # noqa: F401  (first: fade.environment, before torch loads)
import torch
from fade.codec import Predictor, deterministic
from fade.config import preset


def step_times(preset_name: str, batch: int, steps: int, portable: bool) -> list[float]:
    cfg = preset(preset_name)
    predictor = Predictor(cfg, batch, seed=0, device=torch.device("cpu"), portable=portable)
    generator = torch.Generator().manual_seed(0)
    times = []
    for _ in range(steps):
        targets = torch.randint(0, 256, (batch,), generator=generator)
        start = time.perf_counter()
        predictor.probabilities()
        predictor.learn(0, targets)
        predictor.update()
        times.append(time.perf_counter() - start)
    return times[2:]  # the first steps build the cache and warm the allocator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*",
                        default=["paper:512", "balanced:128", "fast:512", "tiny:64"])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--native", action="store_true",
                        help="the native numeric profile's kernels (default: portable)")
    args = parser.parse_args()
    print(f"threads: {args.threads}, profile {'native' if args.native else 'portable'}, "
          f"torch {torch.__version__}\n")
    print("| preset | batch | ms/step (median) | KB/s bound |")
    print("|---|---:|---:|---:|")
    with deterministic(args.threads):
        for config in args.configs:
            name, batch = config.split(":")
            median = statistics.median(step_times(name, int(batch), args.steps,
                                                  not args.native))
            print(f"| {name} | {batch} | {1000 * median:.1f} | "
                  f"{int(batch) / 1024 / median:.2f} |", flush=True)


if __name__ == "__main__":
    main()
