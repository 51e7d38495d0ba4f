"""Time one coding step of the model (forward, softmax, backward, Adam),
without the range coder: the cost that bounds fade's throughput.

    python scripts/step_time.py [PRESET:BATCH ...] [--threads N] [--steps N] [--native]
    python scripts/step_time.py [PRESET:BATCH ...] --compare [--rounds N]

Prints one Markdown row per configuration: median ms per step and the
throughput it allows (batch bytes per step). Example:

    python scripts/step_time.py paper:512 balanced:64 fast:512 tiny:64 --threads 2

--compare times the native and the portable profile's kernels (fade.profile)
alternately, --rounds times each, and prints each one's best median and the
ratio: side by side in one run, as a noisy machine needs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import fade  # noqa: F401  (first: fade.environment, before torch loads)
import torch
from fade.device import deterministic
from fade.network import Predictor
from fade.config import preset


def median_step(preset_name: str, batch: int, steps: int, portable: bool) -> float:
    """Median seconds of a step over `steps` steps, the first two left out."""
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
    return statistics.median(times[2:])  # the first steps build the cache, warm the allocator


def preset_batch(text: str) -> tuple[str, int]:
    """PRESET:BATCH -> (preset, batch)."""
    name, _, batch = text.partition(":")
    return name, int(batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", type=preset_batch, metavar="PRESET:BATCH",
                        default=[("paper", 512), ("balanced", 128), ("fast", 512), ("tiny", 64)])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--native", action="store_true",
                        help="the native numeric profile's kernels (default: portable)")
    parser.add_argument("--compare", action="store_true",
                        help="native against portable, alternating, with the ratio")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per profile (--compare)")
    args = parser.parse_args()
    if args.compare:
        compare(args)
        return
    print(f"threads: {args.threads}, profile {'native' if args.native else 'portable'}, "
          f"torch {torch.__version__}\n")
    print("| preset | batch | ms/step (median) | KB/s bound |")
    print("|---|---:|---:|---:|")
    with deterministic(args.threads):
        for name, batch in args.configs:
            median = median_step(name, batch, args.steps, not args.native)
            print(f"| {name} | {batch} | {1000 * median:.1f} | {batch / 1024 / median:.2f} |",
                  flush=True)


def compare(args: argparse.Namespace) -> None:
    print(f"threads: {args.threads}, {args.steps} steps, best median of {args.rounds} "
          f"alternating rounds, torch {torch.__version__}\n")
    print("| preset | batch | native ms/step | portable ms/step | portable / native |")
    print("|---|---:|---:|---:|---:|")
    with deterministic(args.threads):
        for name, batch in args.configs:
            best = {False: float("inf"), True: float("inf")}
            for _ in range(args.rounds):
                for portable in (False, True):
                    best[portable] = min(best[portable],
                                         median_step(name, batch, args.steps, portable))
            print(f"| {name} | {batch} | {1000 * best[False]:.1f} | {1000 * best[True]:.1f} | "
                  f"{best[True] / best[False]:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
