"""Exponent codecs: the exponent field of a float tensor as a compact stream.

Three published families, each vectorised with numpy (no Python loop per
value; the Huffman decoders loop over positions inside a block, decoding
every block of the stream at once):

- `window7` (ZipCCL, arXiv 2604.27844): a window of 7 consecutive exponents
  chosen from the tensor's standard deviation, not counted: the window
  [2^x, 2^(x+7)) of a N(0, sigma) tensor covers erf(128u) - erf(u),
  u = 2^x / (sigma sqrt 2), which peaks at x = log2(sigma) - 5.35. Codes are
  3 bits (7 window values + an escape code); escaped exponents are stored in
  full in a list with a count per block of 4096 values, so a parallel
  decoder can find each block's escapes without scanning.
- `top16` (SplitZip, arXiv 2605.01708): a codebook of the 16 most frequent
  exponents, calibrated on a sample, 4-bit codes, and a sparse escape
  stream of (position, value) pairs; positions are one byte inside blocks of
  255 values, with a one-byte escape count per block. The fastest codec.
- `huffman` (sample Huffman, Gajjala et al.): a canonical Huffman code built
  from a uniform random sample of the exponents with one added to every
  count, so no exponent lacks a code. `rlh` (run-length Huffman): (value,
  run length) pairs, each Huffman-coded; wins on sparse or piecewise
  constant data (long runs of zeros).

Every stream is self-describing given the number of values; damaged streams
raise ValueError (the archive layer reports them as a damaged archive).
"""

from __future__ import annotations

import heapq
import math
import struct

from fade.lazy import numpy as np

from fade.floats.layout import FloatType, pack_bits, unpack_bits

WINDOW = 7
WINDOW_BLOCK = 4096  # values per escape count (u16) in window7
TOP = 16
SPARSE_BLOCK = 255  # values per escape block in top16: offsets and counts fit a byte
SAMPLE = 65536  # values sampled to calibrate top16 and sample Huffman
MAX_CODE_LENGTH = 16  # Huffman decode reads 16-bit windows
MAX_RUN = 256  # longest run in one rlh pair (run - 1 fits a byte)
ZIPCCL_OFFSET = 5.35  # x_opt = log2(sigma) - 5.35 (ZipCCL)

_U16, _U32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")


class _Reader:
    """Slices of a stream with bounds checks (a short stream is damage)."""

    def __init__(self, stream: bytes):
        self.view, self.offset = memoryview(stream), 0

    def take(self, size: int) -> np.ndarray:
        if size < 0 or self.offset + size > len(self.view):
            raise ValueError("exponent stream is truncated")
        chunk = np.frombuffer(self.view[self.offset:self.offset + size], np.uint8)
        self.offset += size
        return chunk

    def number(self, layout: struct.Struct) -> int:
        return layout.unpack(self.take(layout.size).tobytes())[0]

    def rest(self) -> np.ndarray:
        return self.take(len(self.view) - self.offset)

    def end(self) -> None:
        if self.offset != len(self.view):
            raise ValueError("unexpected bytes after the exponent stream")


def _sample(values: np.ndarray) -> np.ndarray:
    """A uniform random sample (fixed seed: the same data gives the same stream)."""
    if values.size <= SAMPLE:
        return values
    picks = np.random.default_rng(0).integers(0, values.size, SAMPLE)
    return values[picks]


# -- window7 (ZipCCL) -----------------------------------------------------------

def window_coverage(x: float, sigma: float) -> float:
    """Share of N(0, sigma) values with magnitude in [2^x, 2^(x+7))."""
    u = 2.0 ** x / (sigma * math.sqrt(2.0))
    return math.erf(128 * u) - math.erf(u)


def window_base(sigma: float, ftype: FloatType) -> int:
    """The exponent field that starts the derived window (not counted)."""
    if not (math.isfinite(sigma) and sigma > 0):
        return 0  # no spread (all zeros, or no finite value): zeros live at field 0
    x_opt = math.log2(sigma) - ZIPCCL_OFFSET
    x = max((math.floor(x_opt), math.ceil(x_opt)), key=lambda x: window_coverage(x, sigma))
    return int(min(max(x + ftype.bias, 0), ftype.alphabet - WINDOW))


def encode_window7(exponents: np.ndarray, ftype: FloatType, sigma: float) -> bytes:
    base = window_base(sigma, ftype)
    codes = exponents - np.uint8(base)  # below the window wraps round to >= 249
    escaped = np.flatnonzero(codes >= WINDOW)
    codes[escaped] = WINDOW
    blocks = -(-exponents.size // WINDOW_BLOCK)
    counts = np.bincount(escaped // WINDOW_BLOCK, minlength=blocks).astype("<u2")
    return b"".join((bytes([base]), counts.tobytes(), exponents[escaped].tobytes(),
                     pack_bits(codes, 3)))


def decode_window7(stream: bytes, count: int, ftype: FloatType) -> np.ndarray:
    reader = _Reader(stream)
    base = int(reader.take(1)[0])
    if base > ftype.alphabet - WINDOW:
        raise ValueError("window base out of range")
    blocks = -(-count // WINDOW_BLOCK)
    counts = reader.take(2 * blocks).view("<u2")
    escapes = reader.take(int(counts.sum(dtype=np.int64)))
    codes = unpack_bits(reader.rest(), 3, count)
    exponents = codes + np.uint8(base)
    escaped = np.flatnonzero(codes == WINDOW)
    if escaped.size != escapes.size or not np.array_equal(
            np.bincount(escaped // WINDOW_BLOCK, minlength=blocks), counts):
        raise ValueError("escape counts do not match the codes")
    exponents[escaped] = escapes
    return exponents


# -- top16 (SplitZip) ----------------------------------------------------------

def top16_book(counts: np.ndarray) -> np.ndarray:
    """The 16 most frequent exponents (ties: the smaller), in ascending order,
    so that a near-Gaussian tensor's book is a run coded by subtraction."""
    return np.sort(np.argsort(-counts, kind="stable")[:TOP]).astype(np.uint8)


def encode_top16(exponents: np.ndarray, ftype: FloatType, sigma: float = 0.0) -> bytes:
    book = top16_book(np.bincount(_sample(exponents), minlength=ftype.alphabet))
    if int(book[-1]) - int(book[0]) == TOP - 1:  # a run of 16: codes by subtraction
        codes = exponents - book[0]
        escaped = np.flatnonzero(codes >= TOP)
    else:
        lut = np.full(ftype.alphabet, TOP, np.uint8)
        lut[book] = np.arange(TOP, dtype=np.uint8)
        codes = lut[exponents]
        escaped = np.flatnonzero(codes == TOP)
    codes[escaped] = 0
    if codes.size % 2:
        codes = np.append(codes, np.uint8(0))
    pairs = codes.reshape(-1, 2)
    nibbles = pairs[:, 0] << 4
    nibbles |= pairs[:, 1]
    blocks = -(-exponents.size // SPARSE_BLOCK)
    block_of = escaped // SPARSE_BLOCK
    per_block = np.bincount(block_of, minlength=blocks).astype(np.uint8)  # <= 255
    offsets = (escaped - block_of * SPARSE_BLOCK).astype(np.uint8)
    return b"".join((book.tobytes(), per_block.tobytes(), offsets.tobytes(),
                     exponents[escaped].tobytes(), nibbles.tobytes()))


def decode_top16(stream: bytes, count: int, ftype: FloatType) -> np.ndarray:
    reader = _Reader(stream)
    book = reader.take(TOP)
    if int(book.max()) >= ftype.alphabet:
        raise ValueError("codebook entry out of range")
    blocks = -(-count // SPARSE_BLOCK)
    per_block = reader.take(blocks)
    total = int(per_block.sum(dtype=np.int64))
    offsets = reader.take(total)
    values = reader.take(total)
    nibbles = reader.rest()
    if nibbles.size != -(-count // 2):
        raise ValueError("exponent codes have the wrong length")
    # One lookup per byte gives both exponents: (high nibble, low nibble) -> two bytes.
    table = (book[np.arange(256) >> 4].astype("<u2") | (book[np.arange(256) & 15].astype("<u2") << 8))
    exponents = table[nibbles].view(np.uint8)[:count]  # a new array: writable
    positions = np.repeat(np.arange(blocks, dtype=np.int64) * SPARSE_BLOCK, per_block) + offsets
    if total and int(positions.max()) >= count:
        raise ValueError("escape position out of range")
    exponents[positions] = values
    return exponents


# -- canonical Huffman, block-parallel ------------------------------------------

def huffman_lengths(counts: np.ndarray, max_length: int = MAX_CODE_LENGTH) -> np.ndarray:
    """Code length per symbol (0 for count 0), none longer than max_length.

    Plain Huffman; while the tree is too deep, the counts are halved (never
    below 1) and the code rebuilt, which flattens it. Deterministic: ties
    break on the symbol order.
    """
    counts = np.asarray(counts, dtype=np.int64)
    while True:
        lengths = np.zeros(counts.size, np.uint8)
        present = [int(s) for s in np.flatnonzero(counts)]
        if len(present) == 1:
            lengths[present[0]] = 1
            return lengths
        heap = [(int(counts[s]), s, [s]) for s in present]
        heapq.heapify(heap)
        while len(heap) > 1:
            count_a, key_a, members_a = heapq.heappop(heap)
            count_b, key_b, members_b = heapq.heappop(heap)
            for s in members_a + members_b:
                lengths[s] += 1
            heapq.heappush(heap, (count_a + count_b, min(key_a, key_b), members_a + members_b))
        if not present or lengths.max() <= max_length:
            return lengths
        counts = np.where(counts > 0, np.maximum(counts >> 1, 1), 0)


def canonical_codes(lengths: np.ndarray) -> np.ndarray:
    """Canonical code values (MSB first) for `lengths`, as uint32."""
    codes = np.zeros(lengths.size, np.uint32)
    code, previous = 0, 0
    for symbol in sorted(np.flatnonzero(lengths), key=lambda s: (lengths[s], s)):
        code <<= int(lengths[symbol]) - previous
        previous = int(lengths[symbol])
        codes[symbol] = code
        code += 1
    if previous and code > 1 << previous:
        raise ValueError("code lengths over-subscribe the code space")
    return codes


def decode_table(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(symbol, length) for every 16-bit window; length 0 marks no code (damage)."""
    order = sorted(np.flatnonzero(lengths), key=lambda s: (lengths[s], s))
    spans = [1 << (MAX_CODE_LENGTH - int(lengths[s])) for s in order]
    symbols = np.zeros(1 << MAX_CODE_LENGTH, np.uint8)
    sizes = np.zeros(1 << MAX_CODE_LENGTH, np.uint8)
    filled = sum(spans)
    symbols[:filled] = np.repeat(np.array(order, np.uint8), spans)
    sizes[:filled] = np.repeat(lengths[order], spans)
    return symbols, sizes


def _block_size(count: int) -> int:
    """Symbols per independently decodable block: enough blocks to keep the
    vectorised decoder busy (it steps through one position of every block
    at a time), few enough that the per-block sizes cost nothing."""
    return int(min(4096, max(64, -(-count // 8192))))


def write_codes(codes: np.ndarray, lengths: np.ndarray, block: int) -> tuple[bytes, np.ndarray]:
    """Bit-pack variable-length codes MSB first; every `block` codes start on
    a byte boundary. Returns the bytes and each block's size in bytes (u16)."""
    count = codes.size
    chunk = block * max(1, (1 << 20) // block)  # bounds the int64 temporaries
    parts, sizes = [], []
    for start in range(0, count, chunk):
        code = codes[start:start + chunk].astype(np.int64)
        length = lengths[start:start + chunk].astype(np.int64)
        firsts = np.arange(0, code.size, block)
        block_bits = np.add.reduceat(length, firsts)
        block_bytes = (block_bits + 7) >> 3
        byte_starts = np.concatenate(([0], np.cumsum(block_bytes)[:-1]))
        ends = np.cumsum(length)
        starts = ends - length
        runs = np.diff(np.append(firsts, code.size))
        position = starts + np.repeat(byte_starts * 8 - starts[firsts], runs)
        byte = position >> 3
        value = code << (24 - length - (position & 7))  # the code in a 24-bit window
        total = int(block_bytes.sum())
        # The codes' bits are disjoint, so summing each byte's shares is OR-ing them.
        packed = (np.bincount(byte, (value >> 16) & 255, minlength=total + 2)
                  + np.bincount(byte + 1, (value >> 8) & 255, minlength=total + 2)
                  + np.bincount(byte + 2, value & 255, minlength=total + 2))
        parts.append(packed[:total].astype(np.uint8).tobytes())
        sizes.append(block_bytes)
    sizes = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    return b"".join(parts), sizes.astype("<u2")


def read_codes(payload: np.ndarray, block_bytes: np.ndarray, count: int, block: int,
               tables: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Decode `count` symbols; symbol i uses tables[i % len(tables)]."""
    if count == 0:
        if block_bytes.size or payload.size:
            raise ValueError("bytes after an empty Huffman stream")
        return np.zeros(0, np.uint8)
    blocks = block_bytes.size
    if blocks != -(-count // block) or int(block_bytes.sum(dtype=np.int64)) != payload.size:
        raise ValueError("Huffman block sizes do not match the stream")
    padded = np.concatenate((payload, np.zeros(2 * block + 4, np.uint8)))
    starts = np.concatenate(([0], np.cumsum(block_bytes, dtype=np.int64)[:-1]))
    position = starts * 8
    out = np.empty((blocks, block), np.uint8)
    last = count - (blocks - 1) * block  # symbols in the last block
    end_of_last = None
    for i in range(block):
        symbols, sizes = tables[i % len(tables)]
        byte = position >> 3
        window = ((padded[byte].astype(np.int64) << 16) | (padded[byte + 1].astype(np.int64) << 8)
                  | padded[byte + 2])
        window = (window >> (8 - (position & 7))) & 0xFFFF
        out[:, i] = symbols[window]
        size = sizes[window]
        if not size.all():
            bad = np.flatnonzero(size == 0)
            if bad[0] < blocks - 1 or i < last:
                raise ValueError("invalid Huffman code")
        position += size
        if i == last - 1:
            end_of_last = position[-1]
    ends = np.append(position[:-1], end_of_last)
    if not np.array_equal((ends - starts * 8 + 7) >> 3, block_bytes.astype(np.int64)):
        raise ValueError("Huffman blocks do not end where their sizes say")
    return out.reshape(-1)[:count]


def encode_huffman(exponents: np.ndarray, ftype: FloatType, sigma: float = 0.0) -> bytes:
    counts = np.bincount(_sample(exponents), minlength=ftype.alphabet) + 1  # no symbol missing
    lengths = huffman_lengths(counts)
    block = _block_size(exponents.size)
    payload, sizes = write_codes(canonical_codes(lengths)[exponents], lengths[exponents], block)
    return b"".join((lengths.tobytes(), _U32.pack(block), sizes.tobytes(), payload))


def _read_lengths(reader: _Reader, size: int) -> np.ndarray:
    lengths = reader.take(size).copy()
    if int(lengths.max(initial=0)) > MAX_CODE_LENGTH:
        raise ValueError("Huffman code length out of range")
    canonical_codes(lengths)  # rejects an impossible set of lengths
    return lengths


def _read_blocks(reader: _Reader, count: int) -> tuple[int, np.ndarray, np.ndarray]:
    block = reader.number(_U32)
    if not 1 <= block <= 1 << 16:
        raise ValueError("Huffman block size out of range")
    sizes = reader.take(2 * -(-count // block)).view("<u2")
    return block, sizes, reader.rest()


def decode_huffman(stream: bytes, count: int, ftype: FloatType) -> np.ndarray:
    reader = _Reader(stream)
    table = decode_table(_read_lengths(reader, ftype.alphabet))
    block, sizes, payload = _read_blocks(reader, count)
    return read_codes(payload, sizes, count, block, [table])


def runs_of(exponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, run length - 1) pairs, runs split at MAX_RUN."""
    if exponents.size == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
    starts = np.concatenate(([0], np.flatnonzero(exponents[1:] != exponents[:-1]) + 1))
    lengths = np.diff(np.append(starts, exponents.size))
    pieces = -(-lengths // MAX_RUN)
    values = np.repeat(exponents[starts], pieces)
    runs = np.full(values.size, MAX_RUN, np.int64)
    runs[np.cumsum(pieces) - 1] = lengths - MAX_RUN * (pieces - 1)
    return values, (runs - 1).astype(np.uint8)


def encode_rlh(exponents: np.ndarray, ftype: FloatType, sigma: float = 0.0) -> bytes:
    values, runs = runs_of(exponents)
    value_lengths = huffman_lengths(np.bincount(values, minlength=ftype.alphabet))
    run_lengths = huffman_lengths(np.bincount(runs, minlength=MAX_RUN))
    codes = np.empty(2 * values.size, np.uint32)
    lengths = np.empty(2 * values.size, np.uint8)
    codes[0::2], lengths[0::2] = canonical_codes(value_lengths)[values], value_lengths[values]
    codes[1::2], lengths[1::2] = canonical_codes(run_lengths)[runs], run_lengths[runs]
    block = 2 * _block_size(values.size)
    payload, sizes = write_codes(codes, lengths, block)
    return b"".join((value_lengths.tobytes(), run_lengths.tobytes(), _U64.pack(values.size),
                     _U32.pack(block), sizes.tobytes(), payload))


def decode_rlh(stream: bytes, count: int, ftype: FloatType) -> np.ndarray:
    reader = _Reader(stream)
    value_table = decode_table(_read_lengths(reader, ftype.alphabet))
    run_table = decode_table(_read_lengths(reader, MAX_RUN))
    pairs = reader.number(_U64)
    if pairs > count:
        raise ValueError("more runs than values")
    block, sizes, payload = _read_blocks(reader, 2 * pairs)
    if block % 2:
        raise ValueError("rlh block size must be even")
    symbols = read_codes(payload, sizes, 2 * pairs, block, [value_table, run_table])
    runs = symbols[1::2].astype(np.int64) + 1
    if int(runs.sum()) != count:
        raise ValueError("runs do not add up to the value count")
    return np.repeat(symbols[0::2], runs)


# -- the table ------------------------------------------------------------------

ENCODERS = {"window7": encode_window7, "top16": encode_top16, "huffman": encode_huffman,
            "rlh": encode_rlh}
DECODERS = {"window7": decode_window7, "top16": decode_top16, "huffman": decode_huffman,
            "rlh": decode_rlh}
CODEC_NAMES = tuple(ENCODERS)


def _huffman_bits(histogram: np.ndarray) -> int:
    """Bits of the symbols counted in `histogram` under the code built from it."""
    return int((histogram * huffman_lengths(histogram)).sum())


def estimate_bits(exponents: np.ndarray, ftype: FloatType, sigma: float) -> dict[str, int]:
    """Each codec's stream size in bits, from histograms (rlh only when
    fewer than half the neighbours differ: else it cannot win).

    What `auto` chooses by; cheap next to encoding with all four.
    """
    n = exponents.size
    histogram = np.bincount(exponents, minlength=ftype.alphabet).astype(np.int64)
    base = window_base(sigma, ftype)
    sizes = {
        "window7": 3 * n + 8 * (n - int(histogram[base:base + WINDOW].sum()))
        + 16 * -(-n // WINDOW_BLOCK),
        "top16": 4 * n + 16 * (n - int(np.sort(histogram)[-TOP:].sum()))
        + 8 * -(-n // SPARSE_BLOCK),
        "huffman": int((histogram * huffman_lengths(histogram + 1)).sum())
        + 16 * -(-n // _block_size(n)),
    }
    if n > 1 and np.count_nonzero(exponents[1:] != exponents[:-1]) < n // 2:
        values, runs = runs_of(exponents)
        sizes["rlh"] = (_huffman_bits(np.bincount(values, minlength=ftype.alphabet))
                        + _huffman_bits(np.bincount(runs, minlength=MAX_RUN))
                        + 16 * -(-2 * values.size // (2 * _block_size(values.size))))
    return sizes


def choose(exponents: np.ndarray, ftype: FloatType, sigma: float) -> str:
    sizes = estimate_bits(exponents, ftype, sigma)
    return min(sizes, key=lambda name: (sizes[name], CODEC_NAMES.index(name)))
