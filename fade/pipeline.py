"""The coding pipeline: range-coder workers fed through ping-pong buffers.

The model's probabilities for step t go into one half (a *slot*) of a pair of
host buffers, t % 2; coder workers read them there, without copying, while
the model goes on with step t + 1 in the other slot. A worker owns the range
coders of some groups (fade.lockstep: the batch's sub-streams cut into G
contiguous groups, each with its own coder and payload) and answers every
(step, group) it is handed with a message saying it is done.

- Compression never waits for a coder except to reuse a slot: before writing
  step t into slot t % 2 the model waits until the workers have finished
  step t - 2 there.
- Decompression cannot run ahead (step t + 1 needs step t's bytes), but the
  groups overlap: while a worker decodes group g of step t, the device
  computes the forwards of the later groups and the backwards of the earlier
  ones (fade.lockstep.run). Decoded bytes come back in a second pair of slots.

Workers are threads or processes. constriction holds the GIL while it codes
(two Python threads coding take as long as one), so one coder
thread overlaps with torch (which releases the GIL) but a second adds
nothing; more than one worker are therefore forked processes, and the slots
live in anonymous shared memory that they inherit. Workers never import or
call torch. Which worker codes which group does not change any bit of the
archive: each group's coder sees the same probabilities in the same order.

On a GPU the probabilities reach the slot by an asynchronous copy; a
dispatcher thread waits for the copy's CUDA event and only then hands the
step to the worker, so the model's thread never blocks on a copy.
"""

from __future__ import annotations

import collections
import mmap
import multiprocessing
import queue
import signal
import threading
import time
from dataclasses import dataclass, field

from fade.lazy import numpy as np, torch

from fade.codings import Hybrid, NetworkAlone
from fade.entropy import PROB_DTYPE
from fade.errors import CorruptArchiveError

SLOTS = 2  # ping-pong: the model fills one slot while the coders read the other
VOCAB = 256

# Messages, as tuples: (kind, ...).
_CODE, _FINISH, _STOP = "code", "finish", "stop"  # to a worker
_DONE, _PAYLOADS, _ERROR = "done", "payloads", "error"  # from a worker


class SharedSlots:
    """The ping-pong buffers: probabilities (SLOTS, B, 256) float32 and
    decoded bytes (SLOTS, B) uint8, in one anonymous shared mapping that
    forked workers inherit. On CUDA the mapping is page-locked (pinned) so
    device copies into it are asynchronous; if that fails the copies are
    merely slower, never wrong."""

    def __init__(self, batch: int, device: torch.device):
        probs_bytes = SLOTS * batch * VOCAB * np.dtype(PROB_DTYPE).itemsize
        self._map = mmap.mmap(-1, probs_bytes + SLOTS * batch)
        self.probs = np.frombuffer(self._map, dtype=PROB_DTYPE,
                                   count=SLOTS * batch * VOCAB).reshape(SLOTS, batch, VOCAB)
        self.symbols = np.frombuffer(self._map, dtype=np.uint8, offset=probs_bytes,
                                     count=SLOTS * batch).reshape(SLOTS, batch)
        self.probs_tensor = torch.from_numpy(self.probs)  # the same memory
        self._pinned = None
        if device.type == "cuda":
            self._pin(probs_bytes + SLOTS * batch)

    def _pin(self, size: int) -> None:
        pointer = self.probs_tensor.data_ptr()
        try:
            error = torch.cuda.cudart().cudaHostRegister(pointer, size, 0)
        except Exception:  # noqa: BLE001 - pinning is an optimisation only
            return
        if int(error) == 0:
            self._pinned = pointer

    def close(self) -> None:
        if self._pinned is not None:
            torch.cuda.cudart().cudaHostUnregister(self._pinned)
            self._pinned = None


@dataclass
class Coding:
    """What the workers code: `mode` "encode" (with the input bytes) or
    "decode" (with one payload per group), for sub-streams starting at
    `starts`, cut into groups of rows `group_rows`."""

    mode: str
    starts: np.ndarray  # (B,) int64: first byte of each sub-stream
    group_rows: list[tuple[int, int]]  # [start, stop) rows of each group
    lengths: np.ndarray  # (B,) int64: each sub-stream's length
    way: NetworkAlone | Hybrid  # how the probabilities become bits (fade.codings)
    data: np.ndarray | None = None  # encode: the input as uint8
    payloads: list[bytes] | None = None  # decode: one per group

    def coder(self, group: int):
        """Group `group`'s coder: it codes the group's bytes in step order."""
        start, stop = self.group_rows[group]
        payload = None if self.mode == "encode" else self.payloads[group]
        return self.way.coder(self.lengths[start:stop], payload)


@dataclass
class StepCounters:
    """Per-step figures the workers report (for progress and profiling)."""

    done_bytes: int = 0
    bits: float = 0.0
    coder_seconds: dict[int, float] = field(default_factory=lambda: collections.defaultdict(float))


def _serve(conn, coding: Coding, slots: SharedSlots, groups: list[int]) -> None:
    """A worker's loop: code each (step, group) handed to it, in order."""
    try:
        coders = {g: coding.coder(g) for g in groups}
        while True:
            message = conn.recv()
            if message[0] == _CODE:
                _, step, group, count = message
                start = coding.group_rows[group][0]
                probs = slots.probs[step % SLOTS, start:start + count]
                began = time.perf_counter()
                coder = coders[group]
                before = coding.way.bits_so_far(coder)
                if coding.mode == "encode":
                    symbols = coding.data[coding.starts[start:start + count] + step]
                    coder.encode(symbols, probs)
                else:
                    symbols = coder.decode(probs)
                    slots.symbols[step % SLOTS, start:start + count] = symbols
                seconds = time.perf_counter() - began
                bits = coding.way.step_bits(coder, before, probs, symbols)
                conn.send((_DONE, step, group, count, bits, seconds))
            elif message[0] == _FINISH:
                conn.send((_PAYLOADS, {g: coder.finish() for g, coder in coders.items()}
                           if coding.mode == "encode" else {}))
            else:  # _STOP
                return
    except CorruptArchiveError as error:
        conn.send((_ERROR, "corrupt", str(error)))
    except (EOFError, OSError):  # the main side went away
        return
    except Exception as error:  # noqa: BLE001 - reported to the main side, raised there
        conn.send((_ERROR, "internal", f"{type(error).__name__}: {error}"))


def _serve_process(conn, coding: Coding, slots: SharedSlots, groups: list[int],
                   inherited: list) -> None:
    # Ctrl-C reaches the whole process group: the main process handles it and
    # stops the workers, which must not die half-way through a message.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for other in inherited:  # the main side's pipe ends (this worker's and earlier ones'):
        other.close()  # held here, they would keep workers from seeing the main side exit
    _serve(conn, coding, slots, groups)


class CoderPool:
    """Coder workers for one compression or decompression.

    Use as a context manager; `publish` hands a group's step to its worker
    once its probabilities are in `probs_slot`, `reserve` (encode) waits for
    a slot to be free, `symbols` (decode) waits for a group's decoded bytes,
    `finish` (encode) returns one payload per group. Waiting time is counted
    in `wait_seconds`.
    """

    # The dispatcher thread runs beside a GPU only; tests set this to run the
    # same hand-off on a CPU (where `ready` is None).
    always_dispatch = False

    def __init__(self, coding: Coding, workers: int, device: torch.device,
                 processes: bool | None = None):
        groups = len(coding.group_rows)
        self.coding = coding
        self.workers = max(1, min(workers, groups))
        batch = coding.group_rows[-1][1]
        self.slots = SharedSlots(batch, device)
        self.owner = [g % self.workers for g in range(groups)]
        self.counters = StepCounters()
        self.wait_seconds = 0.0
        self._pending = [collections.deque() for _ in range(self.workers)]
        self._acked: set[tuple[int, int]] = set()
        if processes is None:
            processes = self.workers > 1 or device.type == "cuda"
        if processes and "fork" not in multiprocessing.get_all_start_methods():
            processes = False  # no fork (Windows): threads, correct but coding on one core
        self._conns, self._workers = [], []
        for worker in range(self.workers):
            mine = [g for g in range(groups) if self.owner[g] == worker]
            here, there = multiprocessing.Pipe()
            if processes:
                runner = multiprocessing.get_context("fork").Process(
                    target=_serve_process, args=(there, coding, self.slots, mine,
                                                 self._conns + [here]),
                    daemon=True, name=f"fade-coder-{worker}")
            else:
                runner = threading.Thread(target=_serve, args=(there, coding, self.slots, mine),
                                          daemon=True, name=f"fade-coder-{worker}")
            runner.start()
            if processes:
                there.close()  # the child holds its end; ours would hide its exit
            self._conns.append(here)
            self._workers.append(runner)
        self._dispatch: queue.Queue | None = None
        if device.type == "cuda" or self.always_dispatch:
            self._dispatch = queue.Queue()
            self._dispatcher = threading.Thread(target=self._dispatch_loop, daemon=True,
                                                name="fade-dispatch")
            self._dispatcher.start()

    # -- the model's side -------------------------------------------------
    def probs_slot(self, step: int, group: int) -> torch.Tensor:
        """The (B_g, 256) float32 host rows that group's probabilities go to."""
        start, stop = self.coding.group_rows[group]
        return self.slots.probs_tensor[step % SLOTS, start:stop]

    def publish(self, step: int, group: int, count: int, ready=None) -> None:
        """Hand group `group` of `step` (its first `count` rows) to its worker;
        `ready`: a CUDA event after which the slot holds the probabilities."""
        worker = self.owner[group]
        self._pending[worker].append((step, group))
        self._post(worker, (_CODE, step, group, count), ready)

    def reserve(self, step: int) -> None:
        """Wait until the workers are done with the slot `step` will use."""
        for worker in range(self.workers):
            while self._pending[worker] and self._pending[worker][0][0] <= step - SLOTS:
                self._receive(worker)

    def symbols(self, step: int, group: int) -> np.ndarray:
        """Decoded bytes of a group's step (decode), once its worker has them."""
        worker = self.owner[group]
        while (step, group) not in self._acked:
            self._receive(worker)
        self._acked.discard((step, group))
        start, stop = self.coding.group_rows[group]
        return self.slots.symbols[step % SLOTS, start:stop]

    def drain(self) -> None:
        """Wait until the workers have coded every step handed to them."""
        for worker in range(self.workers):
            while self._pending[worker]:
                self._receive(worker)

    def finish(self) -> list[bytes]:
        """Wait for every step; then (encode) each group's payload, in group order."""
        self.drain()
        if self.coding.mode != "encode":
            return []
        payloads: dict[int, bytes] = {}
        for worker in range(self.workers):
            self._post(worker, (_FINISH,), None)
        for worker in range(self.workers):
            payloads.update(self._reply(worker, _PAYLOADS)[1])
        return [payloads[g] for g in range(len(self.coding.group_rows))]

    # -- plumbing -----------------------------------------------------------
    def _post(self, worker: int, message: tuple, ready) -> None:
        if self._dispatch is not None:
            self._dispatch.put((worker, message, ready))
            return
        try:
            self._conns[worker].send(message)
        except OSError:  # the worker has exited: it said why before it did
            while True:
                self._receive(worker)  # raises with the worker's error, or at its end

    def _dispatch_loop(self) -> None:
        while True:
            item = self._dispatch.get()
            if item is None:
                return
            worker, message, ready = item
            if ready is not None:
                ready.synchronize()  # releases the GIL while the copy finishes
            try:
                self._conns[worker].send(message)
            except OSError:  # the worker is gone; the main side will see it
                return

    def _reply(self, worker: int, kind: str) -> tuple:
        began = time.perf_counter()
        try:
            message = self._conns[worker].recv()
        except (EOFError, OSError):
            raise RuntimeError(f"coder worker {worker} stopped unexpectedly") from None
        finally:
            self.wait_seconds += time.perf_counter() - began
        if message[0] == _ERROR:
            _, error_kind, text = message
            if error_kind == "corrupt":
                raise CorruptArchiveError(text)
            raise RuntimeError(f"coder worker failed: {text}")
        if message[0] != kind:
            raise RuntimeError(f"coder worker sent {message[0]!r}, expected {kind!r}")
        return message

    def _receive(self, worker: int) -> None:
        _, step, group, count, bits, seconds = self._reply(worker, _DONE)
        expected = self._pending[worker].popleft() if self._pending[worker] else None
        if expected != (step, group):
            raise RuntimeError(f"coder worker answered {(step, group)}, expected {expected}")
        if self.coding.mode == "decode":  # `symbols` waits for it; nobody waits on an encode
            self._acked.add((step, group))
        self.counters.done_bytes += count
        self.counters.bits += bits
        self.counters.coder_seconds[step] += seconds

    def close(self) -> None:
        """Stop the workers (after an error too); never raises."""
        if self._dispatch is not None:
            self._dispatch.put(None)
            self._dispatcher.join(timeout=5)
        for conn in self._conns:
            try:
                conn.send((_STOP,))
            except OSError:
                pass
        for runner in self._workers:
            runner.join(timeout=5)
            if isinstance(runner, multiprocessing.process.BaseProcess) and runner.is_alive():
                runner.terminate()
                runner.join(timeout=5)
        for conn in self._conns:
            conn.close()
        self.slots.close()

    def __enter__(self) -> "CoderPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
