"""What each part of a statistics model costs in time and gives in bytes.

    python scripts/part_costs.py [--level default] [--kind text] [--rounds 3]
                                 [--parts F_A,F_B] FILE...

Codes each FILE in file order (fade.statistics.encode_file, the level's
settings sized to the file, in this process, its compiled code warmed up on
the file's first 2 KB) with the level's model for the kind, then with that
model less each of its parts in turn (--parts: those named; with the parts
that need it, fade.statistics.parts.without; a measured model, never
archived: fade.statistics.coding.measured_model), and prints for each part
the time it costs (the model's encode time less the time without it, the
best of --rounds each, the whole model timed again beside each part's run:
this machine's speed swings by a third from one minute to the next) and the
bytes it saves. The rows do not add up to the whole: a part's code can be
shared with another's (F_LAYERS' final mixer is where F_SETS' weight sets
go), and the loop's machinery (hashing and finding the contexts' slots, the
nodes and their state maps, the mixer's two weight sets, the APMs, the
coder) is in every model, measured here as the time of the model with none
of its parts (model 0's computation, fast's for text) and, for each file,
of the whole process around it left out.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's fade

from fade import statistics  # noqa: E402
from fade.config import LEVELS, StatisticsConfig  # noqa: E402
from fade.statistics.coding import measured_model  # noqa: E402
from fade.statistics.models import LEVEL_MODELS, MODEL_PARTS  # noqa: E402
from fade.statistics.parts import PART_NAMES, part_names, without  # noqa: E402


def timed(data: bytes, config: StatisticsConfig, parts: int, rounds: int) -> tuple[float, int]:
    """(best seconds of `rounds`, bytes) of encode_file(data) with `config`
    but its model's parts `parts`."""
    with measured_model(parts) as model:
        measured = dataclasses.replace(config, model=model)
        statistics.encode_file(data[:2048], measured)  # compiled (or loaded) first
        best, size = float("inf"), 0
        for _ in range(rounds):
            start = time.perf_counter()
            size = len(statistics.encode_file(data, measured))
            best = min(best, time.perf_counter() - start)
        return best, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--level", default="default", choices=LEVELS)
    parser.add_argument("--kind", default="text")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", default="", help="only these parts (F_ names, by commas)")
    args = parser.parse_args()
    model = LEVEL_MODELS[args.level, args.kind]
    parts = MODEL_PARTS[model]
    asked = {name for name in args.parts.split(",") if name}
    unknown = asked - {name for bit, name in PART_NAMES.items() if parts & bit}
    if unknown:
        parser.error(f"model {model} has no part {', '.join(sorted(unknown))}")
    for name in args.files:
        data = Path(name).read_bytes()
        config = StatisticsConfig(model=model).sized(len(data))
        whole, size = timed(data, config, parts, args.rounds)
        bare, bare_size = timed(data, config, 0, args.rounds)
        kb = len(data) / 1024
        print(f"\n{Path(name).name}, {len(data):,} bytes, level {args.level}'s model for "
              f"{args.kind} (model {model}): {whole:.2f} s, {kb / whole:.1f} KB/s, "
              f"{size:,} bytes; with none of its parts {bare:.2f} s ({bare / whole:.0%} of "
              f"its time), {bare_size:,} bytes\n")
        print("| part (and those that need it) | time it costs | share of the model's | "
              "bytes it saves |")
        print("|---|---:|---:|---:|")
        for bit, part in sorted(PART_NAMES.items()):
            if not parts & bit or (asked and part not in asked):
                continue
            less = without(parts, bit)
            seconds, smaller = timed(data, config, less, args.rounds)
            whole = timed(data, config, parts, args.rounds)[0]  # (beside it)
            label = " + ".join([part] + [name for name in part_names(parts & ~less & ~bit)])
            print(f"| {label} | {whole - seconds:+.2f} s | {(whole - seconds) / whole:+.0%} | "
                  f"{smaller - size:+,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
