"""Shared helpers: the real corpus beside the repo, and the CLI in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


def corpus_file(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.fail(f"test corpus missing: {path} (see README, 'Tests')")
    return path


def run_fade(*args: str, cwd: Path, env: dict[str, str] | None = None,
             stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """`fade ARGS` in a new Python process, as a user would run it."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, env=full_env,
                          input=stdin, capture_output=True, timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess, *must_contain: str) -> str:
    """Assert a failed run printed exactly one line, `fade: ...`, and no traceback."""
    assert result.returncode != 0, result
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("fade: "), lines
    for text in must_contain:
        assert text in lines[0], (text, lines[0])
    return lines[0]
