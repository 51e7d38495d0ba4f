"""Float types and how their bits are split into streams.

A float of N bits is sign (1) | exponent (E) | mantissa (M). Two splits:

- `split` (the fast codecs): the exponent field as one byte per value, to be
  coded by an exponent codec, and the *rest* (sign and mantissa, R = 1 + M
  bits) kept raw at a fixed stride: R // 8 whole byte planes plus, when R is
  not a whole number of bytes (FP16: 11 bits), the top R % 8 bits bit-packed.
- `planes` (strong mode): byte planes for the learned model. The magnitude
  (N - 1 bits, sign removed) is cut into its top 8 bits (for BF16 and FP32
  exactly the exponent) and the remaining bits most significant first; the
  signs are bit-packed last. Planes group bytes of one kind, so a byte model
  sees one distribution at a time instead of alternating ones.

Everything is vectorised numpy over whole arrays; no Python loop per value.
Values are read in the byte order given (little-endian unless a container
says otherwise) and written back in it, so the bytes round-trip exactly,
NaN payloads, infinities, -0.0 and subnormals included: these are bit
operations, never float arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from fade.lazy import numpy as np

from fade.errors import FadeError


@dataclass(frozen=True)
class FloatType:
    name: str  # as in the archive's segment table (fade.format.headers.SEGMENT_TYPES)
    bits: int  # N
    exponent_bits: int  # E
    mantissa_bits: int  # M

    @property
    def itemsize(self) -> int:
        return self.bits // 8

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def alphabet(self) -> int:
        """How many exponent values there are."""
        return 1 << self.exponent_bits

    def uint(self, big_endian: bool = False) -> np.dtype:
        return np.dtype(f"{'>' if big_endian else '<'}u{self.itemsize}")

    def to_float64(self, words: np.ndarray) -> np.ndarray:
        """The values of `words` (this type's bit patterns) as float64."""
        if self.name == "bf16":
            return (words.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        native = {"fp16": np.float16, "fp32": np.float32}[self.name]
        return words.astype(self.uint()).view(native).astype(np.float64)


FLOAT_TYPES = {t.name: t for t in (
    FloatType("bf16", 16, 8, 7),
    FloatType("fp16", 16, 5, 10),
    FloatType("fp32", 32, 8, 23),
)}


def float_type(name: str) -> FloatType:
    try:
        return FLOAT_TYPES[name]
    except KeyError:
        raise FadeError(f"unknown float type {name!r} (choose from "
                        f"{', '.join(FLOAT_TYPES)})") from None


def words_of(data: bytes | np.ndarray, ftype: FloatType, big_endian: bool = False) -> np.ndarray:
    """`data` as native-order unsigned words (a view where the order is native)."""
    raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    if raw.size % ftype.itemsize:
        raise FadeError(f"{raw.size} bytes is not a whole number of {ftype.name} values "
                        f"({ftype.itemsize} bytes each)")
    words = raw.view(ftype.uint(big_endian))
    return words.astype(ftype.uint()) if big_endian else words


def bytes_of(words: np.ndarray, ftype: FloatType, big_endian: bool = False) -> bytes:
    return (words.astype(ftype.uint(True)) if big_endian else words).tobytes()


# -- bit packing of small fields (1..8 bits per value) ------------------------

def _lanes(width: int, lane_bits: int) -> int:
    """A uint64 mask with the low `width` bits of every `lane_bits`-bit lane set."""
    lane = (1 << width) - 1
    return sum(lane << shift for shift in range(0, 64, lane_bits))


def pack_bits(values: np.ndarray, width: int) -> bytes:
    """Pack uint8 `values` (each < 2**width, 1 <= width <= 8) at `width` bits each.

    Value i occupies bits [width*i, width*(i+1)) of the little-endian bit
    string; 8 values make `width` bytes. The tail is padded with zero values.
    Cost: about a dozen passes over n/8 uint64 words.
    """
    groups = -(-values.size // 8)
    padded = np.zeros(groups * 8, np.uint8)
    padded[:values.size] = values
    x = padded.view("<u8")
    # Each step halves the lane count: lanes of 8 -> 16 -> 32 -> 64 bits,
    # the upper neighbour shifted down next to the lower one.
    x = (x & _lanes(8, 16)) | ((x >> (8 - width)) & (_lanes(8, 16) << width))
    x = (x & _lanes(16, 32)) | ((x >> (16 - 2 * width)) & (_lanes(16, 32) << 2 * width))
    x = (x & 0xFFFFFFFF) | ((x >> (32 - 4 * width)) & (0xFFFFFFFF << 4 * width))
    return x.view(np.uint8).reshape(groups, 8)[:, :width].tobytes()


def unpack_bits(packed: bytes | np.ndarray, width: int, count: int) -> np.ndarray:
    """The inverse of pack_bits: `count` uint8 values of `width` bits."""
    raw = np.frombuffer(packed, np.uint8) if isinstance(packed, bytes) else packed
    groups = -(-count // 8)
    if raw.size != groups * width:
        raise ValueError(f"{raw.size} packed bytes for {count} values of {width} bits")
    words = np.zeros((groups, 8), np.uint8)
    words[:, :width] = raw.reshape(groups, width)
    x = words.reshape(-1).view("<u8")
    x = (x & ((1 << 4 * width) - 1)) | ((x << (32 - 4 * width)) & (0xFFFFFFFF << 32))
    x = (x & _lanes(2 * width, 32)) | ((x << (16 - 2 * width)) & (_lanes(2 * width, 32) << 16))
    x = (x & _lanes(width, 16)) | ((x << (8 - width)) & (_lanes(width, 16) << 8))
    return x.view(np.uint8)[:count]


# -- the fast split: exponent + raw sign/mantissa -----------------------------

def rest_layout(ftype: FloatType) -> tuple[int, int]:
    """(whole byte planes, leftover bits) of the sign+mantissa field."""
    rest = 1 + ftype.mantissa_bits
    return rest // 8, rest % 8


def rest_size(ftype: FloatType, count: int) -> int:
    whole, extra = rest_layout(ftype)
    return whole * count + (-(-count // 8) * extra if extra else 0)


def split(words: np.ndarray, ftype: FloatType) -> tuple[np.ndarray, bytes]:
    """(exponents as uint8, the sign+mantissa bytes) of native-order `words`."""
    m, e = ftype.mantissa_bits, ftype.exponent_bits
    if ftype.name == "bf16":  # the hot path: contiguous passes, casts drop the high bits
        exponents = (words >> 7).astype(np.uint8)  # the sign falls off with bit 8
        rest = words.astype(np.uint8)
        rest &= 0x7F
        sign = (words >> 8).astype(np.uint8)
        sign &= 0x80
        rest |= sign
        return exponents, rest.tobytes()
    exponents = ((words >> m) & ((1 << e) - 1)).astype(np.uint8)
    rest = ((words >> e) & (1 << m)) | (words & ((1 << m) - 1))  # sign moved next to mantissa
    whole, extra = rest_layout(ftype)
    parts = [((rest >> (8 * i)) & 0xFF).astype(np.uint8).tobytes() for i in range(whole)]
    if extra:
        parts.append(pack_bits((rest >> (8 * whole)).astype(np.uint8), extra))
    return exponents, b"".join(parts)


def merge(exponents: np.ndarray, rest: bytes | np.ndarray, ftype: FloatType) -> np.ndarray:
    """Native-order words from split()'s two parts."""
    count = exponents.size
    raw = np.frombuffer(rest, np.uint8) if isinstance(rest, bytes) else rest
    if raw.size != rest_size(ftype, count):
        raise ValueError("sign/mantissa stream has the wrong length")
    if ftype.name == "bf16":  # the hot path: contiguous 16-bit passes
        words = exponents.astype(np.uint16)
        words <<= 7
        rest16 = raw.astype(np.uint16)
        sign = rest16 & 0x80
        sign <<= 8
        rest16 &= 0x7F
        words |= rest16
        words |= sign
        return words
    m, e, whole, extra = ftype.mantissa_bits, ftype.exponent_bits, *rest_layout(ftype)
    uint = ftype.uint()
    rest_words = np.zeros(count, uint)
    for i in range(whole):
        rest_words |= raw[i * count:(i + 1) * count].astype(uint) << (8 * i)
    if extra:
        top = unpack_bits(raw[whole * count:], extra, count)
        rest_words |= top.astype(uint) << (8 * whole)
    words = (rest_words & ((1 << m) - 1)) | (exponents.astype(uint) << m)
    words |= (rest_words >> m) << (m + e)
    return words


# -- strong mode: byte planes for the learned model ---------------------------

def plane_widths(ftype: FloatType) -> list[int]:
    """Bits in each magnitude plane, most significant first (8 for the top plane)."""
    low = ftype.bits - 9  # magnitude bits below the top 8
    widths = [8]
    if low % 8:
        widths.append(low % 8)
    widths += [8] * (low // 8)
    return widths


def planes(words: np.ndarray, ftype: FloatType) -> bytes:
    """Magnitude planes, most significant first, then the signs bit-packed."""
    sign_shift = ftype.bits - 1
    out, shift = [], sign_shift
    for width in plane_widths(ftype):
        shift -= width
        out.append(((words >> shift) & ((1 << width) - 1)).astype(np.uint8).tobytes())
    out.append(np.packbits((words >> sign_shift).astype(np.uint8)).tobytes())
    return b"".join(out)


def planes_size(ftype: FloatType, count: int) -> int:
    return len(plane_widths(ftype)) * count + -(-count // 8)


def unplane(stream: bytes | np.ndarray, ftype: FloatType, count: int) -> np.ndarray:
    raw = np.frombuffer(stream, np.uint8) if isinstance(stream, bytes) else stream
    if raw.size != planes_size(ftype, count):
        raise ValueError("plane stream has the wrong length")
    uint = ftype.uint()
    words = np.zeros(count, uint)
    shift, offset = ftype.bits - 1, 0
    for width in plane_widths(ftype):
        shift -= width
        words |= raw[offset:offset + count].astype(uint) << shift
        offset += count
    signs = np.unpackbits(raw[offset:])[:count]
    words |= signs.astype(uint) << (ftype.bits - 1)
    return words
