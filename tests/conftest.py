"""Shared helpers: the real corpus beside the repo, and the CLI in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fade  # noqa: F401  (before any test imports torch: fade.environment)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


def corpus_file(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.fail(f"test corpus missing: {path} (see README, 'Tests')")
    return path


def fade_command(*args: str) -> list[str]:
    """argv that runs `fade ARGS` from this checkout in a new Python process."""
    return [sys.executable, "-m", "cli", *args]


def fade_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for fade_command: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}


def run_fade(*args: str, cwd: Path, env: dict[str, str] | None = None,
             stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """`fade ARGS` in a new Python process, as a user would run it."""
    return subprocess.run(fade_command(*args), cwd=cwd, env=fade_env(env),
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


def decodes_here(blob: bytes, original: bytes) -> None:
    """Assert that a learned archive made elsewhere decodes to `original`
    here, or, where this CPU computes differently from the one that made it
    (another CPU capability: AVX2 against AVX-512 gives other matmul and
    kernel roundings), that the decode fails cleanly on its checksum and
    names that cause. An archive must always decode on the kind of machine
    that made it."""
    import torch

    import fade
    from fade.codec import model_header

    header = model_header(blob)
    try:
        assert fade.decompress(blob) == original
    except fade.ChecksumMismatchError as error:
        here = torch.backends.cpu.get_cpu_capability()
        assert header is not None and header.cpu_capability != here, \
            f"made on {header.cpu_capability}, fails here on {here}: {error}"
        assert "CPU capability" in str(error)
