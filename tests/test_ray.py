"""Frames as tasks of a Ray cluster (fade/pool.py and fade/cluster.py, `--ray`): a local Ray
instance of two CPUs (started here, as `ray start --head` would on one
machine) codes the frames into the archive a local run writes, a task whose
worker is killed mid-frame is run again, and the CLI reaches the cluster by
its address from a fresh process."""

import io
import logging
import os
import signal
import threading
import time

import pytest
import ray  # part of the test extra: the suite needs it

import fade
from fade import frames

from conftest import corpus_file, one_error_line, run_fade

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
