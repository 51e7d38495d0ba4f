"""Do the statistics' archives decode, and encode the same, on another machine?

    python scripts/portability_check.py make DIR FILE... [--levels fast,default,max-statistics]
    python scripts/portability_check.py check DIR --out OUT

`make` compresses each FILE at each level (and the largest file once more in
frames, `-T 2 --frame-size 64K`), each by a fresh `python -m fade`
process, into DIR, with DIR/manifest.json: for each archive the command's
options, the input's path (as given, relative to the working directory) and
SHA-256, the archive's SHA-256, and the machine that made it.

`check`, run on the other machine from a checkout where the same input paths
hold the same bytes (tracked files travel with the tree; others in DIR's
manifest must be carried), does for each archive:

- decode: the archive `make` wrote, decoded on this machine by a fresh
  `fade -d -c` process and compared with the input's SHA-256;
- re-encode: the input compressed on this machine with the same options by
  a fresh process; its archive must be the same bytes as `make`'s (the
  statistics are integer-only, so any CPU computes the same probabilities);
- and that archive decoded on this machine too.

With --archives the archives made by `check` are kept in OUT; --only NAME
checks the archives whose names hold NAME. It writes OUT/portability.json
and OUT/portability.md (rewritten after every archive, so a run cut short
keeps what it did) and exits 1 if any archive
failed. Levels fast and default are the portable ones; level max's network
replays only on the same torch build, which is not this check's business.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import numpy
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numba": numba.__version__, "numpy": numpy.__version__,
            "platform": platform.platform()}


def fade(args: list[str], data: bytes | None = None) -> tuple[bytes, float]:
    """One fresh `python -m fade` process; its standard output and seconds."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fade", "-q", *args], input=data,
                          capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"fade {' '.join(args)}: exit {done.returncode}: "
                           f"{done.stderr.decode(errors='replace').strip()[-400:]}")
    return done.stdout, seconds


def options_of(level: str) -> list[str]:
    """fade's options for a level: `fast`, `default`, or `max-statistics` (level
    max's statistics alone, as portable as the lower levels)."""
    name, _, method = level.partition("-")
    return ["--level", name] + (["--method", method] if method else [])


def make(folder: Path, files: list[str], levels: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    cases = [(name, options_of(level), level) for name in files for level in levels]
    largest = max(files, key=lambda name: Path(name).stat().st_size)
    cases.append((largest, [*options_of(levels[-1]), "-T", "2", "--frame-size", "64K"],
                  f"{levels[-1]}-frames"))
    entries = []
    for name, options, label in cases:
        data = Path(name).read_bytes()
        archive, seconds = fade(["-c", *options, name])
        target = folder / f"{Path(name).name}.{label}.fade"
        target.write_bytes(archive)
        entries.append({"input": name, "input_bytes": len(data), "input_sha256": sha256(data),
                        "options": options, "archive": target.name,
                        "archive_bytes": len(archive), "archive_sha256": sha256(archive),
                        "seconds": round(seconds, 2)})
        print(f"{target.name}: {len(data):,} -> {len(archive):,} bytes, {seconds:.1f} s",
              flush=True)
    manifest = {"made_on": machine(), "archives": entries}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def table(report: dict) -> str:
    made, here = report["made_on"], report["checked_on"]
    # "there": the machine that checks, as against the one that made them.
    lines = [f"Archives made on {made['cpu']} ({made['cores']} CPUs; Python {made['python']}, "
             f"numba {made['numba']}), checked on {here['cpu']} ({here['cores']} CPUs; "
             f"Python {here['python']}, numba {here['numba']}).", "",
             "| archive | input bytes | archive bytes | decoded there, same bytes | "
             "re-encoded there, same archive | that archive decodes |",
             "|---|---:|---:|---|---|---|"]
    for row in report["rows"]:
        lines.append(f"| {row['archive']} | {row['input_bytes']:,} | {row['archive_bytes']:,} | "
                     f"{row['decoded']} | {row['re_encoded']} | {row['redecoded']} |")
    lines.append("")
    lines.append(f"Verdict: {report['verdict']}.")
    return "\n".join(lines) + "\n"


def verdict(ok: bool, seconds: float) -> str:
    return f"{'yes' if ok else 'NO'} ({seconds:.1f} s)"


def check(folder: Path, out: Path, keep: bool = False, only: str = "") -> int:
    manifest = json.loads((folder / "manifest.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    report = {"made_on": manifest["made_on"], "checked_on": machine(), "rows": [],
              "verdict": "running"}
    failures = 0
    for entry in manifest["archives"]:
        if only not in entry["archive"]:
            continue
        row = {key: entry[key] for key in ("archive", "input", "input_bytes", "archive_bytes")}
        try:
            original = Path(entry["input"]).read_bytes()
            if sha256(original) != entry["input_sha256"]:
                raise RuntimeError(f"{entry['input']} here is not the input the archive was made of")
            decoded, seconds = fade(["-d", "-c", str(folder / entry["archive"])])
            row["decoded"] = verdict(sha256(decoded) == entry["input_sha256"], seconds)
            archive, seconds = fade(["-c", *entry["options"], entry["input"]])
            if keep:
                (out / entry["archive"]).write_bytes(archive)
            row["re_encoded"] = verdict(sha256(archive) == entry["archive_sha256"], seconds)
            decoded, seconds = fade(["-d", "-c"], archive)
            row["redecoded"] = verdict(decoded == original, seconds)
        except (OSError, RuntimeError) as error:
            row["error"] = str(error)
            row.setdefault("decoded", "error")
            row.setdefault("re_encoded", "error")
            row.setdefault("redecoded", "error")
        failures += not all(str(row[key]).startswith("yes")
                            for key in ("decoded", "re_encoded", "redecoded"))
        report["rows"].append(row)
        print(f"{entry['archive']}: decoded {row['decoded']}, re-encoded {row['re_encoded']}, "
              f"redecoded {row['redecoded']}" + (f" ({row['error']})" if "error" in row else ""),
              flush=True)
        report["verdict"] = f"{failures} of {len(report['rows'])} archives failed so far"
        (out / "portability.json").write_text(json.dumps(report, indent=1) + "\n")
        (out / "portability.md").write_text(table(report))
    report["verdict"] = ("every archive decoded and re-encoded to the same bytes" if not failures
                         else f"{failures} of {len(report['rows'])} archives failed")
    (out / "portability.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "portability.md").write_text(table(report))
    print(report["verdict"])
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    maker = commands.add_parser("make", help="write archives and their manifest into DIR")
    maker.add_argument("folder", type=Path)
    maker.add_argument("files", nargs="+")
    maker.add_argument("--levels", default="fast,default")
    checker = commands.add_parser("check", help="decode and re-encode DIR's archives here")
    checker.add_argument("folder", type=Path)
    checker.add_argument("--out", type=Path, required=True)
    checker.add_argument("--archives", action="store_true", help="keep the archives made here in OUT")
    checker.add_argument("--only", default="", help="only the archives whose names hold this")
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder, args.files, args.levels.split(","))
        return 0
    return check(args.folder, args.out, args.archives, args.only)


if __name__ == "__main__":
    sys.exit(main())
