"""Incremental coders over fade archives, as lzma's LZMACompressor and
LZMADecompressor and zstandard's compressobj and decompressobj.

`FadeCompressor` and `FadeDecompressor` are fed chunks of any size. They run
the stream functions of fade.frames and fade.members in one worker thread
each, which pulls the bytes given to it and stops as soon as it needs more
than it has: every call returns once the worker waits for input, so the
output of a call is all that its input allows, and memory is held to the
frames in flight. The archives are exactly those of
`fade.frames.compress_stream`.

Example:

    >>> import fade
    >>> compressor = fade.FadeCompressor(level="fast")
    >>> archive = compressor.compress(b"spam " * 100) + compressor.flush()
    >>> decompressor = fade.FadeDecompressor()
    >>> decompressor.decompress(archive + b"more") == b"spam " * 100
    True
    >>> decompressor.eof, decompressor.unused_data
    (True, b'more')
"""

from __future__ import annotations

import threading
from typing import Callable

from fade import frames, members
from fade.single import Settings


class _Aborted(Exception):
    """The owner of a worker thread gave up on it: the worker stops."""


class _Pump:
    """A worker thread running `work(pump)`, which reads the bytes fed to the
    pump (`read`, as from a pipe) and gives its output to `emit`.

    `settle()` waits until the worker has used every byte it can: it blocks
    in `read` wanting more, or it has finished."""

    def __init__(self, work: Callable[["_Pump"], None], name: str):
        self._condition = threading.Condition()
        self._input = bytearray()
        self._output: list[bytes] = []
        self._closed = self._aborted = self._hungry = self._finished = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _run(self, work: Callable[["_Pump"], None]) -> None:
        try:
            work(self)
        except BaseException as error:  # handed to the owner's thread by settle()
            self.error = error
        finally:
            with self._condition:
                self._finished = True
                self._condition.notify_all()

    # -- the worker's side
    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes fed (all, to the end of input, if negative);
        waits while there are none; b"" once the input is closed."""
        with self._condition:
            while not self._aborted and not self._closed and (not self._input or size < 0):
                self._hungry = True
                self._condition.notify_all()
                self._condition.wait()
            self._hungry = False
            if self._aborted:
                raise _Aborted()
            count = len(self._input) if size < 0 else min(size, len(self._input))
            data = bytes(self._input[:count])
            del self._input[:count]
            return data

    def ready(self) -> bool:
        """Whether a read would return at once (bytes are there, or the end)."""
        with self._condition:
            return bool(self._input) or self._closed or self._aborted

    def emit(self, data: bytes) -> None:
        with self._condition:
            self._output.append(data)

    # -- the owner's side
    def feed(self, data: bytes) -> None:
        with self._condition:
            self._input += data
            self._hungry = False
            self._condition.notify_all()

    def close_input(self) -> None:
        """The end of the input: the worker's reads give b"" from now on."""
        with self._condition:
            self._closed = True
            self._hungry = False
            self._condition.notify_all()

    def abort(self) -> None:
        """Stop the worker at its next read (nothing more is wanted of it)."""
        with self._condition:
            self._aborted = True
            self._condition.notify_all()

    def settle(self) -> bytes:
        """Wait until the worker wants input or is done; its output since
        the last call. Raises the worker's error, if it failed."""
        with self._condition:
            while not self._finished and not self._hungry:
                self._condition.wait()
            output, self._output = b"".join(self._output), []
        if self.error is not None and not isinstance(self.error, _Aborted):
            raise self.error
        return output

    @property
    def finished(self) -> bool:
        return self._finished

    def leftover(self) -> bytes:
        """Input fed and not read (after the worker finished: what followed its archive)."""
        with self._condition:
            return bytes(self._input)


class FadeCompressor:
    """Compress data incrementally into one archive, the bytes
    `fade.frames.compress_stream` writes for the same input and settings
    (for at most one frame, `fade.compress`'s).

    `settings`: a `fade.Settings` (its frame settings as for
    `compress_stream`), its fields replaced by the keyword arguments of the
    same names. Nothing is written before the
    second frame is complete (a single frame is a plain archive; with frames
    sized to the job, the default, not before the input ends or holds `jobs`
    frames of fade.frames.AUTO_FRAME_LIMIT); from then
    on each frame is given out by the call that completes it, so memory
    holds the frames in flight (two, and one per job beyond the first).

    >>> compressor = FadeCompressor(level="fast")
    >>> archive = compressor.compress(b"spam " * 100) + compressor.flush()
    >>> fade.decompress(archive) == b"spam " * 100
    True
    """

    def __init__(self, settings: Settings | str | None = None, **keywords):
        if isinstance(settings, str):  # fade 0.10: the level, first
            settings, keywords = None, {**keywords, "level": settings}
        settings = Settings.of(settings, **keywords)
        if settings.frame_size is not None:
            frames.check_frame_size(settings.frame_size)
        self._flushed = False

        def work(pump: _Pump) -> None:
            frames.compress_stream(pump, pump.emit, settings)

        self._pump = _Pump(work, "fade-compress")

    def compress(self, data: bytes) -> bytes:
        """Take `data`; return the archive bytes that are complete (often b"")."""
        if self._flushed:
            raise ValueError("the compressor has been flushed")
        self._pump.feed(bytes(data))
        return self._pump.settle()

    def flush(self) -> bytes:
        """End the input; return the rest of the archive. The compressor is
        then finished."""
        if self._flushed:
            raise ValueError("the compressor has been flushed")
        self._flushed = True
        self._pump.close_input()
        return self._pump.settle()

    def __del__(self) -> None:
        pump = getattr(self, "_pump", None)
        if pump is not None and not pump.finished:
            pump.abort()


class FadeDecompressor:
    """Decompress one archive incrementally, as `lzma.LZMADecompressor`
    does one stream: `decompress(data)` returns what `data` completes (a
    frames archive frame by frame, any other archive when it is whole);
    `eof` once the archive is decoded and checked; `unused_data`, what
    followed it; `needs_input`, False while output is held back by
    `max_length`. `options` go to `fade.decompress` (and `jobs` to
    `fade.frames.decompress_stream`). Errors are FadeError subclasses.
    Cost: a statistics archive's end is found only by decoding it, so one
    fed in pieces is decoded from its start again for each piece that
    arrives before its end: feed it in large pieces.

    >>> decompressor = FadeDecompressor()
    >>> archive = fade.compress(b"spam", method="stored")
    >>> decompressor.decompress(archive[:10]) + decompressor.decompress(archive[10:] + b"more")
    b'spam'
    >>> decompressor.eof, decompressor.unused_data
    (True, b'more')
    """

    def __init__(self, **options):
        jobs = options.pop("jobs", 1)
        ray = options.pop("ray", None)
        self.frames_decoded = 0  # frames of a frames archive decoded so far
        self._output = b""
        self._source: members.Source | None = None
        self._unused = b""
        self._done = False  # the worker has finished and unused_data is known
        self._error: BaseException | None = None

        def work(pump: _Pump) -> None:
            source = self._source = members.Source(pump)
            framed = frames.is_frames(source.peek(members.PREFIX_SIZE))

            def sink(data: bytes) -> None:
                if framed:
                    self.frames_decoded += 1
                pump.emit(data)

            members.decode_archive(source, sink, jobs=jobs, ray=ray, progress=None, check=None,
                                   options=options)

        self._pump = _Pump(work, "fade-decompress")

    def decompress(self, data: bytes, max_length: int = -1) -> bytes:
        """The decoded bytes that `data` (appended to the input so far)
        completes: at most `max_length` of them if it is not negative (the
        rest comes from later calls, which may pass b"")."""
        if self.eof:
            raise EOFError("already at end of stream")
        if self._error is not None:
            raise self._error
        if self._done:
            self._unused += bytes(data)
        else:
            self._pump.feed(bytes(data))
        self._collect()
        if max_length < 0:
            output, self._output = self._output, b""
        else:
            output, self._output = self._output[:max_length], self._output[max_length:]
        return output

    def _collect(self) -> None:
        try:
            self._output += self._pump.settle()
        except BaseException as error:
            self._error = error
            raise
        if self._pump.finished and not self._done:
            self._done = True
            pending = self._source.pending() if self._source is not None else b""
            self._unused = pending + self._pump.leftover()

    def end_input(self) -> bytes:
        """Say the input has ended: raises the archive's error if it is not
        complete (a truncated archive), else returns the output held back."""
        if not self._pump.finished:
            self._pump.close_input()
            self._collect()
        output, self._output = self._output, b""
        return output

    @property
    def eof(self) -> bool:
        """Whether the archive is decoded, checked and all its bytes given out."""
        return self._pump.finished and self._pump.error is None and not self._output

    @property
    def unused_data(self) -> bytes:
        """The bytes after the archive (once `eof`)."""
        return self._unused

    @property
    def needs_input(self) -> bool:
        """False where output is waiting (`max_length`) or the archive is done."""
        return not self._pump.finished and not self._output

    def __del__(self) -> None:
        pump = getattr(self, "_pump", None)
        if pump is not None and not pump.finished:
            pump.abort()
