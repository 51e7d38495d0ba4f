"""The default level's archives decode where torch cannot be imported:
scripts/without_torch.py with an interpreter in which `import torch` fails
(a module named torch that raises ImportError ahead of the real one on its
path), on a text and on bytes that are not text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fade
from conftest import corpus_file, fade_env, one_error_line

REPO = Path(__file__).resolve().parent.parent


def _without_torch(tmp_path: Path) -> Path:
    """An interpreter in which `import torch` fails, as where it is not installed."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "torch.py").write_text("raise ImportError('torch is not installed here')\n")
    python = tmp_path / "python-without-torch"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{blocker}:$PYTHONPATH" exec "{sys.executable}" '
                      '"$@"\n')
    python.chmod(0o755)
    return python


def test_default_archives_decode_where_torch_cannot_be_imported(tmp_path):
    python = _without_torch(tmp_path)
    files = {"book": corpus_file("alice29.txt").read_bytes()[:30_000],
             "maps": corpus_file("mapsdatazrh").read_bytes()[:30_000]}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "without_torch.py"),
                           "--python", str(python), *(str(tmp_path / n) for n in files)],
                          capture_output=True, text=True, env=fade_env(), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines()[2:]]
    assert [row[0].strip("| ") for row in rows] == list(files)
    for row in rows:
        assert row[3] == "default/statistics" and row[6] == "no"
        assert row[7].rstrip(" |") == "identical"


def test_an_interpreter_with_torch_is_refused(tmp_path):
    (tmp_path / "a").write_bytes(b"a few bytes of text\n" * 10)
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "without_torch.py"),
                           "--python", sys.executable, str(tmp_path / "a")],
                          capture_output=True, text=True, env=fade_env(), timeout=600)
    assert done.returncode != 0 and "imports torch" in done.stderr


def test_a_learned_archive_where_torch_cannot_be_imported_is_one_line(tmp_path):
    python = _without_torch(tmp_path)
    text = corpus_file("alice29.txt").read_bytes()[:2000]
    (tmp_path / "a.fade").write_bytes(fade.compress(text, level="max", preset_name="tiny",
                                                    method="fade", batch_size=16))
    done = subprocess.run([str(python), "-m", "fade", "-d", "a.fade"], cwd=tmp_path,
                          capture_output=True, env=fade_env(), timeout=600)
    one_error_line(done, "torch cannot be imported here", "learned archives need it")
    assert not (tmp_path / "a").exists()


def test_a_compact_method_asked_for_needs_no_torch(tmp_path):
    """--method xz (or any compact method) writes no model's archive: a
    preset or a level that would run the network does not load torch."""
    python = _without_torch(tmp_path)
    text = corpus_file("alice29.txt").read_bytes()[:20_000]
    for name in ("a", "b"):
        (tmp_path / name).write_bytes(text)
    for name, options in (("a", ["--preset", "tiny", "--method", "xz"]),
                          ("b", ["--level", "max", "--method", "deflate"])):
        done = subprocess.run([str(python), "-m", "fade", "-q", *options, name], cwd=tmp_path,
                              capture_output=True, text=True, env=fade_env(), timeout=600)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([str(python), "-m", "fade", "-l", "a.fade", "b.fade"], cwd=tmp_path,
                          capture_output=True, text=True, env=fade_env(), timeout=600)
    assert done.returncode == 0, done.stderr
    assert [line.split()[4] for line in done.stdout.splitlines()[1:3]] == ["xz", "deflate"]
    done = subprocess.run([str(python), "-m", "fade", "-dc", "a.fade", "b.fade"], cwd=tmp_path,
                          capture_output=True, env=fade_env(), timeout=600)
    assert done.returncode == 0 and done.stdout == text + text, done.stderr
