"""scripts/portability_check.py on this machine, so the script a loan of
another machine runs cannot rot: `make` writes archives and a manifest,
`check` decodes and re-encodes them in fresh processes and agrees, and a
changed input or a damaged archive is reported as a failure (exit 1)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from conftest import corpus_file

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "portability_check.py"


def script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)


def test_make_then_check_agrees_and_catches_a_change(tmp_path):
    text = tmp_path / "alice-4k"
    text.write_bytes(corpus_file("alice29.txt").read_bytes()[:4000])
    table = tmp_path / "cos-4k.csv"
    table.write_bytes(corpus_file("umath-cos.csv").read_bytes()[:4000])
    made = script("make", str(tmp_path / "made"), str(text), str(table), "--levels", "fast")
    assert made.returncode == 0, made.stderr
    manifest = json.loads((tmp_path / "made" / "manifest.json").read_text())
    assert [a["archive"] for a in manifest["archives"]] == [
        "alice-4k.fast.fade", "cos-4k.csv.fast.fade", "alice-4k.fast-frames.fade"]

    done = script("check", str(tmp_path / "made"), "--out", str(tmp_path / "out"), "--archives")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "out" / "portability.json").read_text())
    for row in report["rows"]:
        assert all(row[key].startswith("yes") for key in ("decoded", "re_encoded", "redecoded"))
        made_archive = (tmp_path / "made" / row["archive"]).read_bytes()
        assert (tmp_path / "out" / row["archive"]).read_bytes() == made_archive
    assert "every archive decoded" in (tmp_path / "out" / "portability.md").read_text()

    # A damaged archive fails to decode; a changed input is not the one archived.
    archive = tmp_path / "made" / "cos-4k.csv.fast.fade"
    damaged = bytearray(archive.read_bytes())
    damaged[len(damaged) // 2] ^= 0x20
    archive.write_bytes(bytes(damaged))
    text.write_bytes(text.read_bytes()[:-1] + b"!")
    done = script("check", str(tmp_path / "made"), "--out", str(tmp_path / "again"))
    assert done.returncode == 1
    rows = {row["archive"]: row for row in
            json.loads((tmp_path / "again" / "portability.json").read_text())["rows"]}
    assert rows["cos-4k.csv.fast.fade"]["decoded"] == "error"
    assert "not the input" in rows["alice-4k.fast.fade"]["error"]
    assert not list((tmp_path / "again").glob("*.fade"))


def test_level_names_become_fade_options():
    """`max-statistics` is level max's statistics alone: the portable part of max."""
    spec = importlib.util.spec_from_file_location("portability_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.options_of("default") == ["--level", "default"]
    assert module.options_of("max-statistics") == ["--level", "max", "--method", "statistics"]
