"""Ratio and time against batch size: the measurements behind the default batch rule.

    python scripts/batch_sweep.py FILE [--preset NAME] [--batch 8,16,...] [--threads N]
                                 [--decompress] [--json OUT.jsonl]

For each batch size, compresses FILE with the learned model (method "fade",
so the size floor never substitutes a compact archive), and with
--decompress also decodes it and compares the bytes. Prints one Markdown
row per batch size as it finishes (and appends a JSON line to --json), so a
long sweep can be stopped and its rows kept. Times are wall-clock seconds of
the library call, after imports; KB/s is 1024 bytes of input per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fade  # noqa: E402  (first: fade.environment, before torch loads)
import torch  # noqa: E402
from fade.device import device_name, resolve_device  # noqa: E402
from fade.config import DEFAULT_PRESET, PRESETS  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--preset", choices=list(PRESETS), default=DEFAULT_PRESET)
    parser.add_argument("--batch", default="8,16,32,64,128,256,512",
                        help="comma-separated batch sizes (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch CPU threads (default: torch's)")
    parser.add_argument("--device", choices=fade.device.DEVICES, default="auto")
    parser.add_argument("--decompress", action="store_true",
                        help="also decode each archive and compare the bytes")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT.jsonl",
                        help="append one JSON line per batch size")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    data = args.file.read_bytes()
    batches = [int(b) for b in args.batch.split(",")]
    threads = args.threads or torch.get_num_threads()
    device = resolve_device(args.device)
    print(f"{args.file.name}: {len(data):,} bytes, preset {args.preset}, {threads} threads, "
          f"{device.type} ({device_name(device)}), torch {torch.__version__}", flush=True)
    print("| batch | steps | archive bytes | ratio | bits/byte | compress s | KB/s "
          "| decompress s | KB/s |", flush=True)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    status = 0
    for batch in batches:
        start = time.perf_counter()
        archive = fade.compress(data, preset_name=args.preset, batch_size=batch,
                                threads=threads, device=args.device, method="fade")
        compress_s = time.perf_counter() - start
        decompress_s = None
        if args.decompress:
            start = time.perf_counter()
            same = fade.decompress(archive) == data
            decompress_s = time.perf_counter() - start
            if not same:
                print(f"batch {batch}: ROUND TRIP MISMATCH", file=sys.stderr, flush=True)
                status = 1
        kib = len(data) / 1024
        row = dict(file=args.file.name, size=len(data), preset=args.preset, batch=batch,
                   steps=-(-len(data) // batch), archive=len(archive),
                   ratio=len(data) / len(archive), bits_per_byte=8 * len(archive) / len(data),
                   compress_s=compress_s, decompress_s=decompress_s, threads=threads,
                   device=device_name(device))
        decoded = ("| – | – |" if decompress_s is None
                   else f"| {decompress_s:.1f} | {kib / decompress_s:.2f} |")
        print(f"| {batch} | {row['steps']:,} | {len(archive):,} | {row['ratio']:.3f} "
              f"| {row['bits_per_byte']:.3f} | {compress_s:.1f} | {kib / compress_s:.2f} "
              f"{decoded}", flush=True)
        if args.json:
            with args.json.open("a") as out:
                out.write(json.dumps(row) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
