"""Where the floats are in a file: raw arrays, .npy and .safetensors.

A file is cut into segments (`fade.format.headers.Segment`): plain bytes (headers,
integer tensors, gaps) and runs of float values of one type. Containers are
recognised by content, not by name, and their headers stay plain bytes, so
the original comes back byte for byte. A file that looks like a container
but does not parse as one is reported (`NotAContainer`) and coded as plain
bytes by the caller: nothing is lost.
"""

from __future__ import annotations

import ast
import math
import struct

from fade.format.headers import Segment
from fade.errors import FadeError
from fade.floats.layout import FLOAT_TYPES, float_type

NPY_MAGIC = b"\x93NUMPY"
# numpy descr (type char + size) -> float type; bfloat16 has no numpy descr.
NPY_FLOATS = {"f2": "fp16", "f4": "fp32"}
SAFETENSORS_FLOATS = {"BF16": "bf16", "F16": "fp16", "F32": "fp32"}
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024  # the format's own limit


class NotAContainer(FadeError):
    """The file starts like a container but is not a valid one (the reason)."""


def raw_segments(size: int, dtype: str) -> list[Segment]:
    """A raw array of `dtype` values (--dtype): its length must fit the type."""
    ftype = float_type(dtype)
    if size % ftype.itemsize:
        raise FadeError(f"{size} bytes is not a whole number of {dtype} values "
                        f"({ftype.itemsize} bytes each); wrong --dtype?")
    return [Segment(dtype, size)] if size else []


def _with_gaps(size: int, tensors: list[tuple[int, int, str, bool]]) -> list[Segment]:
    """Segments covering [0, size): the float tensors (start, end, type, big
    endian), sorted and non-overlapping, with bytes segments between them."""
    segments, at = [], 0
    for start, end, kind, big in tensors:
        if start > at:
            segments.append(Segment("bytes", start - at))
        if end > start:
            segments.append(Segment(kind, end - start, big))
        at = end
    if size > at:
        segments.append(Segment("bytes", size - at))
    return segments


def npy_segments(data: bytes) -> list[Segment] | None:
    """Segments of an .npy file, None if it holds no floats we code."""
    if len(data) < 10:
        raise NotAContainer("truncated .npy header")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack_from("<H", data, 8), 10
    elif major in (2, 3):
        if len(data) < 12:
            raise NotAContainer("truncated .npy header")
        (length,), start = struct.unpack_from("<I", data, 8), 12
    else:
        raise NotAContainer(f"unknown .npy version {major}")
    if start + length > len(data):
        raise NotAContainer("truncated .npy header")
    try:
        header = ast.literal_eval(data[start:start + length].decode("latin1"))
        descr, shape = header["descr"], tuple(header["shape"])
        count = math.prod(int(n) for n in shape)
    except (ValueError, SyntaxError, KeyError, TypeError, MemoryError):
        raise NotAContainer("malformed .npy header") from None
    if not isinstance(descr, str) or len(descr) != 3 or descr[0] not in "<>|":
        return None  # structured, or a type we do not split
    kind = NPY_FLOATS.get(descr[1:])
    if kind is None:
        return None
    begin = start + length
    end = begin + count * FLOAT_TYPES[kind].itemsize
    if count < 0 or end > len(data):
        raise NotAContainer("array data is shorter than its shape says")
    return _with_gaps(len(data), [(begin, end, kind, descr[0] == ">")])


def safetensors_segments(data: bytes) -> list[Segment] | None:
    """Segments of a .safetensors file, None if it holds no floats we code."""
    (length,) = struct.unpack_from("<Q", data)
    if length > MAX_SAFETENSORS_HEADER or 8 + length > len(data):
        raise NotAContainer("header length runs past the end of the file")
    import json  # (a safetensors header only: not in every process's start)

    try:
        header = json.loads(data[8:8 + length])
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise NotAContainer("header is not JSON") from None
    if not isinstance(header, dict):
        raise NotAContainer("header is not a JSON object")
    base, buffer = 8 + length, len(data) - 8 - length
    tensors = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, (begin, end) = entry["dtype"], entry["data_offsets"]
            begin, end = int(begin), int(end)
            count = math.prod(int(n) for n in entry["shape"])
        except (KeyError, TypeError, ValueError):
            raise NotAContainer(f"tensor {name!r} has a malformed entry") from None
        if not 0 <= begin <= end <= buffer:
            raise NotAContainer(f"tensor {name!r} lies outside the file")
        kind = SAFETENSORS_FLOATS.get(dtype)
        if kind is not None:
            if end - begin != count * FLOAT_TYPES[kind].itemsize:
                raise NotAContainer(f"tensor {name!r} has the wrong size for its shape")
            tensors.append((base + begin, base + end, kind, False))
    tensors.sort()
    for (_, end, _, _), (start, _, _, _) in zip(tensors, tensors[1:]):
        if start < end:
            raise NotAContainer("tensors overlap")
    if not tensors:
        return None
    return _with_gaps(len(data), tensors)


def _looks_like_safetensors(data: bytes) -> bool:
    """A u64 header length that fits the file, then what looks like one JSON
    object (the format pads it with spaces)."""
    if len(data) < 10 or data[8:9] != b"{":
        return False
    (length,) = struct.unpack_from("<Q", data)
    return 2 <= length <= len(data) - 8 and data[8:8 + length].rstrip(b" ").endswith(b"}")


def container(head: bytes) -> str | None:
    """"npy" or "safetensors" where `head`, a file's first bytes, starts as
    one does; else None."""
    if head.startswith(NPY_MAGIC):
        return "npy"
    return "safetensors" if _looks_like_safetensors(head) else None


def detect(data: bytes) -> tuple[str, list[Segment]] | None:
    """(source, segments) for an .npy or .safetensors file with float data;
    None for anything else. NotAContainer when a header is broken."""
    source = container(data)
    if source is None:
        return None
    segments = (npy_segments if source == "npy" else safetensors_segments)(data)
    return None if segments is None else (source, segments)
