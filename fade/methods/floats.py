"""Method floats: float tensors split into exponents and the rest (fade.floats).

The compact head, a table of segments (each a run of bytes or of one float
type, its exponent codec and the length of its stream), then either each
segment's streams (mode fast: the table says where it ends) or one nested
archive of the values' byte planes (mode strong: it ends where the nested
archive does, found as for any archive but never another floats archive,
so that damage cannot make reading or decoding recurse).
"""

from __future__ import annotations

import zlib

from fade import floats
from fade.device import resolve_device
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError
from fade.format.archive import COMPACT_LAYOUT, PREFIX_SIZE, method_named, pack_floats, unpack
from fade.format.binary import U32, layout, sealed
from fade.format.headers import (FLOAT_FIELDS, FLOATS, SEGMENT_FIELDS, AnyHeader, FloatHeader,
                                 Header, Segment)
from fade.methods.compact import read_head


_TABLE, _SEGMENT = layout(FLOAT_FIELDS), layout(SEGMENT_FIELDS)
_DAMAGED = "decoded data fails its CRC-32 (the archive is damaged)"


def read(source, prefix: bytes, version: int, method: str,
         reading) -> tuple[bytes, bytes | None]:
    """A floats archive: its segment table, then the segments' streams (fast)
    or one nested archive (strong) (fade.methods.Method.read)."""
    head, size, crc = read_head(source, prefix)
    if size is None:
        return head, None
    head += source.read(_TABLE.size)
    if len(head) < COMPACT_LAYOUT.size + _TABLE.size:
        return head, None
    mode, _, count, _ = _TABLE.unpack_from(head, COMPACT_LAYOUT.size)
    end = COMPACT_LAYOUT.size + _TABLE.size + count * _SEGMENT.size
    head += source.read(end + U32.size - len(head))
    if len(head) < end + U32.size or not sealed(head, end):
        return head, None
    if mode == 0:  # fast: the table says how long each segment's stream is
        streams = sum(row[3] for row in _SEGMENT.iter_unpack(
            head[COMPACT_LAYOUT.size + _TABLE.size:end]))
        return head + source.read(streams), None
    if method_named(source.peek(PREFIX_SIZE)) == FLOATS:
        raise CorruptArchiveError("a floats archive nests another floats archive")
    nested, planes = reading.nested(source)
    archive = head + nested
    if planes is None:
        return archive, None
    header = unpack(archive)[0]
    assert isinstance(header, FloatHeader)
    data = floats.from_planes(planes, header.segments)
    if len(data) != size or zlib.crc32(data) != crc:
        raise ChecksumMismatchError(_DAMAGED)
    return archive, data


def find(data: bytes, dtype: str, required: bool = False
         ) -> tuple[str, list[Segment]] | None:
    """floats.find's (source, segments) for `data`; None for plain bytes,
    a broken container header among them (a FadeError where `required`)."""
    try:
        found = floats.find(data, dtype)
    except floats.NotAContainer:
        found = None
    if found is None and required:
        raise FadeError("no float data found (use --dtype for a raw array)")
    return found


def encode(data: bytes, source: str, segments: list[Segment], codec: str,
           device: str) -> bytes:
    """A floats archive of mode fast: each float segment's exponents coded
    with `codec` (floats.encode_fast), on the CPU unless `device` may be a
    GPU and it codes top16 on BF16 (the same bytes); torch is loaded only
    then."""
    on_gpu = device != "cpu" and codec == "top16" and \
        any(segment.type == "bf16" for segment in segments)
    segments, payload = floats.encode_fast(data, segments, codec,
                                           resolve_device(device) if on_gpu else None)
    return pack_floats("fast", source, tuple(segments), data, payload)


def learned_header(header: AnyHeader, payload: bytes) -> Header | None:
    """The learned header that decoding an archive runs the model with:
    its own (`header`), or a strong floats archive's nested one; None if
    no model runs."""
    if isinstance(header, FloatHeader) and header.mode == "strong":
        header = unpack_nested(payload)[0]
    return header if isinstance(header, Header) else None


def unpack_nested(payload: bytes):
    """unpack() of a strong floats archive's nested archive, which is never
    another floats archive (so damage cannot make decoding recurse)."""
    header, nested_payload = unpack(payload)
    if isinstance(header, FloatHeader):
        raise CorruptArchiveError("a floats archive nests another floats archive")
    return header, nested_payload


def decode(header: FloatHeader, payload: bytes, decoding) -> bytes:
    if header.mode == "fast":  # on the CPU unless a GPU is asked for
        device = decoding.device
        data = floats.decode_fast(header.segments, payload,
                                  None if device == "auto" else resolve_device(device))
    else:
        planes = decoding.nested(*unpack_nested(payload), decoding)
        data = floats.from_planes(planes, header.segments)
    if len(data) != header.original_size or zlib.crc32(data) != header.original_crc32:
        raise ChecksumMismatchError(_DAMAGED)
    return data


def listing(header: FloatHeader) -> str:
    return f"floats/{header.mode}"
