"""Floating-point data: tensors, checkpoints and scientific arrays.

The exponent field of a float tensor carries most of its redundancy; the
sign and mantissa are close to random. A file is cut into segments
(`formats`: raw arrays by --dtype, .npy and .safetensors by content), and
each float segment is coded in one of two modes:

- fast: exponents by an exponent codec (`codecs`: window7, top16, huffman,
  rlh, or the smallest by estimate), sign and mantissa raw. Hundreds of MB/s.
- strong: the values cut into byte planes (`layout.planes`) that the learned
  model then codes as one byte stream (fade.single nests a whole archive).

`fade.single` builds the archive (`fade.format.archive.pack_floats`); this package
only transforms bytes. Every function here is exact on every bit pattern.
"""

from __future__ import annotations

import struct

from fade.lazy import numpy as np, torch

from fade.format.headers import Segment
from fade.errors import CorruptArchiveError, FadeError
from fade.floats import on_device
from fade.floats.codecs import CODEC_NAMES, DECODERS, ENCODERS, SAMPLE, choose
from fade.floats.formats import NotAContainer, container, detect, raw_segments
from fade.floats.layout import (FLOAT_TYPES, bytes_of, merge, planes, planes_size, rest_size,
                                split, unplane, words_of)

CODEC_CHOICES = ("auto",) + CODEC_NAMES
MODES = ("off", "fast", "strong")  # off: float data is coded as plain bytes
DTYPE_CHOICES = ("auto", "none") + tuple(FLOAT_TYPES)
_U64 = struct.Struct("<Q")

__all__ = ["CODEC_CHOICES", "DTYPE_CHOICES", "MODES", "NotAContainer", "decode_fast",
           "encode_fast", "find", "from_planes", "sigma_of", "to_planes", "whole"]


def whole(head: bytes, dtype: str) -> bool:
    """Whether an input that begins with `head` must be read whole for
    `find` to find its floats: a raw array (dtype a type name), or an .npy
    or .safetensors header, which describes the tensors to the file's end."""
    if dtype not in ("auto", "none"):
        return True
    return dtype == "auto" and container(head) is not None


def find(data: bytes, dtype: str = "auto") -> tuple[str, list[Segment]] | None:
    """(source, segments) of the floats in `data`, or None for plain bytes.

    dtype "auto" recognises .npy and .safetensors by content (NotAContainer
    for a broken header); "none" never splits; a float type name reads the
    whole input as a raw array of that type (FadeError if its length does
    not fit).
    """
    if dtype not in DTYPE_CHOICES:
        raise FadeError(f"unknown dtype {dtype!r} (choose from {', '.join(DTYPE_CHOICES)})")
    if dtype == "none":
        return None
    if dtype == "auto":
        return detect(data)
    segments = raw_segments(len(data), dtype)
    return ("raw", segments) if segments else None


def _words(data: bytes, offset: int, segment: Segment) -> np.ndarray:
    chunk = np.frombuffer(data, np.uint8, segment.length, offset)
    return words_of(chunk, FLOAT_TYPES[segment.type], segment.big_endian)


def sigma_of(words: np.ndarray, ftype) -> float:
    """Standard deviation of the finite values, from a strided sample of at
    most SAMPLE values (the window7 codec derives its window from it)."""
    step = max(1, words.size // SAMPLE)
    with np.errstate(invalid="ignore", over="ignore"):
        values = ftype.to_float64(words[::step])
    values = values[np.isfinite(values)]
    return float(values.std()) if values.size else 0.0


def _on_device(device, ftype, codec: str) -> bool:
    """Whether a segment goes through the torch path (`on_device`): top16 on
    BF16 when the caller names a device other than the CPU."""
    return device is not None and device.type != "cpu" and ftype.name == "bf16" \
        and codec == "top16"


def encode_fast(data: bytes, segments: list[Segment], codec: str = "auto", device=None
                ) -> tuple[list[Segment], bytes]:
    """Code every float segment's exponents with `codec` ("auto": the
    smallest by estimate, per segment); sign/mantissa and bytes segments
    are kept raw. Returns the segments (codec and stream size filled in)
    and the payload. With a GPU `device`, top16 on BF16 runs there (the
    same bytes)."""
    if codec not in CODEC_CHOICES:
        raise FadeError(f"unknown float codec {codec!r} (choose from {', '.join(CODEC_CHOICES)})")
    coded, parts, offset = [], [], 0
    for segment in segments:
        if segment.type == "bytes":
            stream = [data[offset:offset + segment.length]]
            coded.append(Segment("bytes", segment.length, stream_size=segment.length))
        else:
            ftype = FLOAT_TYPES[segment.type]
            words = _words(data, offset, segment)
            if _on_device(device, ftype, codec):
                name = codec
                exponent_stream, rest = on_device.encode_top16(
                    torch.from_numpy(words.astype(np.int32)).to(device), ftype)
            else:
                exponents, rest = split(words, ftype)
                # Only window7 (and auto, which estimates it) needs the spread.
                sigma = sigma_of(words, ftype) if codec in ("auto", "window7") else 0.0
                name = choose(exponents, ftype, sigma) if codec == "auto" else codec
                exponent_stream = ENCODERS[name](exponents, ftype, sigma)
            stream = [_U64.pack(len(exponent_stream)), exponent_stream, rest]
            coded.append(Segment(segment.type, segment.length, segment.big_endian, name,
                                 sum(map(len, stream))))
        parts.extend(stream)
        offset += segment.length
    return coded, b"".join(parts)


def decode_fast(segments: tuple[Segment, ...], payload: bytes, device=None) -> bytes:
    """The original bytes from encode_fast's segments and payload (top16 on
    BF16 decoded on `device` if it is a GPU)."""
    parts, offset = [], 0
    for segment in segments:
        stream = payload[offset:offset + segment.stream_size]
        offset += segment.stream_size
        try:
            parts.append(_decode_segment(segment, stream, device))
        except (ValueError, IndexError, KeyError, struct.error) as error:
            raise CorruptArchiveError(f"{segment.type} segment is damaged ({error})") from None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _decode_segment(segment: Segment, stream: bytes, device) -> bytes:
    if segment.type == "bytes":
        if len(stream) != segment.length or segment.codec != "none":
            raise ValueError("bytes segment has the wrong size")
        return stream
    ftype = FLOAT_TYPES[segment.type]
    if segment.length % ftype.itemsize or segment.codec not in DECODERS:
        raise ValueError("impossible segment entry")
    count = segment.length // ftype.itemsize
    (size,) = _U64.unpack_from(stream)
    exponent_stream = stream[_U64.size:_U64.size + size]
    if len(exponent_stream) != size:
        raise ValueError("exponent stream is truncated")
    # Checked before any decoding: the raw rest bounds how many values the
    # segment's length may claim, so a false length allocates nothing.
    held, needed = len(stream) - _U64.size - size, rest_size(ftype, count)
    if held != needed:
        raise ValueError(f"{count} values need {needed} bytes of sign and mantissa, "
                         f"the stream holds {held}")
    if _on_device(device, ftype, segment.codec):
        words = on_device.decode_top16(exponent_stream, stream[_U64.size + size:], count,
                                       ftype, device)
    else:
        exponents = DECODERS[segment.codec](exponent_stream, count, ftype)
        words = merge(exponents, stream[_U64.size + size:], ftype)
    return bytes_of(words, ftype, segment.big_endian)


def to_planes(data: bytes, segments: list[Segment]) -> bytes:
    """Strong mode's byte stream: bytes segments as they are, each float
    segment as its byte planes (layout.planes)."""
    parts, offset = [], 0
    for segment in segments:
        if segment.type == "bytes":
            parts.append(data[offset:offset + segment.length])
        else:
            parts.append(planes(_words(data, offset, segment), FLOAT_TYPES[segment.type]))
        offset += segment.length
    return b"".join(parts)


def from_planes(stream: bytes, segments: tuple[Segment, ...]) -> bytes:
    """The inverse of to_planes."""
    raw = np.frombuffer(stream, np.uint8)
    parts, offset = [], 0
    try:
        for segment in segments:
            if segment.type == "bytes":
                size = segment.length
                parts.append(stream[offset:offset + size])
            else:
                ftype = FLOAT_TYPES[segment.type]
                count = segment.length // ftype.itemsize
                size = planes_size(ftype, count)
                words = unplane(raw[offset:offset + size], ftype, count)
                parts.append(bytes_of(words, ftype, segment.big_endian))
            offset += size
        if offset != len(stream):
            raise ValueError("plane stream has the wrong length")
    except ValueError as error:
        raise CorruptArchiveError(f"byte planes are damaged ({error})") from None
    return b"".join(parts)
