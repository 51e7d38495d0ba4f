"""Shared helpers: the real test corpus, and the CLI in a fresh process."""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fade  # noqa: F401  (before any test imports torch: fade.environment)

REPO = Path(__file__).resolve().parent.parent
# The corpus in the repository (tests/corpus: some files cut to the prefix the
# tests read), or the whole files where a full copy lies beside the checkout.
# Either way every file a test reads must match a pin in tests/corpus/SHA256SUMS.
IN_REPO_CORPUS = REPO / "tests" / "corpus"
FULL_CORPUS = REPO.parent / "shared" / "corpus"
CORPUS = FULL_CORPUS if FULL_CORPUS.is_dir() else IN_REPO_CORPUS
# The corpus folders' descriptions of themselves, not corpus data.
NOT_CORPUS_DATA = ("README.md", "SHA256SUMS")


@functools.cache
def _pins() -> dict[str, frozenset[str]]:
    """name -> the SHA-256 digests accepted for it (the whole file, a prefix)."""
    pins: dict[str, set[str]] = {}
    for line in (IN_REPO_CORPUS / "SHA256SUMS").read_text().splitlines():
        if line and not line.startswith("#"):
            digest, name = line.split()
            pins.setdefault(name, set()).add(digest)
    return {name: frozenset(digests) for name, digests in pins.items()}


@functools.cache
def _checked(path: Path) -> Path:
    """`path`, a corpus file, once it matches its pinned SHA-256 (else the test fails)."""
    root = CORPUS if path.is_relative_to(CORPUS) else IN_REPO_CORPUS
    name = path.relative_to(root).as_posix()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest not in _pins().get(name, ()):
        pytest.fail(f"test corpus file {path}: its SHA-256 {digest} is not pinned "
                    f"in {IN_REPO_CORPUS / 'SHA256SUMS'}")
    return path


def corpus_file(name: str) -> Path:
    """The corpus file (or folder of files) `name`, checked against its pins:
    from the full corpus beside the checkout where it is there, else from
    tests/corpus (which also keeps files the full corpus lacks)."""
    path = CORPUS / name
    if not path.exists() and (IN_REPO_CORPUS / name).exists():
        path = IN_REPO_CORPUS / name
    if not path.exists():
        pytest.fail(f"test corpus missing: {path} (see tests/corpus/README.md)")
    if path.is_dir():
        for file in path.iterdir():
            if file.is_file():
                _checked(file)
        return path
    return _checked(path)


def corpus_files() -> list[Path]:
    """Every data file of the corpus (its top folder and edge/), checked, sorted."""
    return sorted(_checked(path) for folder in (CORPUS, CORPUS / "edge")
                  for path in folder.iterdir()
                  if path.is_file() and path.name not in NOT_CORPUS_DATA)


def fade_command(*args: str) -> list[str]:
    """argv that runs `fade ARGS` from this checkout in a new Python process."""
    return [sys.executable, "-m", "fade", *args]


def fade_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for fade_command: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}


def run_fade(*args: str, cwd: Path, env: dict[str, str] | None = None,
             stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """`fade ARGS` in a new Python process, as a user would run it."""
    return subprocess.run(fade_command(*args), cwd=cwd, env=fade_env(env),
                          input=stdin, capture_output=True, timeout=timeout)


def decode_in_a_fresh_process(folder: Path, archives: dict[str, tuple[bytes, bytes]]) -> None:
    """Assert that `fade decompress -c`, one new process for them all (it
    writes each archive's bytes after the one before's), gives back each
    archive's original: {name: (archive, original)}, written to
    folder/name.fade."""
    for name, (archive, _) in archives.items():
        (folder / f"{name}.fade").write_bytes(archive)
    result = run_fade("decompress", "-c", *(f"{name}.fade" for name in archives), cwd=folder)
    assert result.returncode == 0, result.stderr.decode()
    at = 0
    for name, (_, original) in archives.items():
        assert result.stdout[at:at + len(original)] == original, name
        at += len(original)
    assert at == len(result.stdout)


def tar_of(members: dict[str, bytes]) -> bytes:
    """A tar archive holding each of `members` (name: its bytes), in order."""
    import io
    import tarfile
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


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
    here, or is refused by name where this machine cannot replay it (up
    front: fade.profile's rules), or, for an archive of format v1-v4 that
    this machine can replay only in other process settings, that the fade
    command replays it in a fresh process. A portable archive must decode on
    every x86-64 machine with AVX2 and its torch build; any archive must
    decode on the kind of machine that made it."""
    import fade
    from fade import profile
    from fade.device import device_name
    from fade.single import model_header
    from fade.errors import ProfileMismatchError, ReplayEnvironmentError

    header = model_header(blob)
    try:
        assert fade.decompress(blob) == original
    except ProfileMismatchError as error:
        here = profile.here("cpu", "")
        assert profile.replay_problems(header.machine(), here, header.version).refusals
        assert "this machine differs" in str(error)
        assert header.profile != profile.PORTABLE or header.torch_version != here.torch_version \
            or profile.portable_unavailable() is not None, error
    except ReplayEnvironmentError as error:
        assert header.version < 5 or header.profile == profile.NATIVE, error
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "golden.fade"
            path.write_bytes(blob)
            result = run_fade("decompress", "-c", str(path), cwd=Path(folder))
        if result.returncode == 0:
            assert result.stdout == original
        else:  # the settings replayed, and the CPU still computes otherwise
            lines = result.stderr.decode().strip().splitlines()
            # The differences are warned about before the (long) decode starts.
            assert all(": warning: " in line for line in lines[:-1]), lines
            # It fails the SHA-256 check, or runs out of payload first.
            line = one_error_line(subprocess.CompletedProcess(
                result.args, result.returncode, result.stdout, lines[-1].encode()),
                "computes different probabilities than the encoding one")
            assert header.device_name != device_name(__import__("torch").device("cpu")) \
                or "capability" in line, line


HYBRID_FRAME = 4096


@pytest.fixture(scope="session")
def hybrid_frames() -> tuple[bytes, dict, bytes]:
    """(input, settings, archive): three frames of alice29.txt coded by the
    hybrid (the tiny network and the statistics) in this process, the
    archive that -T (test_frames) and Ray (test_ray) must reproduce."""
    import io

    from fade import frames

    data = corpus_file("alice29.txt").read_bytes()[:3 * HYBRID_FRAME - 100]
    # 16 sub-streams a frame: 256 steps (the default batch, 2, would take 2048).
    settings = dict(level="default", preset_name="tiny", method="fade", batch_size=16)
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(data), out.write, frame_size=HYBRID_FRAME, jobs=1,
                           **settings)
    return data, settings, out.getvalue()


def coded_sizes(data: bytes, models) -> list[int]:
    """The sizes of `data` coded alone in file order by each of `models`,
    with the default settings sized to it."""
    from fade import statistics
    from fade.config import StatisticsConfig
    return [len(statistics.encode_file(data, StatisticsConfig(model=m).sized(len(data))))
            for m in models]


def coded_without(data: bytes, config, part: int) -> int:
    """The size of `data` coded alone in file order with `config` but its
    model less `part` (fade.statistics.coding.measured_model; `config`'s
    table sizes stay)."""
    import dataclasses
    from fade import statistics
    from fade.statistics.coding import measured_model
    from fade.statistics.models import MODEL_PARTS
    parts = MODEL_PARTS[config.model] & ~part
    assert parts != MODEL_PARTS[config.model]
    with measured_model(parts) as model:
        return len(statistics.encode_file(data, dataclasses.replace(config, model=model)))
