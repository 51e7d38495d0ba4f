"""The connection to a Ray cluster, for frames coded as its tasks (fade.pool).

The only module that imports Ray (the optional extra `fade[ray]`), and
only when a cluster is asked for. Ray places the tasks, moves the bytes and
runs a task again when its worker or node dies; fade.pool's `RayTasks`
keeps the frames in order and bounds how many are in flight.

Every node needs the same fade and torch installed as this machine (Ray
runs the tasks in its own Python, which imports `fade`).
"""

from __future__ import annotations

import logging
import os
import socket

from fade.errors import FadeError

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
