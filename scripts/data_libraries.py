"""fade in the data libraries, measured on real data: zarr arrays with the
fade codec against zarr's default codec and numcodecs' LZMA, a CSV through
fsspec and pandas against gzip and xz, and a folder through shutil's
"fadetar" against its gztar and xztar.

    python scripts/data_libraries.py [--csv FILE] [--folder DIR] [NPZ_OR_NPY ...]
    python scripts/data_libraries.py --float-path [NPZ_OR_NPY ...]

Arrays: every numeric array of 64 KiB or more in the .npz and .npy files
given (default: SciPy's boost.npz test arrays, float64, and its Sobol
direction numbers, int64, found as scripts/heldout.py finds SciPy), each
written as a zarr v3 array (chunks of at most 1 MiB) with each codec, read
back in this process and compared element by element, the fade ones also
read in a fresh process (the codec found by its entry point). CSV (default:
the first 1 MiB of lines of /usr/share/package-lists/pypi.tsv): written
through `fsspec.open(..., compression="infer")`, read back by pandas in a
fresh process and compared with pandas' read of the plain file. Folder
(default: this checkout's docs/): `shutil.make_archive` with each format,
unpacked in a fresh process and compared file by file. Prints Markdown
tables of bytes and seconds; exits 1 on any mismatch.

`--float-path` measures only whether fade's float path would pay in the
codecs: the float arrays, as float32 (the widest type it reads), coded as
bytes by the default level against the same with `float_mode="fast"`
(exponents by their codec, sign and mantissa raw), each checked by a round
trip.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SCIPY = "~/.pyenv/versions/*/lib/python3*/site-packages/scipy/"
DEFAULT_ARRAYS = [SCIPY + "special/tests/data/boost.npz", SCIPY + "stats/_sobol_direction_numbers.npz"]
DEFAULT_CSV = "/usr/share/package-lists/pypi.tsv"
CHUNK_BYTES = 1 << 20


def found(pattern: str) -> str | None:
    paths = glob.glob(os.path.expanduser(pattern))
    return paths[0] if paths else None


def arrays_of(path: str) -> dict[str, np.ndarray]:
    loaded = np.load(path, allow_pickle=False)
    items = loaded.items() if hasattr(loaded, "files") else [("", loaded)]
    name = Path(path).stem
    return {f"{name}:{key}" if key else name: np.ascontiguousarray(array)
            for key, array in items if array.dtype.kind in "iuf" and array.nbytes >= 1 << 16}


def fresh(code: str, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(REPO)}).stdout


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stored_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*")
               if path.is_file() and path.name != "zarr.json")


def measure_arrays(arrays: dict[str, np.ndarray], scratch: Path) -> bool:
    import numcodecs.zarr3
    import zarr
    from fade.zarr import FadeCodec
    from zarr.codecs import ZstdCodec

    codecs = {"fade fast": FadeCodec(level="fast"), "fade default": FadeCodec(level="default"),
              "zarr default (zstd 0)": ZstdCodec(level=0),
              "numcodecs LZMA": numcodecs.zarr3.LZMA()}
    print("| array | dtype | shape | bytes | " + " | ".join(codecs) + " |")
    print("|---|---|---|---:|" + "---:|" * len(codecs))
    totals = dict.fromkeys(codecs, 0)
    seconds = dict.fromkeys(codecs, 0.0)
    ok, check = True, {}
    for number, (name, array) in enumerate(arrays.items()):
        row_length = array.nbytes // array.shape[0]
        chunks = (max(1, CHUNK_BYTES // row_length),) + array.shape[1:]
        cells = []
        for label, codec in codecs.items():
            path = scratch / f"{number}-{label.split()[0]}{len(label)}.zarr"
            start = time.perf_counter()
            written = zarr.create_array(path, shape=array.shape, dtype=array.dtype,
                                        chunks=chunks, compressors=codec)
            written[:] = array
            seconds[label] += time.perf_counter() - start
            back = zarr.open_array(path, mode="r")[:]
            if back.tobytes() != array.tobytes():
                print(f"MISMATCH: {name} with {label}", file=sys.stderr)
                ok = False
            if label.startswith("fade"):
                check[str(path)] = digest(array.tobytes())
            size = stored_bytes(path)
            totals[label] += size
            cells.append(f"{size:,}")
        print(f"| {name} | {array.dtype} | {array.shape} | {array.nbytes:,} | "
              + " | ".join(cells) + " |")
    raw = sum(array.nbytes for array in arrays.values())
    print(f"| **total** | | | {raw:,} | " + " | ".join(f"**{totals[label]:,}**"
                                                     for label in codecs) + " |")
    print("| seconds to write | | | | " + " | ".join(f"{seconds[label]:.1f}" for label in codecs)
          + " |")
    lines = fresh("import hashlib, sys, zarr\n"
                  "for path in sys.argv[1:]:\n"
                  "    print(path, hashlib.sha256(zarr.open_array(path, mode='r')[:]"
                  ".tobytes()).hexdigest())\n", *check).splitlines()
    if dict(line.split() for line in lines) != check:
        print("MISMATCH: a fade array read in a fresh process", file=sys.stderr)
        ok = False
    print(f"\nEvery array read back equal here; the fade ones in a fresh process too: {ok}")
    return ok


def measure_csv(path: str, scratch: Path) -> bool:
    import fsspec
    import pandas

    import fade.fsspec  # noqa: F401

    with open(path, "rb") as file:
        data = file.read(CHUNK_BYTES)
    data = data[:data.rfind(b"\n") + 1]
    plain = scratch / Path(path).name
    plain.write_bytes(data)
    archive = str(plain) + ".fade"
    start = time.perf_counter()
    with fsspec.open(archive, "wb", compression="infer") as file:
        file.write(data)
    elapsed = time.perf_counter() - start
    separator = "\t" if path.endswith(".tsv") else ","
    expected = pandas.read_csv(plain, sep=separator)
    read = fresh("import hashlib, sys, fsspec, fade, pandas\n"
                 "with fsspec.open(sys.argv[1], 'rt', compression='infer') as file:\n"
                 "    table = pandas.read_csv(file, sep=sys.argv[2])\n"
                 "print(hashlib.sha256(table.to_csv().encode()).hexdigest())\n",
                 archive, separator).strip()
    ok = read == digest(expected.to_csv().encode())
    print(f"\n| {Path(path).name}, {len(data):,} bytes, {expected.shape[0]:,} rows | bytes |")
    print("|---|---:|")
    print(f"| fade (fsspec, the default level, {elapsed:.1f} s) | "
          f"{os.path.getsize(archive):,} |")
    print(f"| gzip -9 | {len(gzip.compress(data, 9)):,} |")
    print(f"| xz -9 | {len(lzma.compress(data, preset=9)):,} |")
    print(f"\npandas read the same table through fsspec in a fresh process: {ok}")
    return ok


def measure_folder(folder: str, scratch: Path) -> bool:
    import fade  # noqa: F401  (registers fadetar)

    source = Path(folder).resolve()
    want = {path.relative_to(source).as_posix(): digest(path.read_bytes())
            for path in source.rglob("*") if path.is_file()}
    print(f"\n| {source.name}/, {len(want)} files, "
          f"{sum((source / name).stat().st_size for name in want):,} bytes | bytes | seconds |")
    print("|---|---:|---:|")
    ok = True
    for form in ("fadetar", "gztar", "xztar"):
        start = time.perf_counter()
        name = shutil.make_archive(str(scratch / form), form, source.parent, source.name)
        elapsed = time.perf_counter() - start
        into = scratch / f"{form}-out"
        fresh("import sys, shutil, fade; shutil.unpack_archive(sys.argv[1], sys.argv[2])",
              name, str(into))
        got = {path.relative_to(into / source.name).as_posix(): digest(path.read_bytes())
               for path in (into / source.name).rglob("*") if path.is_file()}
        ok &= got == want
        print(f"| {form} | {os.path.getsize(name):,} | {elapsed:.1f} |")
    print(f"\nEach unpacked in a fresh process to the same files: {ok}")
    return ok


def measure_float_path(arrays: dict[str, np.ndarray]) -> bool:
    import fade

    print("| array, as float32 | bytes | as bytes (default) | float_mode fast |")
    print("|---|---:|---:|---:|")
    ok, totals = True, [0, 0, 0]
    for name, array in arrays.items():
        if array.dtype.kind != "f":
            continue
        with np.errstate(over="ignore"):
            data = array.astype(np.float32).tobytes()
        sizes = []
        for options in ({}, {"float_mode": "fast", "dtype": "fp32"}):
            archive = fade.compress(data, level="default", **options)
            ok &= fade.decompress(archive) == data
            sizes.append(len(archive))
        for at, size in enumerate([len(data), *sizes]):
            totals[at] += size
        print(f"| {name} | {len(data):,} | {sizes[0]:,} | {sizes[1]:,} |")
    print(f"| **total** | {totals[0]:,} | **{totals[1]:,}** | **{totals[2]:,}** |")
    print(f"\nEvery archive decoded to its input: {ok}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("arrays", nargs="*", help=".npz or .npy files")
    parser.add_argument("--csv", default=DEFAULT_CSV)
    parser.add_argument("--folder", default=str(REPO / "docs"))
    parser.add_argument("--float-path", action="store_true",
                        help="only: the float arrays as float32, as bytes or by the float path")
    args = parser.parse_args()
    paths = args.arrays or [path for path in map(found, DEFAULT_ARRAYS) if path]
    arrays = {name: array for path in paths for name, array in arrays_of(path).items()}
    if args.float_path:
        return 0 if measure_float_path(arrays) else 1
    with tempfile.TemporaryDirectory() as scratch:
        ok = measure_arrays(arrays, Path(scratch))
        if os.path.exists(args.csv):
            ok &= measure_csv(args.csv, Path(scratch))
        ok &= measure_folder(args.folder, Path(scratch))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
