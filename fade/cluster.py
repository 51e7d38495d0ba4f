"""Frames on many machines: Ray tasks behind the interface of `frames.FramePool`.

The only module that imports Ray (the optional extra `fade[ray]`). Each
frame is one Ray task running the same `frames._code_frame` a local worker
runs, on one CPU (or on one GPU with `device="cuda"`); Ray places the tasks,
moves the bytes, and runs a task again when its worker or node dies
(`RETRIES`). This module only keeps the frames in order and bounds how many
are in flight (two per CPU of the cluster), so memory stays bounded on the
machine that reads and writes the archive. The archive is the one a local
run writes, byte for byte, where the cluster's machines are alike: each
frame records the machine that coded it (docs/format.md, numeric profiles).

Every node needs the same fade and torch installed as this machine (Ray
runs the tasks in its own Python, which imports `fade`).
"""

from __future__ import annotations

import logging
import os
import socket

from fade.errors import FadeError
from fade.frames import FramePool, _code_frame

# A frame whose worker process or node dies is coded again, up to this many
# times (Ray's own default for tasks is 3); errors of fade itself are values
# (frames._code_frame) and are never retried.
RETRIES = 3
AUTO = "auto"  # the cluster this machine belongs to (RAY_ADDRESS, or `ray start`'s)
LOCAL = "local"  # a new Ray instance on this machine, for this run only
# Seconds to wait for a cluster's address to answer: Ray itself retries an
# unreachable address for minutes, printing warnings.
CONNECT_TIMEOUT = 10.0


def _check_reachable(address: str) -> None:
    """Refuse an explicit HOST:PORT (or ray://HOST:PORT) that does not
    accept a connection within CONNECT_TIMEOUT."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # not HOST:PORT: Ray reports it
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        raise FadeError(f"cannot reach the Ray cluster at {address!r}: "
                        f"{error.strerror or error}") from None


def connect(address: str):
    """The `ray` module, connected to the cluster at `address` (an address
    of `ray start`, "ray://HOST:PORT", AUTO or LOCAL); returns it and
    whether this call made the connection. A process already connected
    keeps its connection."""
    try:
        import ray
    except ImportError:
        raise FadeError("Ray is not installed: pip install 'fade-compress[ray]'") from None
    if ray.is_initialized():
        return ray, False
    if address not in (AUTO, LOCAL):
        _check_reachable(address)
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # Ray's C++ warnings, on stderr
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False,
                 configure_logging=True)
    except Exception as error:  # Ray raises ConnectionError, ValueError, RuntimeError...
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(
            error).__name__
        raise FadeError(f"cannot use the Ray cluster at {address!r}: {reason}") from None
    return ray, True


class RayPool(FramePool):
    """Frames coded as Ray tasks, given out in order, at most two per CPU
    (or GPU) of the cluster in flight (FramePool.window, with `jobs` the
    cluster's CPUs or GPUs)."""

    def __init__(self, address: str, kind: str, options: dict):
        super().__init__(1, kind, options)
        self._ray, self._owned = connect(address)
        on_gpu = options.get("device") == "cuda"
        self._task = self._ray.remote(num_cpus=0 if on_gpu else 1, num_gpus=1 if on_gpu else 0,
                                      max_retries=RETRIES, retry_exceptions=False)(_code_frame)
        units = self._ray.cluster_resources().get("GPU" if on_gpu else "CPU", 0)
        if units < 1:
            raise FadeError(f"the Ray cluster has no {'GPU' if on_gpu else 'CPU'} to run "
                            "frames on")
        self.jobs = int(units)
        self._in_flight: set = set()

    def _parallel(self) -> bool:
        return True

    def _submit(self, number: int, payload: bytes):
        pending = self._task.remote(self.kind, number, payload, self.options)
        self._in_flight.add(pending)
        return pending

    def _ready(self, pending) -> bool:
        return bool(self._ray.wait([pending], timeout=0)[0])

    def _wait(self, number: int, payload: bytes, pending) -> tuple[bytes, bytes]:
        try:
            status, *result = self._ray.get(pending)
        except self._ray.exceptions.RayError as error:
            raise FadeError(f"frame {number}: its Ray task failed ({type(error).__name__}, "
                            f"after up to {RETRIES} retries)") from None
        finally:
            self._in_flight.discard(pending)
        return payload, self._complete(number, payload, status, result)

    def close(self) -> None:
        """Cancel the frames still in flight (an error, Ctrl-C); end a Ray
        connection this pool made."""
        for pending in self._in_flight:
            try:
                self._ray.cancel(pending, force=True)
            except Exception:  # already finished or lost: nothing to stop
                pass
        self._in_flight.clear()
        if self._owned:
            self._ray.shutdown()
            self._owned = False
