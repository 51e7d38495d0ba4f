"""Frames as tasks of a Ray cluster (fade/pool.py and fade/cluster.py, `--ray`): a local Ray
instance of two CPUs (started here, as `ray start --head` would on one
machine) codes the frames into the archive a local run writes, a task whose
worker is killed mid-frame is run again, and the CLI reaches the cluster by
its address from a fresh process."""

import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import ray  # part of the test extra: the suite needs it

import fade
from fade import frames

from conftest import REPO, corpus_file, one_error_line, run_fade

FRAME = 4096
TASK_TITLE = b"ray::code_frame"  # Ray's process title for a worker running a frame


@pytest.fixture(scope="module")
def cluster():
    """The address of a two-CPU Ray instance that this process is connected to."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _framed(data: bytes, **options) -> bytes:
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(data), out.write, frame_size=FRAME, **options)
    return out.getvalue()


def _decoded(blob: bytes, **options) -> bytes:
    parts = []
    frames.decompress_stream(io.BytesIO(blob), parts.append, **options)
    return b"".join(parts)


def test_ray_writes_the_local_archive(cluster):
    data = corpus_file("lcet10.txt").read_bytes()[:6 * FRAME + 777]
    local = _framed(data, level="fast", jobs=1)
    assert _framed(data, level="fast", ray=cluster) == local
    assert len(fade.read_header(local).frames) == 7
    assert _decoded(local, ray=cluster) == data


def _kill_first_task(killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the first worker process seen coding a frame."""
    while not stop.is_set():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    title = file.read()
            except OSError:
                continue
            if title.startswith(TASK_TITLE):
                os.kill(int(pid), signal.SIGKILL)
                killed.append(int(pid))
                return
        time.sleep(0.02)


def test_a_task_killed_mid_frame_is_run_again(cluster, hybrid_frames):
    """A worker killed while it codes a frame (the hybrid with the tiny
    network: seconds a frame) is retried by Ray, and the archive is still
    the one this process writes (whose round trip test_frames checks)."""
    data, settings, local = hybrid_frames
    killed: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=_kill_first_task, args=(killed, stop))
    killer.start()
    try:
        blob = _framed(data, ray=cluster, **settings)
    finally:
        stop.set()
        killer.join()
    assert killed, "no frame task was seen running"
    assert blob == local


def test_the_cli_codes_frames_on_a_cluster_by_its_address(cluster, tmp_path):
    data = corpus_file("plrabn12.txt").read_bytes()[:5 * FRAME]
    (tmp_path / "p.txt").write_bytes(data)
    result = run_fade("compress", "--ray", cluster, "--level", "fast", "--frame-size", "4K",
                      "p.txt", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "p.txt.fade").read_bytes() == _framed(data, level="fast")
    result = run_fade("decompress", "--ray", cluster, "-c", "p.txt.fade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == data
    # No cluster there: one line, at once, and no output left.
    (tmp_path / "p.txt.fade").unlink()
    start = time.monotonic()
    one_error_line(run_fade("compress", "--ray", "127.0.0.1:1", "--level", "fast",
                            "--frame-size", "4K", "p.txt", cwd=tmp_path),
                   "cannot reach the Ray cluster")
    assert time.monotonic() - start < 60
    assert sorted(os.listdir(tmp_path)) == ["p.txt"]


_DRIVER = """
import io, logging, sys, ray
from fade import frames
from fade.errors import FadeError
ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
         runtime_env={"env_vars": {"PYTHONPATH": sys.argv[1]}})
try:
    frames.compress_stream(io.BytesIO(sys.stdin.buffer.read()), io.BytesIO().write,
                           frame_size=4096, level="fast", ray="auto")
except FadeError as error:
    print(error)
"""


def test_a_worker_that_cannot_import_fade_is_named_in_the_error(tmp_path):
    """A cluster whose workers find a broken fade first (here: a copy that
    fails to import, first on their path; on a real cluster, a node without
    fade or with an empty folder left by another install): the one-line error
    says that the worker cannot import fade, not only Ray's RaySystemError."""
    broken = tmp_path / "broken" / "fade"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise ImportError("no fade here")\n')
    (tmp_path / "driver.py").write_text(_DRIVER)
    result = subprocess.run([sys.executable, "driver.py", str(broken.parent)], cwd=tmp_path,
                            input=corpus_file("alice29.txt").read_bytes()[:3 * FRAME],
                            capture_output=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("frame 0: a Ray worker cannot import fade (ImportError: no fade "
                               "here): install fade "), lines
