"""Where a hybrid step's time goes: the network's forward, the softmax and
its copy to the coder, the statistics' bits, the backward, the Adam step,
the context update, each timed alone in one thread of control (no coder
worker, so nothing overlaps), on the first bytes of a real file.

    python scripts/hybrid_step.py FILE [--level default] [--preset P] [--batch B]
                                  [--threads N] [--steps N] [--native]

Prints one Markdown row: ms per step of each part, the step in all, and
the throughput it allows (batch bytes per step). The bits come from the
real statistics of the level on the real bytes, so the statistics' cost
is the one coding pays.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fade  # noqa: F401  (first: fade.environment, before torch loads)
import torch
import torch.nn.functional as F
from fade import single
from fade.device import deterministic
from fade.lockstep import Layout
from fade.network import Predictor
from fade.statistics import Statistics

PARTS = ("forward", "softmax+copy", "statistics", "backward", "adam", "context")


def profile(data: bytes, plan, steps: int, portable: bool) -> dict[str, float]:
    """Median ms of each part over `steps` steps (the first 4 left out)."""
    layout = Layout(len(data), plan.batch, 1)
    symbols = np.frombuffer(data, dtype=np.uint8)
    predictor = Predictor(plan.model, plan.batch, 0, torch.device("cpu"), 1, portable)
    statistics = Statistics(plan.statistics, layout.lengths) if plan.statistics else None
    rows = {part: [] for part in PARTS}
    for step in range(min(steps + 4, layout.steps - 1)):
        count = layout.counts(step)[0]
        targets_np = symbols[layout.starts[:count] + step]
        marks = [time.perf_counter()]
        logits = predictor.model(predictor.context, 0)
        marks.append(time.perf_counter())
        probs = torch.softmax(logits.detach(), dim=-1).numpy().copy()
        marks.append(time.perf_counter())
        if statistics is not None:
            statistics.encode(targets_np, probs[:count])
        marks.append(time.perf_counter())
        predictor.optimizer.zero_grad()
        targets = torch.from_numpy(targets_np.astype(np.int64))
        F.cross_entropy(logits, targets).backward()
        marks.append(time.perf_counter())
        predictor.optimizer.step()
        marks.append(time.perf_counter())
        predictor.context = torch.cat((predictor.context[:, 1:], targets[:, None]), dim=1)
        marks.append(time.perf_counter())
        if step >= 4:
            for part, begin, end in zip(PARTS, marks, marks[1:]):
                rows[part].append(1000 * (end - begin))
    return {part: float(np.median(times)) for part, times in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--level", default="default")
    parser.add_argument("--preset", default=None)
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--bytes", type=int, default=1 << 20, help="the file's first N bytes")
    parser.add_argument("--native", action="store_true")
    parser.add_argument("--header", action="store_true", help="print the table's header")
    args = parser.parse_args()
    data = open(args.file, "rb").read()[:args.bytes]
    plan = single.plan(len(data), level=args.level, preset_name=args.preset,
                       batch_size=args.batch, threads=args.threads, native=args.native)
    with deterministic(plan.threads):
        ms = profile(data, plan, args.steps, not args.native)
    total = sum(ms.values())
    if args.header:
        print("| preset | batch | threads | " + " | ".join(PARTS) + " | step | KB/s |")
        print("|---" * (len(PARTS) + 5) + "|")
    print(f"| {plan.preset} | {plan.batch} | {plan.threads} | "
          + " | ".join(f"{ms[part]:.2f}" for part in PARTS)
          + f" | {total:.2f} | {plan.batch / total:.1f} |")


if __name__ == "__main__":
    main()
