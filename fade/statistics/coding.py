"""The statistics' state and the ways to code with them.

`Tables` holds all adaptive state of one model and its coder, as arrays
the compiled kernels take whole; two ways drive the model's per-bit
predictor (fade.statistics.predictor, compiled for the model's parts by
fade.statistics.compose):

- `encode_file` / `decode_file`: one stream in file order (the statistics
  alone: levels fast and default, and max where the network cannot pay).
- `Statistics`: several sub-streams in fade's lockstep, one byte of each per
  step, with an optional 256-way distribution per byte from the network
  that enters the mixer as one more input (the hybrid). Each sub-stream has
  its own recent bytes, word and match state, and contexts keyed by its
  index beside the shared ones: the shared recency state of a slot is
  disturbed by the other streams between a stream's own visits, the keyed
  contexts keep it.

Cost: 2-5 us per byte and stream on one core (model 1: about 1.5 times
that, model 2 about 3 times, model 3 about 5 times), whatever the stream
count; the hash table takes 64 bytes a slot (one cache line;
StatisticsConfig.memory_bytes counts every array). The model's loops are
those compiled at install (fade.statistics.ahead); where there are none,
the first call in a process compiles them (seconds) or loads them from
numba's cache (the user's cache folder, fade.statistics.kernels).
"""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator, NamedTuple

import numpy as np

from fade.config import StatisticsConfig
from fade.errors import CorruptArchiveError
from fade.statistics.histories import prior as state_prior
from fade.statistics.logistic import SQUASH, STRETCH  # noqa: F401 (STRETCH: fade.statistics')
from fade.statistics.models import MODEL_PARTS
from fade.statistics.colour import from_green, to_green
from fade.statistics.pixels import (HEAD_LIMIT, RAW_HEAD, Layout, coded_layout,
                                    image_layout, made_header, raw_layout)
from fade.statistics.parts import (F_DNA, F_IMAGE, F_JPEG, F_PIXELS, F_STATES, F_X86,
                                   MAX_CONTEXTS, active_contexts)
from fade.statistics.compose import predictor_for
from fade.statistics.steps import from_addresses, from_residuals, to_addresses, to_residuals
from fade.statistics.layouts.dna import dna_bits
from fade.statistics.parts import F_RECORDS, F_TABLE
from fade.statistics.state import (APM_KNOTS, C_DAMAGED, C_GROWN, C_HIGH, C_NEXT, C_POS,
                                   CHECK_FIRST, FIXED_INPUTS, GROWN, INPUTS, NETWORK_INPUT,
                                   context_inputs, final_sets, kind_inputs, kind_sets,
                                   state_arrays, step_bound)


class Tables(NamedTuple):
    """All adaptive state of one statistics model and its coder, as arrays
    the compiled kernels take whole (numba reads a named tuple's fields by
    name). fade.statistics.state.state_arrays gives each field's shape and
    dtype, in this order; `build` allocates and starts them. A kernel binds
    the fields it uses to locals once, at its start: each read of a field
    costs numba a reference count update, too dear in the per-bit code
    (docs/history/statistics-0.11.md, "Speed")."""

    nodes: np.ndarray  # the hash table: 2^table_bits slots of NODES nodes
    direct: np.ndarray  # order 1 by (last byte, c0), no hashing
    state_maps: np.ndarray  # per context, a bit history's probability
    match_table: np.ndarray  # the match model's hash of the last MATCH_MIN bytes -> position
    match_map: np.ndarray  # the match model's (length, expected bit) -> probability
    weights: np.ndarray  # the mixer's weight sets, INPUTS each
    apm1: np.ndarray  # APM by c0
    apm2: np.ndarray  # APM by the last byte and c0
    streams: np.ndarray  # (streams, S_FIELDS): each stream's state
    buffer: np.ndarray  # every coded byte
    known: np.ndarray  # 1 where a byte is coded
    inputs: np.ndarray  # the current bit's mixer inputs
    scratch: np.ndarray  # the current bit's mixer state, then context hashes
    parameters: np.ndarray  # the P_ fields: the config and the active contexts
    apm3: np.ndarray  # F_APM3: APM by a hash of order 2 and c0
    final: np.ndarray  # F_LAYERS: the final mixer's weights, by c0 (and F_FINAL2's after)
    followers: np.ndarray  # F_INDIRECT: the bytes that followed each byte and pair
    runs: np.ndarray  # F_RUNS: per context hash, its last byte and run length
    run_map: np.ndarray  # per context, (run length, expected bit) -> probability
    recent: np.ndarray  # F_RECORD: per stream, each byte value's last place
    # The kind's own arrays (fade.statistics.layouts): F_IMAGE's solvers or
    # F_JPEG's parser; F_DNA's counts, F_IMAGE's histograms or F_JPEG's
    # probabilities; F_DNA's bases or F_IMAGE's errors.
    kind_state: np.ndarray
    kind_map: np.ndarray
    kind_bytes: np.ndarray
    coder: np.ndarray  # the range coder's C_ fields

    @classmethod
    def build(cls, config: StatisticsConfig, streams: int, length: int) -> "Tables":
        """Fresh tables for `streams` sub-streams of `length` bytes in all
        (FadeError for a config out of its domains)."""
        tables = cls(**{name: np.zeros(shape, dtype=dtype)
                        for name, shape, dtype in state_arrays(config, streams, length)})
        parts = MODEL_PARTS[config.model]
        tables.direct[:] = 1 << 31
        # A bit history h starts near its bits' mean, in every context's map.
        prior = state_prior if parts & F_STATES else _history_prior
        priors = np.array([prior(h) for h in range(256)], dtype=np.uint32)
        tables.state_maps.reshape(MAX_CONTEXTS, 256)[:] = priors
        tables.match_map[:] = 1 << 31
        active, late, unkeyed = active_contexts(parts, config.keyed)
        _start_weights(tables.weights.reshape(-1, INPUTS), active, late, unkeyed)
        # the kind's inputs (F_DNA's, F_IMAGE's, F_JPEG's): after the contexts'
        first = FIXED_INPUTS + context_inputs(parts) * len(active)
        tables.weights.reshape(-1, INPUTS)[:, first:first + kind_inputs(parts)] = KIND_WEIGHT
        if parts & F_JPEG:  # (its contexts' probabilities at 1/2)
            tables.kind_map[:] = 1 << 31
        knots = SQUASH[(np.arange(APM_KNOTS) * 128 - 1).clip(0, 4094)].astype(np.int64)
        for apm in (tables.apm1, tables.apm2, tables.apm3):
            apm.reshape(-1, APM_KNOTS)[:] = knots
        tables.coder[C_NEXT] = CHECK_FIRST
        tables.coder[C_HIGH] = 0xFFFFFFFF
        sets = final_sets(parts)
        tables.parameters[:] = [config.table_bits, config.match_bits, config.mixer_rate,
                                int(config.keyed), parts, sets, kind_sets(parts, F_TABLE),
                                kind_sets(parts, F_DNA), dna_bits(config.table_bits), first,
                                kind_sets(parts, F_X86), kind_sets(parts, F_RECORDS),
                                kind_sets(parts, F_IMAGE), len(active), *active]
        # The final mixers' weights, each row: the average of the sets at first.
        tables.final[:] = 65536 // sets
        tables.run_map[:] = 1 << 31
        # 32-bit weights where a byte of each stream can never take one from
        # below GROWN past 2^31: 8 bits, each a step of every set at the most
        # (a JPEG's padding learns one row in three sets; fade.statistics.state)
        if 8 * sets * streams * step_bound(config.mixer_rate) >= (1 << 31) - GROWN:
            tables = tables.widened()
        return tables

    def widened(self) -> "Tables":
        """These tables with 64-bit weights, the same values (where a weight of
        32 bits grew: C_GROWN; the coder's flag cleared)."""
        self.coder[C_GROWN] = 0
        return self._replace(weights=self.weights.astype(np.int64))


KIND_WEIGHT = 8192  # each of the kind's inputs' weight at first (1/8)


def _start_weights(weights: np.ndarray, active: list[int], late: list[int],
                   unkeyed: int) -> None:
    """The mixer's starting weights, (sets, INPUTS): 1/4 for the inputs that
    predict from the start, 0 for those that may say nothing at first (the
    keyed contexts, the network, the contexts from model 2 on, F_RUNS'
    inputs), which the mixer raises as they prove useful."""
    weights[:] = 16384
    weights[:, FIXED_INPUTS + 2 * unkeyed:] = 0
    weights[:, NETWORK_INPUT] = 0
    for k in late:
        weights[:, FIXED_INPUTS + 2 * k:FIXED_INPUTS + 2 * k + 2] = 0
    weights[:, FIXED_INPUTS + 2 * len(active):] = 0


def _history_prior(h: int) -> int:
    """A bit history's starting probability of a 1: (ones + 0.5) / (bits + 1)."""
    if h < 2:
        return 1 << 31
    bits = h.bit_length() - 1
    ones = bin(h & ((1 << bits) - 1)).count("1")
    p16 = (2 * ones + 1) * 65536 // (2 * bits + 2)
    return (min(max(p16, 64), 65472) << 16)


CHUNK = 1 << 16  # bytes coded between progress reports (and Ctrl-C checks): ~0.3 s


def encode_file(data: bytes, config: StatisticsConfig,
                progress: Callable[[int, int], None] | None = None) -> bytes | None:
    """Code `data` in file order: the stream `decode_file` takes back, or None
    if it would exceed 10 bits a byte (the size floor wins there anyway).
    `progress(bytes_done, bits_so_far)` is called every CHUNK bytes (the
    bits the coder has put out, at most 32 short of the code length)."""
    return encode_file_marked(data, config, np.zeros(0, dtype=np.int64), progress)[0]


def encode_file_marked(data: bytes, config: StatisticsConfig, marks: np.ndarray,
                       progress: Callable[[int, int], None] | None = None
                       ) -> tuple[bytes | None, np.ndarray]:
    """`encode_file`, and the bits put out for data[:m] at each offset m of
    `marks` (0 <= m <= len(data), any order): multiples of 8, at most 32 bits
    short of the code length (what the coder holds back), the same on any
    CPU; `progress` is also called at each mark."""
    parts = MODEL_PARTS[config.model]
    head = _made_head(data, parts)
    if head:  # (F_PIXELS: coded before the bytes, dropped by the decoder)
        data, marks = head + data, np.asarray(marks, dtype=np.int64) + len(head)
        if progress is not None:
            progress = _shifted(progress, len(head))
    loop = _Loop(parts, Tables.build(config, 1, len(data)))
    loop.code.begin_streams(loop.tables, np.zeros(1, dtype=np.int64),
                            np.array([len(data)], dtype=np.int64))
    source = np.frombuffer(data, dtype=np.uint8)
    source = _changed(source, parts)
    out = np.zeros(len(data) + len(data) // 4 + 64, dtype=np.uint8)
    marks = np.asarray(marks, dtype=np.int64)
    bits = np.zeros(len(marks), dtype=np.int64)
    layout = _pixels(data, parts)
    # (a set: numpy's union1d loads numpy.ma, 8 ms of every process that codes)
    stops = {*range(CHUNK, len(data), CHUNK), *marks.tolist()}
    if layout is not None:
        stops.add(layout.start)
    begin = 0
    for end in [*sorted(stop for stop in stops if 0 < stop < len(data)), len(data)]:
        if loop.encode(source, begin, end, out) > out.shape[0]:
            return None, bits
        if layout is not None and end == layout.start:
            _begin_image(loop, layout, len(data))
        bits[marks == end] = 8 * loop.tables.coder[C_POS]
        if progress is not None and (end % CHUNK == 0 or end == len(data) or end in marks):
            progress(end, 8 * int(loop.tables.coder[C_POS]))
        begin = end
    loop.code.flush(loop.tables.coder, out)
    size = loop.tables.coder[C_POS]
    return (None if size > out.shape[0] else out[:size].tobytes()), bits


def decode_file(stream: bytes, size: int, config: StatisticsConfig,
                progress: Callable[[int, int], None] | None = None) -> bytes:
    """The `size` bytes `encode_file` coded into `stream`; raises
    CorruptArchiveError if the stream runs out first."""
    return decode_prefix(stream, size, config, progress)[0]


def decode_prefix(stream: bytes, size: int, config: StatisticsConfig,
                  progress: Callable[[int, int], None] | None = None) -> tuple[bytes, int]:
    """`decode_file` of a stream that may have other bytes after it: the
    `size` bytes and the length of the stream `encode_file` wrote. The
    decoder reads the 4 bytes the encoder's flush writes first and then one
    byte per byte the encoder shifted out, so where it stops is where the
    encoder's stream ended (what finds the end of a statistics archive in a
    concatenation)."""
    parts = MODEL_PARTS[config.model]
    made = RAW_HEAD if parts & F_PIXELS else 0  # room for the header F_PIXELS makes
    loop = _Loop(parts, Tables.build(config, 1, size + made))
    loop.code.begin_streams(loop.tables, np.zeros(1, dtype=np.int64),
                            np.array([size + made], dtype=np.int64))
    out = np.zeros(size + made, dtype=np.uint8)
    payload = np.frombuffer(stream, dtype=np.uint8).copy()  # numba takes no read-only array
    loop.code.start_decoder(loop.tables.coder, payload)
    first = 0
    if parts & F_IMAGE:
        first = _decode_head(loop, payload, out[:size + made])
    if made:
        if first > made or image_layout(out[:first]) is None:
            raise CorruptArchiveError("the statistics stream is damaged: its image header "
                                      "is not one")
        out, made = out[:first + size], first
        if progress is not None:
            progress = _shifted(progress, made)
    size += made
    for begin in range(first, size, CHUNK):
        end = min(begin + CHUNK, size)
        done = loop.decode(payload, out, begin, end)
        if done < end:
            raise CorruptArchiveError(f"the statistics stream is damaged: a check failed, or "
                                      f"it ran out, after {done} of {size} bytes")
        if progress is not None:
            progress(end, 8 * int(loop.tables.coder[C_POS]))
    used = int(loop.tables.coder[C_POS])
    if used > len(stream):
        raise CorruptArchiveError(f"the statistics stream is truncated: it needs {used} bytes, "
                                  f"{len(stream)} are there")
    out = _restored(out, made, parts)
    return out.tobytes(), used


@contextlib.contextmanager
def measured_model(parts: int) -> Iterator[int]:
    """A model index whose parts are `parts` inside the block, for encode_file
    and its kin: a candidate tried by its parts, no model of the table, only
    measured (the first band model's index, fade.statistics.models.BAND,
    holds them meanwhile; StatisticsConfig.validate refuses it in an archive).
    Not for threads that code meanwhile."""
    from fade.statistics import models, state
    spare = len(models.MODELS)
    global MODEL_PARTS
    patched = models.MODEL_PARTS[:spare] + (parts,) + models.MODEL_PARTS[spare + 1:]
    MODEL_PARTS = state.MODEL_PARTS = patched
    try:
        yield spare
    finally:
        MODEL_PARTS = state.MODEL_PARTS = models.MODEL_PARTS


def _pixels(data: bytes, parts: int) -> Layout | None:
    """F_IMAGE: the layout of the image `data` begins with, where the
    decoder finds it too (`_decode_head`): from exactly the bytes before
    the pixels; else None."""
    return coded_layout(data) if parts & F_IMAGE else None


def _made_head(data: bytes, parts: int) -> bytes:
    """F_PIXELS: the PNM header of the layout `raw_layout` measures in
    `data` (of one pixel where it finds none: the bytes are then coded as
    other bytes); else nothing."""
    if not parts & F_PIXELS:
        return b""
    return made_header(raw_layout(data))


def _shifted(progress: Callable[[int, int], None], made: int) -> Callable[[int, int], None]:
    """`progress` told of the input's bytes, not of a made header's."""
    return lambda done, bits: progress(max(done - made, 0), bits)


class _Loop:
    """A model's compiled loops over a file and its Tables, which it widens to
    64-bit weights where a 32-bit weight grew (fade.statistics.state.GROWN)
    and goes on from the byte after: numba's run-time code takes those (the
    modules compiled at install are typed for 32-bit weights)."""

    def __init__(self, parts: int, tables: Tables):
        self.parts, self.tables = parts, tables
        self.code = predictor_for(parts, ahead=tables.weights.itemsize == 4)

    def encode(self, source: np.ndarray, begin: int, end: int, out: np.ndarray) -> int:
        """Encode source[begin:end] into `out`: the coder's position in it."""
        while True:
            position = self.code.encode_range(self.tables, source, begin, end, out)
            begin = self.grown()
            if begin is None:
                return position

    def decode(self, payload: np.ndarray, out: np.ndarray, begin: int, end: int) -> int:
        """Decode out[begin:end]: where it stopped (end unless damaged)."""
        while True:
            done = self.code.decode_range(self.tables, payload, out, begin, end)
            if self.tables.coder[C_DAMAGED]:
                return done
            begin = self.grown()
            if begin is None:
                return done

    def grown(self) -> int | None:
        """Where the loop stopped for a weight that grew, the tables widened
        for the rest; None where none did. (The lockstep asks after each
        step, each stream's next byte, which it never stops in: Tables.build
        keeps a step's weights below 2^31.)"""
        at = int(self.tables.coder[C_GROWN])
        if not at:
            return None
        self.tables = self.tables.widened()
        self.code = predictor_for(self.parts, ahead=False)
        return at


def _begin_image(loop: _Loop, layout: Layout, size: int) -> None:
    loop.code.begin_image(loop.tables, 0, layout.start, min(layout.end, size), layout.stride,
                          layout.row, layout.pixel)


def _decode_head(loop: _Loop, payload: np.ndarray, out: np.ndarray) -> int:
    """F_IMAGE: decode out's bytes one at a time until those decoded give
    an image's layout (`image_layout` finds none from fewer bytes than its
    header), and start its pixels there; or until HEAD_LIMIT bytes (or
    all) are decoded without one. Returns how many bytes are decoded."""
    size = len(out)
    limit = min(size, HEAD_LIMIT)
    for done in range(limit):
        layout = image_layout(out[:done])
        if layout is not None:
            _begin_image(loop, layout, size)
            return done
        if loop.decode(payload, out, done, done + 1) < done + 1:
            return done  # (damaged: decode_prefix finds it so)
    return limit


def _changed(data: np.ndarray, parts: int) -> np.ndarray:
    """`data` (with F_PIXELS's made header) as a model with `parts` codes it
    in file order: x86 addresses, then audio residuals (fade.statistics.steps),
    then colours as green and differences (fade.statistics.colour), where
    its parts ask; `_restored` undoes them, last first."""
    return to_green(to_residuals(to_addresses(data, parts), parts), parts)


def _restored(data: np.ndarray, made: int, parts: int) -> np.ndarray:
    """The bytes `_changed` took, less the `made` bytes of F_PIXELS's header."""
    return from_addresses(from_residuals(from_green(data, parts)[made:], parts), parts)


# The network's float32 probabilities become integer weights p * 2^24 + 1:
# exact in float32 (a power of two) and truncated alike everywhere, never 0.
_NETWORK_SCALE = np.float32(1 << 24)


def network_weights(probabilities: np.ndarray) -> np.ndarray:
    """The integer form of the network's (count, 256) float32 probabilities."""
    return (probabilities * _NETWORK_SCALE).astype(np.int64) + 1


class Statistics:
    """One group's statistics, coding its sub-streams in lockstep with the
    network (the hybrid): `encode` or `decode` one step at a time, one byte
    per active sub-stream (the first `count` of the group's), then `finish`.

    `lengths`: each sub-stream's length, in file order (the group's bytes
    are contiguous); `payload`: the stream to decode, or None to encode.
    Cost per step: 2-5 us per byte, in compiled code that releases the GIL."""

    def __init__(self, config: StatisticsConfig, lengths: np.ndarray,
                 payload: bytes | None = None):
        lengths = np.asarray(lengths, dtype=np.int64)
        self._loop = _Loop(MODEL_PARTS[config.model],
                           Tables.build(config, len(lengths), int(lengths.sum())))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        self._loop.code.begin_streams(self._loop.tables, starts, lengths)
        self._coder = self._loop.tables.coder
        if payload is None:
            self._stream = np.zeros(1 << 16, dtype=np.uint8)
        else:
            self._stream = np.frombuffer(payload, dtype=np.uint8).copy()
            self._loop.code.start_decoder(self._coder, self._stream)
        self._empty = np.zeros((1, 0), dtype=np.int64)

    def encode(self, symbols: np.ndarray, probabilities: np.ndarray | None) -> None:
        """Code symbols[s] (uint8) of the first len(symbols) sub-streams."""
        count = len(symbols)
        need = int(self._coder[C_POS]) + 16 * count + 16  # a byte costs at most 16 bytes
        if need > len(self._stream):
            grown = np.zeros(max(need, 2 * len(self._stream)), dtype=np.uint8)
            grown[:len(self._stream)] = self._stream
            self._stream = grown
        weights = self._empty if probabilities is None else network_weights(probabilities)
        self._loop.code.code_step(self._loop.tables, self._stream,
                                  np.ascontiguousarray(symbols, dtype=np.uint8), weights, count,
                                  False)
        self._loop.grown()

    def decode(self, probabilities: np.ndarray | None, count: int | None = None) -> np.ndarray:
        """The next byte of each of the first `count` sub-streams (default: one
        per row of `probabilities`)."""
        count = len(probabilities) if count is None else count
        if probabilities is not None and not np.isfinite(probabilities).all():
            raise CorruptArchiveError("the model's probabilities are not finite: the header's "
                                      "model settings are not those the archive was made with")
        weights = self._empty if probabilities is None else network_weights(probabilities)
        symbols = np.zeros(count, dtype=np.uint8)
        if self._loop.code.code_step(self._loop.tables, self._stream, symbols, weights, count,
                                     True) < count:
            raise CorruptArchiveError("the statistics stream is damaged: a check failed, or it "
                                      "ran out (or the header is not the one it was made with)")
        self._loop.grown()
        return symbols

    @property
    def bits(self) -> int:
        """Bits put out (encoding) or taken in (decoding) so far."""
        return 8 * int(self._coder[C_POS])

    def finish(self) -> bytes:
        """The encoded stream, complete."""
        self._loop.code.flush(self._coder, self._stream)
        return self._stream[:self._coder[C_POS]].tobytes()
