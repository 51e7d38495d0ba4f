"""Each composition compiled ahead of time, at install: no compile when a
user first codes, and no numba loaded to code.

    python -m fade.statistics.ahead FOLDER [--jobs N] [--target CPU]

writes into FOLDER one extension module per composition of the table's
models (fade.statistics.compose: a model's parts that the predictor
tests), each holding the composition's entry points (`begin_streams`,
`begin_image`, `encode_range`, `decode_range`, `code_step`) and the coder's
`start_decoder` and `flush`, typed as fade.statistics.coding passes them
(the Tables of C-contiguous arrays that `Tables.build` makes), and one of
the kinds' steps that Python calls before and after coding (x86's
addresses, audio's residuals: fade.statistics.steps). setup.py runs
it as the build's extension step, into fade/statistics/compiled/; numba's
ahead-of-time compiler (numba.pycc) does the work, with the options each
function has at run time (the GIL released, numba's reference counts
where the function allocates), so the machine code is the one numba's
compiler at run time makes: the same streams and the same speed
(docs/results.md, "No compile at run time").

Each module is named for its composition, a digest of the package's
sources and a digest of the CPU's features (compose.compiled_name): built
for this CPU ("host"), it is used only where the sources are the ones it
was built from and the CPU has the same features; elsewhere (an edited
checkout, another machine, a model being measured) numba compiles at run
time as before.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

from fade.statistics.compose import compiled_name, composition_of


def compositions() -> dict[int, int]:
    """Each composition of a model fade codes with (the table's, the race's
    band models, the candidates), and the first model that has it."""
    from fade.statistics.models import MODEL_PARTS

    first: dict[int, int] = {}
    for model, parts in enumerate(MODEL_PARTS):
        first.setdefault(composition_of(parts), model)
    return first


def build(folder: Path, composition: int | None, model: int = 0, target: str = "host") -> Path:
    """Write the extension module of `composition` (typed with `model`'s
    Tables; None: the kinds' steps, fade.statistics.steps) into `folder`;
    its path."""
    import numba
    from numba.pycc import CC, compiler

    t = numba.types
    u8, i64 = t.Array(t.uint8, 1, "C"), t.int64
    entries = _steps(u8, i64) if composition is None else _entries(model, u8, i64)
    name = compiled_name(composition)
    cc = CC(name)
    cc.output_dir = str(folder)
    cc.target_cpu = target
    options = {}
    for entry, (function, signature) in entries.items():
        cc.export(entry, signature)(function.py_func)
        options[function.py_func] = function.targetoptions
    # pycc compiles every export with one set of flags, holding the GIL and
    # counting references; each function here keeps its run-time options.
    plain = compiler.compile_extra

    def as_at_run_time(typing, target_context, function, *args, **kwargs):
        flags = args[2] if len(args) > 2 else kwargs["flags"]
        own = options.get(function)
        if own is not None:
            flags = flags.copy()
            flags.release_gil = own.get("nogil", False)
            flags.nrt = own.get("_nrt", True)
            flags.boundscheck = own.get("boundscheck", None)
            if len(args) > 2:
                args = (*args[:2], flags, *args[3:])
            else:
                kwargs["flags"] = flags
        return plain(typing, target_context, function, *args, **kwargs)

    compiler.compile_extra = as_at_run_time
    try:
        cc.compile()
    finally:
        compiler.compile_extra = plain
    return next(folder.glob(f"{name}.*"))


def _entries(model: int, u8, i64) -> dict:
    """A composition's entry points and the coder's, with their signatures."""
    import numba

    from fade.config import StatisticsConfig
    from fade.statistics import coder
    from fade.statistics.coding import Tables
    from fade.statistics.compose import predictor_for
    from fade.statistics.models import MODEL_PARTS

    code = predictor_for(MODEL_PARTS[model], ahead=False)  # (numba's, to compile again)
    tables = Tables.build(StatisticsConfig(model=model).sized(1000), 1, 1000)
    t = numba.types
    table, coder_fields = numba.typeof(tables), numba.typeof(tables.coder)
    ints = t.Array(i64, 1, "C")
    return {
        "begin_streams": (code.begin_streams, t.void(table, ints, ints)),
        "begin_image": (code.begin_image, t.void(table, i64, i64, i64, i64, i64, i64)),
        "encode_range": (code.encode_range, i64(table, u8, i64, i64, u8)),
        "decode_range": (code.decode_range, i64(table, u8, u8, i64, i64)),
        "code_step": (code.code_step, i64(table, u8, u8, t.Array(i64, 2, "C"), i64, t.boolean)),
        "start_decoder": (coder.start_decoder, t.void(coder_fields, u8)),
        "flush": (coder.flush, t.void(coder_fields, u8)),
    }


def _steps(u8, i64) -> dict:
    """The kinds' steps before and after coding, with their signatures."""
    from numba import types as t

    from fade.statistics.steps import STEPS

    signatures = {"e8e9": u8(u8, t.boolean, t.boolean), "rip_relative": u8(u8, t.boolean),
                  "residuals": t.void(u8, u8, i64, i64, t.boolean, t.boolean)}
    return {name: (getattr(importlib.import_module(f"fade.statistics.{kind}"), function),
                   signatures[name]) for name, (kind, function) in STEPS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--target", default="host", help="LLVM's CPU name")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one module, in this process
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    table = compositions()
    if args.only == "steps":
        build(args.folder, None, target=args.target)
        return 0
    if args.only is not None:
        build(args.folder, int(args.only), table[int(args.only)], args.target)
        return 0
    print(f"fade: compiling the statistics for this CPU: the {len(table)} compositions of "
          f"the models and the kinds' steps, {args.jobs} at a time", file=sys.stderr)
    began = time.perf_counter()

    # A process each: a fresh one forgets each composition once it is written.
    def one(only: str) -> None:
        subprocess.run([sys.executable, "-m", "fade.statistics.ahead", str(args.folder),
                        "--target", args.target, "--only", only], check=True)

    one("steps")  # (alone first: where nothing can be built, it fails at once)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(one, map(str, table)))
    print(f"fade: compiled in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
