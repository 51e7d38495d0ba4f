"""The race's evidence step by step: how much the hybrid spends against the
statistics alone as its network learns.

    python scripts/race_curve.py FILE... [--level default] [--preset P] [--batch B]
                                 [--stop F]

For each file, runs the race's two passes (the level's statistics alone in
file order and with no network in the hybrid's lockstep order, fade.race),
then the hybrid, recording at 1/64, 1/32, ...,
3/4 of its steps:

the network's saving so far over the lockstep statistics (1 - hybrid bits
/ lockstep bits, on exactly the bytes coded), against the need (1 -
file-order bits / lockstep bits over the whole input): what the saving must
reach at the end for the hybrid to win. One Markdown row per file.

With `--against-file-order`, a second row per file: the hybrid's bits
against the file-order statistics' bits on the same bytes (each
sub-stream's first bytes), less 1, the evidence of a race with no lockstep
pass (one more file-order pass, with marks; at the end, the hybrid's
archive against the statistics').

`--stop F` stops the hybrid at fraction F of its steps (its end columns
then empty): the early evidence at a fraction of the cost. Also the
seconds of the reference passes and of the hybrid.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from fractions import Fraction

import numpy as np

import fade  # noqa: F401  (first: fade.environment)
from fade import kinds, race, single, statistics
from fade.config import LEVELS, preset
from fade.lockstep import Layout, Stopped

FRACTIONS = (1 / 64, 1 / 32, 3 / 64, 1 / 16, 5 / 64, 3 / 32, 1 / 8, 1 / 4, 1 / 2, 3 / 4)


class Recorder:
    """A referee that keeps the hybrid's bits at each checkpoint and stops it
    only at `stop` (never, if None)."""

    def __init__(self, checkpoints, stop: int | None = None):
        self.checkpoints = checkpoints
        self.bits = {}
        self.stop = stop

    def lost(self, step: int, bits: float) -> bool:
        self.bits[step] = bits
        return self.stop is not None and step >= self.stop


def file_order_bits(data: bytes, layout: Layout, config, steps) -> dict[int, int]:
    """For each of `steps`: the file-order statistics' bits on the bytes the
    hybrid codes before it (each sub-stream's first `step` bytes)."""
    starts, lengths = layout.starts, layout.lengths
    marks = np.concatenate([starts] + [starts + np.minimum(lengths, k) for k in steps])
    _, bits = statistics.encode_file_marked(data, config, marks)
    n = len(starts)
    return {k: int((bits[n * (i + 1):n * (i + 2)] - bits[:n]).sum())
            for i, k in enumerate(steps)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--level", default="default")
    parser.add_argument("--preset", default=None, help="the network (default: the level's)")
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--set", default="", metavar="FIELD=VALUE,...",
                        help="change fields of the preset's ModelConfig (a custom network)")
    parser.add_argument("--stop", type=float, default=None, metavar="F",
                        help="stop the hybrid at this fraction of its steps")
    parser.add_argument("--against-file-order", action="store_true",
                        help="a second row: the hybrid against the file-order statistics")
    parser.add_argument("--no-header", action="store_true")
    args = parser.parse_args()
    if not args.no_header:
        print("| file | preset | batch | need | "
              + " | ".join(str(Fraction(f)) for f in FRACTIONS)
              + " | end | hybrid | alone | hybrid KB/s | reference s | hybrid s |")
        print("|---" * (len(FRACTIONS) + 10) + "|")
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
        start = time.perf_counter()
        config = race.file_order(plan.statistics.for_kind(kinds.Screen.of(data).kind), len(data))
        referee = race.Race.start(race.alone_pass(data, config, None), data, layout,
                                  plan.statistics, tuple((f, 0.0) for f in FRACTIONS))
        alone = referee.alone()
        need = referee.need()
        at, lockstep = referee.lockstep_pass.result()
        reference = time.perf_counter() - start
        stop = None if args.stop is None else int(layout.steps * args.stop)
        recorder = Recorder(referee.checkpoints, stop)
        start = time.perf_counter()
        try:
            archive = single._compress_learned(data, plan, 0, None, None, recorder)
        except Stopped:
            archive = None
        seconds = time.perf_counter() - start
        savings = [f"{1 - recorder.bits[k] / max(at[k], 1):+.2%}" if k in recorder.bits else ""
                   for k in steps]
        end, written, speed = "", "", ""
        if archive is not None:
            end = f"{1 - 8 * len(archive) / lockstep:+.2%}"
            written, speed = f"{len(archive):,}", f"{len(data) / seconds / 1000:.2f}"
        name = os.path.basename(path)
        print(f"| {name} | {plan.preset or args.set} | {plan.batch} | {need:.2%} | "
              + " | ".join(savings) + f" | {end} | {written} | {len(alone):,} | "
              f"{speed} | {reference:.1f} | {seconds:.1f} |", flush=True)
        if args.against_file_order:
            ordered = file_order_bits(data, layout, config, steps)
            excess = [f"{recorder.bits[k] / max(ordered[k], 1) - 1:+.2%}"
                      if k in recorder.bits else "" for k in steps]
            final = "" if archive is None else f"{len(archive) / len(alone) - 1:+.2%}"
            print(f"| {name}: hybrid / file order - 1 | | | | " + " | ".join(excess)
                  + f" | {final} | | | | | |", flush=True)


if __name__ == "__main__":
    main()
