"""Frames coded in order by one of three backends behind one interface.

`FramePool.run` hands each frame to its backend, keeps at most `window`
frames in flight (so memory stays bounded whatever the input's size) and
gives the results out in order. The backends:

- `InProcess`: this process codes each frame as it is handed over (`jobs` 1);
- `Processes`: `jobs` worker processes (spawned: no state shared with this
  one), at most QUEUE_PER_JOB frames waiting per worker;
- `RayTasks`: each frame a Ray task on a cluster (the connection is
  fade.cluster's, the only module that imports Ray), two per CPU (or GPU)
  of the cluster in flight; Ray runs a task again when its worker or node
  dies (RETRIES).

Every backend runs `code_frame`, so a frame's archive is the same bytes
wherever it is coded (on a cluster: where its machines are alike, since
each frame records the machine that coded it).
"""

from __future__ import annotations

import collections
import queue
import re
import signal
import time
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from fade import single
from fade.errors import CorruptArchiveError, FadeError

# Frames one worker may have waiting beside the one it codes.
QUEUE_PER_JOB = 1
# A frame whose worker process or node dies is coded again, up to this many
# times (Ray's own default for tasks is 3); errors of fade itself are values
# (code_frame) and are never retried.
RETRIES = 3
# How a Ray task's error text says that its worker could not import fade (a
# node without fade, or with a broken copy of it: an empty folder left by
# another install is imported as an empty namespace package).
_IMPORT_FAILURE = re.compile(r"^\s*((?:ModuleNotFoundError|ImportError): .*|"
                             r"AttributeError: module 'fade[\w.]*' has no attribute .*)$",
                             re.MULTILINE)

# progress(bytes_done, bits or None)
FramesProgress = Callable[[int, "float | None"], None]
# report(frame_number, bytes_done): a frame's own progress
Report = Callable[[int, int], None]

_progress_queue = None  # in a worker process: where its frames' progress goes


class Whole(NamedTuple):
    """A frame coded whole, handed over just before its pieces of `sizes`
    (the next payloads, coded beside it: fade.frames): each piece counts as
    done half its bytes and the whole the rest, so that the progress moves
    with the work. Where fade refuses to code it (its tables above the
    memory limit, where its pieces' fit), its result is empty."""

    data: bytes
    sizes: list[int]


def _worker_start(progress_queue) -> None:
    global _progress_queue
    _progress_queue = progress_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops the pool


def code_frame(kind: str, number: int, payload: bytes, options: dict,
               report: Callable[[int, int, float], None] | None = None) -> tuple:
    """Compress or decompress one frame: ("ok", result), or ("corrupt" or
    "error", message), since some of fade's errors do not survive pickling.
    In a worker process, progress goes to the main process through its
    queue, at most twice a second."""
    last = [0.0]

    def queued(done: int, total: int, bits: float) -> None:
        now = time.monotonic()
        if _progress_queue is not None and (now - last[0] > 0.5 or done == total):
            last[0] = now
            _progress_queue.put((number, done))

    try:
        coder = single.compress if kind == "compress" else single.decompress
        return "ok", coder(payload, progress=report or queued, **options)
    except CorruptArchiveError as error:
        return "corrupt", str(error)
    except FadeError as error:
        return "error", str(error)
    except MemoryError:
        return "error", "out of memory"


class InProcess:
    """The backend of `jobs` 1: each frame coded here, as it is handed over."""

    jobs = 1

    def __init__(self, kind: str, options: dict, report: Report):
        self.kind, self.options, self._report = kind, options, report

    def submit(self, number: int, payload: bytes) -> tuple:
        return code_frame(self.kind, number, payload, self.options,
                          lambda done, total, bits: self._report(number, done))

    def ready(self, pending: tuple) -> bool:
        return True

    def result(self, number: int, pending: tuple) -> tuple:
        return pending

    def close(self) -> None:
        pass


class Processes:
    """The backend of `jobs` > 1: spawned worker processes, one frame each at a time."""

    def __init__(self, jobs: int, kind: str, options: dict, report: Report):
        # (multiprocessing loads with the first pool, not with every process)
        import concurrent.futures
        import multiprocessing

        self.jobs, self.kind, self.options, self._report = jobs, kind, options, report
        context = multiprocessing.get_context("spawn")
        self._queue = context.Queue()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = \
            concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context,
                                                   initializer=_worker_start,
                                                   initargs=(self._queue,))

    def submit(self, number: int, payload: bytes) -> concurrent.futures.Future:
        return self._pool.submit(code_frame, self.kind, number, payload, self.options)

    def ready(self, pending: concurrent.futures.Future) -> bool:
        return pending.done()

    def result(self, number: int, pending: concurrent.futures.Future) -> tuple:
        import concurrent.futures.process

        while True:
            try:
                outcome = pending.result(timeout=0.2)
                break
            except concurrent.futures.TimeoutError:
                self._drain()
            except concurrent.futures.process.BrokenProcessPool:
                raise FadeError(f"frame {number}: a worker process died (out of memory? "
                                "try fewer jobs, -T)") from None
        self._drain()
        return outcome

    def _drain(self) -> None:
        while True:
            try:
                number, done = self._queue.get_nowait()
            except queue.Empty:
                return
            self._report(number, done)

    def close(self) -> None:
        """Stop the workers, also in the middle of a frame (an error, Ctrl-C)."""
        if self._pool is not None:
            # The executor has no public way to stop a running call before
            # Python 3.14 (terminate_workers); its process table has been
            # there since 3.2.
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayTasks:
    """The backend of a Ray cluster: each frame one task, on one CPU (or on
    one GPU with `device="cuda"`); `jobs` is the cluster's CPUs or GPUs."""

    def __init__(self, address: str, kind: str, options: dict):
        from fade import cluster  # (Ray's module: loaded only for a cluster)

        self.kind, self.options = kind, options
        self._ray, self._owned = cluster.connect(address)
        settings = options.get("settings")  # compressing: a fade.Settings; decoding: keywords
        on_gpu = (settings.device if settings is not None else options.get("device")) == "cuda"
        self._task = self._ray.remote(num_cpus=0 if on_gpu else 1, num_gpus=1 if on_gpu else 0,
                                      max_retries=RETRIES, retry_exceptions=False)(code_frame)
        units = self._ray.cluster_resources().get("GPU" if on_gpu else "CPU", 0)
        if units < 1:
            raise FadeError(f"the Ray cluster has no {'GPU' if on_gpu else 'CPU'} to run "
                            "frames on")
        self.jobs = int(units)
        self._in_flight: set = set()

    def submit(self, number: int, payload: bytes) -> Any:
        pending = self._task.remote(self.kind, number, payload, self.options)
        self._in_flight.add(pending)
        return pending

    def ready(self, pending: Any) -> bool:
        return bool(self._ray.wait([pending], timeout=0)[0])

    def result(self, number: int, pending: Any) -> tuple:
        try:
            return self._ray.get(pending)
        except self._ray.exceptions.RayError as error:
            raise FadeError(ray_failure(number, error)) from None
        finally:
            self._in_flight.discard(pending)

    def close(self) -> None:
        """Cancel the frames still in flight (an error, Ctrl-C); end a Ray
        connection this backend made."""
        for pending in self._in_flight:
            try:
                self._ray.cancel(pending, force=True)
            except Exception:  # already finished or lost: nothing to stop
                pass
        self._in_flight.clear()
        if self._owned:
            self._ray.shutdown()
            self._owned = False


def ray_failure(number: int, error: BaseException) -> str:
    """The one line that says why frame `number`'s Ray task failed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Ray colours its task names
    found = _IMPORT_FAILURE.findall(text)
    if found:
        from fade.version import __version__

        return (f"frame {number}: a Ray worker cannot import fade ({found[-1].strip()}): "
                f"install fade {__version__} where the cluster's workers run")
    return f"frame {number}: its Ray task failed ({type(error).__name__}, after up to " \
           f"{RETRIES} retries)"


class FramePool:
    """Codes frames in order through a backend (`frame_pool` picks it),
    with at most `window` frames handed over and not yet given out."""

    def __init__(self, kind: str, options: dict, jobs: int = 1, ray: str | None = None):
        self.kind = kind
        self._finished = 0  # bytes of the frames done (input for compress, output for decompress)
        self._partial: dict[int, int] = {}
        self._completed = 0  # frames done (they complete in order)
        self._counted: dict[int, tuple[int, int]] = {}  # frames counted in part: (counted, bytes)
        self._whole: set[int] = set()  # the Whole frames in flight
        self._progress: FramesProgress | None = None
        if ray is not None:
            self.backend = RayTasks(ray, kind, options)
        elif max(1, jobs) > 1:
            self.backend = Processes(jobs, kind, options, self._report)
        else:
            self.backend = InProcess(kind, options, self._report)

    @property
    def window(self) -> int:
        """Frames handed over and not yet given out, at most."""
        return self.backend.jobs * (1 + QUEUE_PER_JOB)

    def run(self, payloads: Iterable[bytes | Whole],
            progress: FramesProgress | None) -> Iterator[tuple[bytes, bytes]]:
        """(payload, result) for each payload (a Whole's data), in order. If
        `payloads` fails, the frames before the failure are still coded and
        given out first."""
        self._progress = progress
        source = enumerate(payloads)
        waiting: collections.deque = collections.deque()
        halves: list[int] = []  # what the last Whole's pieces still to come count
        while True:
            try:
                number, payload = next(source)
            except StopIteration:
                break
            except Exception:
                while waiting:
                    yield self._wait(*waiting.popleft())
                raise
            if isinstance(payload, Whole):
                halves = [size // 2 for size in payload.sizes]
                payload = payload.data
                self._whole.add(number)
                self._counted[number] = (len(payload) - sum(halves), len(payload))
            elif halves:
                self._counted[number] = (halves.pop(0), len(payload))
            waiting.append((number, payload, self.backend.submit(number, payload)))
            while waiting and (len(waiting) >= self.window or
                               self.backend.ready(waiting[0][2])):
                yield self._wait(*waiting.popleft())
        while waiting:
            yield self._wait(*waiting.popleft())

    def _wait(self, number: int, payload: bytes, pending) -> tuple[bytes, bytes]:
        status, *result = self.backend.result(number, pending)
        return payload, self._complete(number, payload, status, result)

    def _report(self, number: int, done: int) -> None:
        if number < self._completed:  # a late report of a frame already counted
            return
        counted, size = self._counted.get(number, (1, 1))
        self._partial[number] = done * counted // size
        if self._progress is not None:
            self._progress(self._finished + sum(self._partial.values()), None)

    def _complete(self, number: int, payload: bytes, status: str, result: list) -> bytes:
        if number in self._whole:
            self._whole.discard(number)
            if status == "error":  # a refusal (FadeError): the frame is written in pieces
                status, result = "ok", [b""]
        if status == "corrupt":
            raise CorruptArchiveError(f"frame {number}: {result[0]}")
        if status != "ok":
            raise FadeError(f"frame {number}: {result[0]}")
        self._partial.pop(number, None)
        self._completed = number + 1
        done = len(payload if self.kind == "compress" else result[0])
        self._finished += self._counted.pop(number, (done, done))[0]
        if self._progress is not None:
            self._progress(self._finished + sum(self._partial.values()), None)
        return result[0]

    def close(self) -> None:
        """Stop the backend, also in the middle of a frame (an error, Ctrl-C)."""
        self.backend.close()

    def __enter__(self) -> "FramePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
