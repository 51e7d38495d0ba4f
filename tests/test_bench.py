"""The benchmark harness (scripts/bench.py) on small real slices: every row
verified, sizes match what the tools make by themselves, reports written,
--resume skips finished pairs, and missing or broken compressors are
handled as documented."""

import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, corpus_file

SLICE = 2048
FADE_SPEC = "tiny:batch=8"  # 256 steps on the 2 KB slice: seconds each way
# zstd is hidden from PATH and brotli from Python, to see them skipped, not fatal.
ARGS = ["--slice", str(SLICE), "--fade", FADE_SPEC, "--classic", "gzip,xz,zstd,brotli"]
RUN_COMPRESSORS = ["fade tiny batch=8", "gzip -9", "xz -9e"]


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench", REPO / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


def _path_with_only(directory, tools):
    """A PATH holding `tools` only: zstd (and everything else) is missing."""
    directory.mkdir(exist_ok=True)
    for tool in tools:
        if not (directory / tool).exists():
            os.symlink(shutil.which(tool), directory / tool)
    return str(directory)


def _main(argv, bin_dir, tools=("gzip", "xz")):
    """bench.main(argv) in this process, with only `tools` on PATH and brotli
    made unavailable; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", _path_with_only(bin_dir, tools))
        patch.setitem(sys.modules, "brotli", None)  # `import brotli` now fails
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = bench.main(argv)
    return status, out.getvalue(), err.getvalue()


def _inputs():
    return [str(corpus_file("alice29.txt")), str(corpus_file("edge/x"))]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    out = root / "out"
    status, stdout, stderr = _main(_inputs() + ARGS + ["--out", str(out)], root / "bin")
    return {"root": root, "out": out, "status": status, "stdout": stdout, "stderr": stderr,
            "json": json.loads((out / "results.json").read_text())}


def _tool_size(argv, data):
    return len(subprocess.run(argv, input=data, capture_output=True, check=True).stdout)


def test_every_pair_runs_and_is_verified(first_run):
    assert first_run["status"] == 0, first_run["stderr"]
    rows = first_run["json"]["results"]
    assert [(r["file"], r["compressor"]) for r in rows] == \
        [(f, c) for f in ("alice29.txt", "x") for c in RUN_COMPRESSORS]
    assert all(r["verified"] and not r["error"] for r in rows)
    for row in rows:
        assert row["compress_seconds"] > 0 and row["decompress_seconds"] > 0
        assert row["peak_rss_mib"] > 0
        assert row["device"] == "cpu" and row["gpu_peak_mib"] is None
    fade_rows = [r for r in rows if r["compressor"].startswith("fade")]
    assert fade_rows[0]["details"].startswith("network, batch 8, ")  # alice29.txt; x: batch 1
    # fade runs in Python with torch: its peak RSS is a measured value, far over the spawner's.
    assert all(r["peak_rss_mib"] > 100 and not r["peak_rss_is_bound"] for r in fade_rows)


def test_sizes_and_ratios_match_the_real_tools(first_run):
    text = corpus_file("alice29.txt").read_bytes()[:SLICE]
    rows = {(r["file"], r["compressor"]): r for r in first_run["json"]["results"]}
    assert rows["alice29.txt", "gzip -9"]["compressed_bytes"] == \
        _tool_size(["gzip", "-9", "-n", "-c"], text)
    assert rows["alice29.txt", "xz -9e"]["compressed_bytes"] == \
        _tool_size(["xz", "-9e", "-T1", "-c"], text)
    for row in rows.values():
        size = SLICE if row["file"] == "alice29.txt" else 1
        assert row["original_bytes"] == size
        assert row["ratio"] == pytest.approx(size / row["compressed_bytes"])
        assert row["bits_per_byte"] == pytest.approx(8 * row["compressed_bytes"] / size)
        assert row["compress_kbps"] == pytest.approx(size / 1024 / row["compress_seconds"])
    totals = {t["compressor"]: t for t in first_run["json"]["totals"]}
    assert list(totals) == RUN_COMPRESSORS
    for name, row in totals.items():
        parts = [r for r in rows.values() if r["compressor"] == name]
        assert row["verified"] and row["original_bytes"] == SLICE + 1
        assert row["compressed_bytes"] == sum(r["compressed_bytes"] for r in parts)
        assert row["ratio"] == pytest.approx((SLICE + 1) / row["compressed_bytes"])


def test_missing_compressors_are_skipped_with_a_note(first_run):
    notes = [line for line in first_run["stderr"].splitlines() if "skipping" in line]
    assert len(notes) == 2, notes
    assert "zstd" in notes[0] and "not found on PATH" in notes[0]
    assert "brotli" in notes[1] and "not installed" in notes[1]
    assert not any("zstd" in r["compressor"] or "brotli" in r["compressor"]
                   for r in first_run["json"]["results"])


def test_reports_are_written(first_run):
    out = first_run["out"]
    markdown = (out / "results.md").read_text()
    assert first_run["stdout"] == markdown
    assert f"first {SLICE:,} bytes" in markdown  # the slice is said
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 6 + 3  # header, one per pair, one TOTAL per compressor
    assert sum("| **TOTAL** |" in row for row in rows) == 3
    assert f"| alice29.txt | gzip -9 | {SLICE:,} |" in markdown
    assert len((out / "results.jsonl").read_text().splitlines()) == 6
    plot = out / "ratio_vs_speed.png"
    if importlib.util.find_spec("matplotlib"):
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "matplotlib not installed" in first_run["stderr"] and not plot.exists()


def test_an_existing_run_is_not_overwritten_without_resume(first_run):
    status, _, stderr = _main(_inputs() + ARGS + ["--out", str(first_run["out"])],
                              first_run["root"] / "bin")
    assert status == 2
    assert "--resume" in stderr


def test_resume_runs_only_the_missing_pairs(first_run, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(first_run["out"], out)
    journal = out / "results.jsonl"
    lines = journal.read_text().splitlines()
    dropped = next(line for line in lines
                   if (json.loads(line)["file"], json.loads(line)["compressor"]) == ("x", "gzip -9"))
    journal.write_text("".join(line + "\n" for line in lines if line != dropped))

    status, _, stderr = _main(_inputs() + ARGS + ["--out", str(out), "--resume"],
                              first_run["root"] / "bin")
    assert status == 0, stderr
    after = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(after) == 6
    assert (after[-1]["file"], after[-1]["compressor"]) == ("x", "gzip -9")  # the only rerun
    kept = {(r["file"], r["compressor"]): r for r in first_run["json"]["results"]}
    results = json.loads((out / "results.json").read_text())["results"]
    assert len(results) == 6 and all(r["verified"] for r in results)
    for row in results:  # everything else is the first run's measurement, not a new one
        if (row["file"], row["compressor"]) != ("x", "gzip -9"):
            assert row == kept[row["file"], row["compressor"]]


def test_a_wrong_round_trip_or_a_failing_tool_fails_loudly(tmp_path, monkeypatch):
    # A "compressor" that stores the input and "decompresses" to its first byte,
    # and one whose decompressor rejects its options.
    monkeypatch.setitem(bench.CLASSIC, "truncating", bench.Compressor(
        "truncating", "head", ("head", "-c", "100000000"), ("head", "-c", "1")))
    monkeypatch.setitem(bench.CLASSIC, "failing", bench.Compressor(
        "failing", "head", ("head", "-c", "100000000"), ("head", "--no-such-option")))
    out = tmp_path / "out"
    status, stdout, stderr = _main(
        [str(corpus_file("alice29.txt")), "--slice", "100", "--no-fade",
         "--classic", "truncating,failing,gzip", "--out", str(out)], tmp_path / "bin",
        tools=("gzip", "head"))
    assert status == 1
    assert "skipping" not in stderr
    assert "MISMATCH" in stderr and "FAILED" in stderr
    rows = {r["compressor"]: r for r in json.loads((out / "results.json").read_text())["results"]}
    assert not rows["truncating"]["verified"] and rows["truncating"]["compressed_bytes"] is None
    assert rows["truncating"]["error"].startswith("MISMATCH")
    assert rows["failing"]["error"].startswith("FAILED") and "no-such-option" in \
        rows["failing"]["error"]
    assert rows["gzip -9"]["verified"]
    assert "| alice29.txt | truncating | 100 | – |" in stdout and "**MISMATCH**" in stdout


def test_fade_specs():
    compressor = bench.parse_fade_spec("balanced:batch=64,device=cpu")
    assert compressor.name == "fade balanced batch=64 device=cpu"
    assert dict(compressor.params) == {"preset": "balanced", "level": None, "method": "auto",
                                       "batch": 64, "device": "cpu", "threads": None,
                                       "native": False, "jobs": None, "frame": None,
                                       "ray": None}
    assert dict(bench.parse_fade_spec("balanced:native=1").params)["native"] is True
    framed = dict(bench.parse_fade_spec("level=default,frame=1048576,jobs=2").params)
    assert (framed["frame"], framed["jobs"], framed["preset"]) == (1 << 20, 2, None)
    on_ray = bench.parse_fade_spec("level=fast,frame=1048576,ray=auto")
    assert on_ray.name == "fade level=fast frame=1048576 ray=auto"
    assert dict(on_ray.params)["ray"] == "auto"
    fast = bench.parse_fade_spec("level=fast")
    assert fast.name == "fade level=fast" and dict(fast.params)["preset"] is None
    hybrid = dict(bench.parse_fade_spec("tiny:level=default,method=fade").params)
    assert (hybrid["preset"], hybrid["level"], hybrid["method"]) == ("tiny", "default", "fade")
    for bad in ("balanced:batch=x", "balanced:size=3", ":batch=4"):
        with pytest.raises(bench.argparse.ArgumentTypeError):
            bench.parse_fade_spec(bad)
    with pytest.raises(SystemExit) as exit_info, contextlib.redirect_stderr(io.StringIO()):
        bench.main([str(corpus_file("edge/x")), "--fade", "huge"])
    assert exit_info.value.code == 2
