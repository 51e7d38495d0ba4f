"""How close the coding pipeline gets to the model's own speed.

    python scripts/pipeline_bench.py FILE [--preset NAME] [--batch N] [--groups G]
        [--coder-threads W] [--device DEV] [--threads N] [--limit BYTES]

Three runs on the same bytes, in one process, side by side:

- model only: the coding loop of fade.lockstep with coding switched off: the
  same Predictor, layout, groups and order of forwards, backwards and Adam
  steps, fed the file's real bytes, but no copies to the coders and no range
  coding;
- compress: fade.compress(method "fade") with the same settings;
- decompress: fade.decompress of that archive, checked byte for byte.

It prints a Markdown table with seconds, KB/s (1024 bytes per second of
original data) and the two ratios the pipeline is judged by: compress /
model only (the cost of coding on the model's path) and decompress /
compress. Each coding run also reports, from fade's per-step profile, the
share of its time the model's side spent waiting for coders.

Examples:

    # the CPU target of issue 3: paper preset on enwik6 (about an hour on two cores)
    python scripts/pipeline_bench.py ../shared/corpus/enwik6 --preset paper

    # a minute: the tiny preset on a slice, four groups, four coder processes
    python scripts/pipeline_bench.py ../shared/corpus/enwik6 --preset tiny --limit 100000 \\
        --groups 4 --coder-threads 4
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import fade  # first: fade.environment, before torch loads
import torch
from fade.device import deterministic, resolve_device
from fade.lockstep import Layout, StepTimings
from fade.network import Predictor
from fade.config import batch_size_for, coder_threads_for, groups_for, preset


def model_only_seconds(data: bytes, preset_name: str, batch: int, groups: int,
                       device: torch.device, threads: int, portable: bool,
                       seed: int = 0) -> float:
    """fade.lockstep.run's model work on `data` with coding switched off."""
    layout = Layout(len(data), batch, groups)
    symbols = torch.from_numpy(np.frombuffer(data, dtype=np.uint8).astype(np.int64)).to(device)
    starts = torch.from_numpy(layout.starts).to(device)
    with deterministic(threads):
        began = time.perf_counter()
        predictor = Predictor(preset(preset_name), batch, seed, device, groups, portable)
        for step in range(layout.steps):
            last, counts = step + 1 == layout.steps, layout.counts(step)
            for group, count in enumerate(counts):
                if count:
                    predictor.probabilities(group)
            if last:
                break
            for group, count in enumerate(counts):
                start = layout.group_rows[group][0]
                predictor.learn(group, symbols[starts[start:start + count] + step])
            predictor.update()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - began


def _waiting(profile: StepTimings) -> str:
    wall = sum(row["wall"] for row in profile.rows)
    wait = sum(row["wait"] for row in profile.rows)
    return f"{100 * wait / wall:.1f}%" if wall else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--preset", default="paper")
    parser.add_argument("--batch", type=int, help="sub-streams (default: fade's for the size)")
    parser.add_argument("--groups", type=int, help="groups (default: fade's for the device)")
    parser.add_argument("--coder-threads", type=int,
                        help="coder workers (default: fade's for the groups and CPUs)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help="torch CPU threads")
    parser.add_argument("--limit", type=int, help="use only the first LIMIT bytes")
    parser.add_argument("--native", action="store_true",
                        help="the native numeric profile (default: fade's choice, portable "
                             "where the CPU allows)")
    args = parser.parse_args(argv)

    with open(args.file, "rb") as file:
        data = file.read(args.limit) if args.limit else file.read()
    device = resolve_device(args.device)
    batch = batch_size_for(len(data), args.batch, args.preset, device.type)
    groups = groups_for(batch, args.groups, device.type)
    workers = coder_threads_for(groups, args.coder_threads, device.type, os.cpu_count())
    settings = dict(preset_name=args.preset, batch_size=batch, device=device.type,
                    threads=args.threads, seed=0, method="fade", groups=groups,
                    native=args.native)
    numerics = fade.device.choose_profile(device, args.native)
    print(f"{os.path.basename(args.file)}: {len(data)} bytes, preset {args.preset}, "
          f"batch {batch}, {groups} groups, {workers} coder workers, {device.type} "
          f"({fade.device.device_name(device)}), {args.threads} torch threads, "
          f"profile {numerics}, torch {torch.__version__}", flush=True)

    model = model_only_seconds(data, args.preset, batch, groups, device, args.threads,
                               numerics == "portable")
    print(f"model only: {model:.1f} s", flush=True)
    profile = StepTimings(device)
    began = time.perf_counter()
    blob = fade.compress(data, coder_threads=workers, profile=profile, **settings)
    packed = time.perf_counter() - began
    print(f"compress: {packed:.1f} s", flush=True)
    back_profile = StepTimings(device)
    began = time.perf_counter()
    back = fade.decompress(blob, device=device.type, coder_threads=workers,
                           profile=back_profile)
    unpacked = time.perf_counter() - began
    if back != data:
        print("MISMATCH: the decompressed bytes differ from the input", file=sys.stderr)
        return 1

    def speed(seconds: float) -> str:
        return f"{len(data) / 1024 / seconds:.2f}"

    print(f"\narchive: {len(blob)} bytes, {8 * len(blob) / max(1, len(data)):.3f} bits/byte, "
          "round trip exact\n")
    print("| run | seconds | KB/s | vs model only | vs compress | model side waiting |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| model only | {model:.1f} | {speed(model)} | 1.000 | | |")
    print(f"| compress | {packed:.1f} | {speed(packed)} | {packed / model:.3f} | 1.000 | "
          f"{_waiting(profile)} |")
    print(f"| decompress | {unpacked:.1f} | {speed(unpacked)} | {unpacked / model:.3f} | "
          f"{unpacked / packed:.3f} | {_waiting(back_profile)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
