"""The race's evidence step by step: how much of the lockstep statistics'
bits the default level's network saves as it learns, against the need.

    python scripts/race_curve.py FILE... [--level default] [--preset P] [--batch B]

For each file, codes the statistics alone in file order and in lockstep
order, then runs the hybrid to its end, recording at 1/64, 1/32, ..., 3/4
of its steps the saving so far (1 - hybrid bits / lockstep statistics'
bits, on exactly the bytes coded) and the need (1 - file-order bits /
lockstep bits over the whole input). One Markdown row per file.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

import fade  # noqa: F401  (first: fade.environment)
from fade import race, single
from fade.config import LEVELS, preset
from fade.lockstep import Layout

FRACTIONS = (1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 3 / 4)


class Recorder:
    """A referee that never stops the hybrid, and keeps its bits."""

    def __init__(self, checkpoints):
        self.checkpoints = checkpoints
        self.bits = {}

    def lost(self, step: int, bits: float) -> bool:
        self.bits[step] = bits
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--level", default="default")
    parser.add_argument("--preset", default=None, help="the network (default: the level's)")
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--set", default="", metavar="FIELD=VALUE,...",
                        help="change fields of the preset's ModelConfig (a custom network)")
    parser.add_argument("--no-header", action="store_true")
    args = parser.parse_args()
    if not args.no_header:
        print("| file | preset | batch | need | "
              + " | ".join(f"1/{round(1 / f)}" if f < 0.5 else f"{f:g}" for f in FRACTIONS)
              + " | end | hybrid | alone | hybrid KB/s |")
        print("|---" * (len(FRACTIONS) + 8) + "|")
    for path in args.files:
        data = open(path, "rb").read()
        model = None
        if args.set:
            changes = dict(item.split("=") for item in args.set.split(","))
            base = preset(args.preset or LEVELS[args.level].preset)
            model = dataclasses.replace(base, **{name: type(getattr(base, name))(value)
                                                 for name, value in changes.items()})
        plan = single.plan(len(data), level=args.level, batch_size=args.batch,
                           **({"model": model} if model else {"preset_name": args.preset}))
        layout = Layout(len(data), plan.batch, plan.groups)
        alone, referee = race.against_hybrid(data, layout, plan.statistics, None,
                                             tuple((f, 0.0) for f in FRACTIONS))
        recorder = Recorder(referee.checkpoints)
        start = time.perf_counter()
        archive = single._compress_learned(data, plan, 0, None, None, recorder)
        seconds = time.perf_counter() - start
        savings = []
        for step in sorted(referee.checkpoints):
            lockstep_bits, _ = referee.checkpoints[step]
            savings.append(f"{1 - recorder.bits[step] / max(lockstep_bits, 1):+.2%}")
        end = 1 - 8 * len(archive) / referee.lockstep_bits
        print(f"| {os.path.basename(path)} | {plan.preset or args.set} | {plan.batch} | {referee.need:.2%} | "
              + " | ".join(savings) + f" | {end:+.2%} | {len(archive):,} | {len(alone):,} | "
              f"{len(data) / seconds / 1000:.2f} |", flush=True)


if __name__ == "__main__":
    main()
