"""Float data benchmark: exponent codecs, classic compressors, strong mode.

    python scripts/float_bench.py codecs [--megabytes 64] [--sigma 0.02] [--device cuda]
    python scripts/float_bench.py exact [FILE...]
    python scripts/float_bench.py strong FILE... [--preset balanced]

`codecs`: a BF16 Gaussian tensor (float32 N(0, sigma) rounded to nearest
even), every exponent codec's ratio and encode/decode throughput on one CPU
core (the process pins itself to one core and one torch thread), the same
bytes through zstd -3, zstd -19 and xz -6 (the command-line tools, timed the
same way), and the exponent coverage: the counted top-k shares for
k = 1..7 and the share inside ZipCCL's derived window. With --device, also
the torch path of top16 (fade/floats/on_device.py) on that device, timed
from host bytes to host bytes and with the tensor already on the device.

`exact`: round trips through fade.compress/decompress in fast mode with
every codec and in strong mode (tiny preset), on Gaussian tensors of several
sigmas with NaN (with payloads), +-Inf, -0.0 and subnormals appended, for
BF16, FP16 and FP32 in both byte orders, and on each FILE (.npy or
.safetensors: a real checkpoint). Compares bytes; prints one line per case.

`strong`: for each FILE, the archive size of the plain model (--method fade,
no split), fast mode and strong mode, with the same preset, each decoded
and compared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fade  # noqa: E402
from fade.format.archive import unpack  # noqa: E402
from fade.floats import CODEC_CHOICES, sigma_of  # noqa: E402
from fade.floats.codecs import WINDOW, window_base  # noqa: E402
from fade.floats.layout import FLOAT_TYPES, split  # noqa: E402


def bf16_gaussian(count: int, sigma: float, seed: int = 0) -> np.ndarray:
    """BF16 words of N(0, sigma), rounded to nearest even from float32."""
    bits = (np.random.default_rng(seed).standard_normal(count, dtype=np.float32)
            * np.float32(sigma)).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def one_core() -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import torch
    torch.set_num_threads(1)


def best_of(repeats: int, func):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def cli_codec(name: str, args: list[str], data: bytes) -> tuple[int, float, float]:
    """(size, encode s, decode s) of a command-line compressor, through files."""
    with tempfile.TemporaryDirectory() as tmp:
        src, packed = Path(tmp, "in"), Path(tmp, "in.x")
        src.write_bytes(data)
        start = time.perf_counter()
        with open(packed, "wb") as out:
            subprocess.run([name, *args, "-c", str(src)], stdout=out, check=True)
        encode = time.perf_counter() - start
        start = time.perf_counter()
        back = subprocess.run([name, "-d", "-c", str(packed)], capture_output=True,
                              check=True).stdout
        decode = time.perf_counter() - start
        assert back == data, name
        return packed.stat().st_size, encode, decode


def run_codecs(args) -> None:
    one_core()
    ftype = FLOAT_TYPES["bf16"]
    count = args.megabytes * 1024 * 1024 // 2
    words = bf16_gaussian(count, args.sigma)
    data = words.tobytes()
    mb = len(data) / 1e6
    print(f"BF16 N(0, {args.sigma}) tensor: {count} values, {len(data)} bytes; one core "
          f"(pid affinity {sorted(os.sched_getaffinity(0))}), best of {args.repeats}")
    exponents, _ = split(words, ftype)
    histogram = np.bincount(exponents, minlength=256)
    shares = np.sort(histogram)[::-1].cumsum() / count
    sigma = sigma_of(words, ftype)
    base = window_base(sigma, ftype)
    window = histogram[base:base + WINDOW].sum() / count
    print("top-k exponent coverage, k=1..7: "
          + ", ".join(f"{100 * s:.1f}%" for s in shares[:7])
          + "  (ZipCCL: 29.9, 57.2, 75.7, 85.5, 90.4, 95.0, 97.5%)")
    print(f"derived window (sigma {sigma:.5f} from a sample, base exponent field {base}, "
          f"x = {base - ftype.bias}): {100 * window:.2f}% of values")
    print()
    print("| codec | bytes | ratio | encode MB/s | decode MB/s |")
    print("|---|---:|---:|---:|---:|")
    for codec in [c for c in CODEC_CHOICES if c != "rlh"] + ["rlh"]:
        encode, archive = best_of(args.repeats, lambda: fade.compress(
            data, method="floats", dtype="bf16", float_mode="fast", float_codec=codec))
        decode, back = best_of(args.repeats, lambda: fade.decompress(archive))
        assert back == data, codec
        chosen = unpack(archive)[0].segments[0].codec
        label = f"fade {codec}" + (f" ({chosen})" if codec == "auto" else "")
        print(f"| {label} | {len(archive)} | {len(data) / len(archive):.4f} | "
              f"{mb / encode:.1f} | {mb / decode:.1f} |")
    if args.device:
        run_device(args.device, words, data, args.repeats)
    if args.exponents_only:
        return
    for name, level in (("zstd", ["-3"]), ("zstd", ["-19"]), ("xz", ["-6"])):
        if shutil.which(name) is None:
            print(f"| {name} {level[0]} | not installed | | | |")
            continue
        size, encode, decode = cli_codec(name, level + (["-T1", "-q"] if name == "zstd" else
                                                         ["-T1"]), data)
        print(f"| {name} {level[0]} | {size} | {len(data) / size:.4f} | {mb / encode:.1f} | "
              f"{mb / decode:.1f} |")


def run_device(device_name: str, words: np.ndarray, data: bytes, repeats: int) -> None:
    import torch
    from fade.floats import on_device
    device = torch.device(device_name)
    ftype = FLOAT_TYPES["bf16"]
    mb = len(data) / 1e6

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    resident = torch.from_numpy(words.astype(np.int32)).to(device)
    sync()
    encode, (stream, rest) = best_of(repeats, lambda: on_device.encode_top16(resident, ftype))
    decode, back = best_of(repeats, lambda: on_device.decode_top16(stream, rest, words.size,
                                                                   ftype, device))
    assert back.tobytes() == data
    label = f"fade top16 on {device_name} (torch, tensor resident)"
    print(f"| {label} | {len(stream) + len(rest)} | {len(data) / (len(stream) + len(rest)):.4f} | "
          f"{mb / encode:.1f} | {mb / decode:.1f} |")


def special_values(ftype_name: str) -> np.ndarray:
    """NaN (quiet, signalling, with payloads, negative), +-Inf, +-0, subnormals, extremes."""
    table = {
        "bf16": [0x7FC0, 0x7FC1, 0xFF81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x807F,
                 0x7F7F, 0xFF7F, 0x3F80],
        "fp16": [0x7E00, 0x7E01, 0xFC01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF,
                 0x7BFF, 0xFBFF, 0x3C00],
        "fp32": [0x7FC00000, 0x7FC00001, 0xFF800001, 0x7F800000, 0xFF800000, 0x0, 0x80000000,
                 0x1, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000],
    }
    return np.array(table[ftype_name], FLOAT_TYPES[ftype_name].uint())


def gaussian_words(ftype_name: str, count: int, sigma: float, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(count) * sigma
    if ftype_name == "bf16":
        return bf16_gaussian(count, sigma, seed)
    with np.errstate(over="ignore"):
        native = x.astype(np.float16 if ftype_name == "fp16" else np.float32)
    return native.view(FLOAT_TYPES[ftype_name].uint())


def run_exact(args) -> None:
    cases = 0
    for name in FLOAT_TYPES:
        for sigma in (1e-3, 0.02, 1.0, 300.0):
            words = np.concatenate((gaussian_words(name, 20000, sigma, 1), special_values(name)))
            for big in (False, True):
                data = words.astype(FLOAT_TYPES[name].uint(big)).tobytes()
                settings = [dict(float_mode="fast", float_codec=c) for c in CODEC_CHOICES]
                for setting in settings:
                    archive = fade.compress(data, method="floats", dtype=name, **setting)
                    assert fade.decompress(archive) == data
                    cases += 1
                if big:  # raw arrays are little-endian; big-endian comes from .npy
                    continue
                archive = fade.compress(data, method="floats", dtype=name, float_mode="strong",
                                        preset_name="tiny")
                assert fade.decompress(archive) == data
                cases += 1
            print(f"{name} sigma {sigma:g} (+{special_values(name).size} special values): "
                  f"every codec, both modes, exact")
    for path in args.files:
        data = Path(path).read_bytes()
        for codec in CODEC_CHOICES:
            archive = fade.compress(data, method="floats", float_mode="fast", float_codec=codec)
            assert fade.decompress(archive) == data, (path, codec)
            header = unpack(archive)[0]
            cases += 1
            print(f"{path}: fast {codec}: {len(data)} -> {len(archive)} bytes "
                  f"({len(data) / len(archive):.3f}), {header.source}, "
                  f"{sum(s.type != 'bytes' for s in header.segments)} float segments, exact")
    print(f"{cases} round trips, all bit-exact")


def run_strong(args) -> None:
    import torch
    torch.set_num_threads(args.threads)
    print("| file | bytes | plain model | fast | strong | strong vs plain |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in args.files:
        data = Path(path).read_bytes()
        sizes = {}
        for label, settings in (("plain", dict(method="fade")),
                                ("fast", dict(method="floats", float_mode="fast")),
                                ("strong", dict(method="floats", float_mode="strong"))):
            start = time.perf_counter()
            archive = fade.compress(data, preset_name=args.preset, threads=args.threads,
                                    **settings)
            encode = time.perf_counter() - start
            assert fade.decompress(archive) == data, (path, label)
            sizes[label] = len(archive)
            print(f"  {path}: {label}: {len(archive)} bytes, encode {encode:.1f} s",
                  file=sys.stderr)
        change = 100 * (sizes["strong"] / sizes["plain"] - 1)
        print(f"| {Path(path).name} | {len(data)} | {sizes['plain']} | {sizes['fast']} | "
              f"{sizes['strong']} | {abs(change):.2f}% {'larger' if change > 0 else 'smaller'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    codecs = sub.add_parser("codecs")
    codecs.add_argument("--megabytes", type=int, default=64)
    codecs.add_argument("--sigma", type=float, default=0.02)
    codecs.add_argument("--repeats", type=int, default=3)
    codecs.add_argument("--exponents-only", action="store_true",
                        help="skip zstd and xz")
    codecs.add_argument("--device", help="also time the torch top16 path there (cpu, cuda)")
    exact = sub.add_parser("exact")
    exact.add_argument("files", nargs="*")
    strong = sub.add_parser("strong")
    strong.add_argument("files", nargs="+")
    strong.add_argument("--preset", default="balanced")
    strong.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    {"codecs": run_codecs, "exact": run_exact, "strong": run_strong}[args.command](args)


if __name__ == "__main__":
    main()
