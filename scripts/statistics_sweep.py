"""Code files with the statistics alone and print their sizes (and speed).

    PYTHONPATH=. python scripts/statistics_sweep.py [--level L] [--model M] [--lockstep B] FILE...

Prints, per file, the statistics archive's size (fade.statistics.encode_file
with level L's settings, fast's unless --level, sized to the file; the
level's model for text unless --model, a number or a candidate's name
(fade.statistics.models.CANDIDATES); its slots at most unless
--table-bits, plus the
statistics archive's header) and the coding speed (in this process, KB/s of
1024 bytes, compiled loops warmed up); with --lockstep B, the keyed lockstep statistics without the
network over B equal contiguous sub-streams (fade's hybrid layout, no network).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from fade import statistics
from fade.format.archive import pack_statistics
from fade.config import LEVELS
from fade.statistics.models import CANDIDATE_MODELS


def fast_size(data: bytes, config) -> tuple[int, float]:
    start = time.perf_counter()
    stream = statistics.encode_file(data, config.sized(len(data)))
    seconds = time.perf_counter() - start
    return len(pack_statistics(config.sized(len(data)), data, stream)), seconds


def lockstep_stream(data: bytes, config, streams: int) -> bytes:
    """`data` coded by the keyed statistics `config` over `streams` equal
    contiguous sub-streams, a byte of each a step (the hybrid's order, no
    network; also scripts/stream_hashes.py's)."""
    length = -(-len(data) // streams)
    lengths = np.array([min(length, len(data) - s * length) for s in range(streams)])
    lengths = lengths[lengths > 0]
    config = dataclasses.replace(config, keyed=True).sized(len(data))  # one group
    coder = statistics.Statistics(config, lengths)
    source = np.frombuffer(data, dtype=np.uint8)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    for step in range(int(lengths.max())):
        active = int((lengths > step).sum())  # the longest streams come first
        coder.encode(source[starts[:active] + step], None)
    return coder.finish()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--level", default="fast", choices=sorted(LEVELS),
                        help="whose statistics settings (fast's unless given)")
    parser.add_argument("--model", default=None,
                        help="StatisticsConfig.model, or a candidate model's name")
    parser.add_argument("--mixer-rate", type=int, default=None, help="StatisticsConfig.mixer_rate")
    parser.add_argument("--table-bits", type=int, default=None,
                        help="StatisticsConfig.table_bits before sizing (the level's unless given)")
    parser.add_argument("--lockstep", type=int, default=0, help="B sub-streams, keyed")
    args = parser.parse_args()
    config = LEVELS[args.level].statistics
    if args.model is not None:
        model = CANDIDATE_MODELS[args.model] if args.model in CANDIDATE_MODELS else int(args.model)
        config = dataclasses.replace(config, model=model)
    if args.mixer_rate is not None:
        config = dataclasses.replace(config, mixer_rate=args.mixer_rate)
    if args.table_bits is not None:
        config = dataclasses.replace(config, table_bits=args.table_bits)
    statistics.encode_file(b"warm up the compiled loops", config)
    total = 0
    for name in args.files:
        data = open(name, "rb").read()
        if args.lockstep:
            size = len(lockstep_stream(data, config, args.lockstep))
            print(f"{name}\tlockstep B={args.lockstep}\t{size}", flush=True)
        else:
            size, seconds = fast_size(data, config)
            print(f"{name}\t{size}\t{len(data) / 1024 / max(seconds, 1e-9):.0f} KB/s", flush=True)
        total += size
    print(f"total\t{total}")


if __name__ == "__main__":
    main()
