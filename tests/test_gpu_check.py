"""scripts/gpu_check.py on the CPU, with the tiny preset and a small slice,
so that the script a GPU loan runs cannot rot: every case round-trips in
fresh processes in the order that keeps the most telling figures (the
network, the hybrid on a prefix, the statistics alone on the same bytes),
the time outside the coding loop is reported, the tables are written, a
GPU archive is refused on the CPU in one line, and the time budget stops
the run cleanly."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from conftest import corpus_file

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "gpu_check.py"
TINY = ["--device", "cpu", "--presets", "tiny", "--batches", "8", "--hybrid-preset", "tiny",
        "--hybrid-batch", "8", "--text-size", "0"]


def run_check(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess, dict, str]:
    source = tmp_path / "alice-1k"
    source.write_bytes(corpus_file("alice29.txt").read_bytes()[:1000])
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--input",
                           str(source), *TINY, *options], capture_output=True, text=True,
                          timeout=300)
    record = json.loads((out / "gpu_check.json").read_text())
    return done, record, (out / "gpu_check.md").read_text()


def test_every_case_round_trips_and_a_gpu_archive_is_refused(tmp_path):
    done, record, table = run_check(tmp_path, "--hybrid-size", "600")
    assert done.returncode == 0, done.stdout + done.stderr
    cases = record["cases"]
    # the network first, then the hybrid (on the prefix asked for), then the
    # statistics alone on the same bytes as each: the whole input, the prefix
    assert [c["case"] for c in cases] == [
        "alice-1k network tiny b8", "alice-1k hybrid max, first 600 bytes",
        "alice-1k statistics max", "alice-1k statistics max, first 600 bytes"]
    data = corpus_file("alice29.txt").read_bytes()[:1000]
    sizes = [1000, 600, 1000, 600]
    for case, size in zip(cases, sizes):
        assert case["verdict"] == "identical"
        assert case["input_bytes"] == size
        assert case["input_sha256"] == hashlib.sha256(data[:size]).hexdigest()
        assert 0 < case["bytes"] < size
        assert f"| {case['case']} | {size:,} | {case['bytes']:,} |" in table
    for case in cases[:2]:
        for side in (case["compress"], case["decompress"]):
            assert side["kb_s"] > 0 and side["steps"] == -(-case["input_bytes"] // 8)
            for share in ("device_idle_share", "blocked_share", "coder_idle_share"):
                assert 0 <= side[share] <= 1
            # the time outside the coding loop, and torch's import within it
            assert 0 < side["torch_import_s"] < side["outside_seconds"] < side["seconds"]
    for case in cases[2:]:  # no network: no loop profile, no torch
        assert "torch_import_s" not in case["compress"] and "steps" not in case["compress"]
    # The hybrid codes smaller than the tiny network alone: its statistics ran.
    assert cases[1]["bytes"] < cases[0]["bytes"]
    [refusal] = record["refusals"]
    assert refusal["one_line_refusal"] and refusal["rc"] == 1
    assert "a GPU archive cannot be decoded on a CPU" in refusal["stderr"]
    assert "refused in one line" in table


def test_the_budget_stops_the_run_and_keeps_what_it_measured(tmp_path):
    done, record, table = run_check(tmp_path, "--budget", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    [first] = record["cases"]
    assert first["verdict"] == "stopped at the budget"
    assert record["notes"] == ["alice-1k hybrid max: not run (stopped at the budget of 1 s)",
                               "alice-1k statistics max: not run (stopped at the budget of 1 s)",
                               "no refusal check: no network archive was made"]
    assert "stopped at the budget" in table


def test_a_cpu_run_makes_the_statistics_rows_of_a_gpu_runs_prefix(tmp_path):
    """--kinds statistics with the prefix a GPU run's hybrid coded: the
    statistics alone on the whole input and on that prefix, nothing else."""
    done, record, _ = run_check(tmp_path, "--kinds", "statistics", "--hybrid-size", "600")
    assert done.returncode == 0, done.stdout + done.stderr
    data = corpus_file("alice29.txt").read_bytes()[:1000]
    assert [(c["case"], c["input_sha256"], c["verdict"]) for c in record["cases"]] == [
        ("alice-1k statistics max", hashlib.sha256(data).hexdigest(), "identical"),
        ("alice-1k statistics max, first 600 bytes", hashlib.sha256(data[:600]).hexdigest(),
         "identical")]


def test_the_large_text_is_this_pythons_sources_in_path_order():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    gpu_check = sys.modules["gpu_check"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu_check)
    text = gpu_check.python_sources(200_000)
    assert len(text) == 200_000
    assert text == gpu_check.python_sources(200_000)
    assert text.count(b"def ") > 100 and text.count(b"import ") > 20  # Python source
