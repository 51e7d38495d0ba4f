"""Method statistics: the context-mixing statistics alone, in file order.

The compact head, the statistics' table (their settings, recorded so the
decoder repeats them, and the stream's CRC-32), then the bit coder's
stream (fade.statistics.encode_file). Where one ends only decoding finds:
the decoder reads the 4 bytes the encoder's flush writes first and then one
byte per byte the encoder shifted out (fade.statistics.decode_prefix), so
the decoded bytes are kept.
"""

from __future__ import annotations

import zlib

from fade import statistics
from fade.config import StatisticsConfig
from fade.errors import ChecksumMismatchError, FadeError, FormatError
from fade.format.archive import COMPACT_LAYOUT, STATISTICS_BYTES_PER_BIT, unpack
from fade.format.binary import U32, layout, sealed
from fade.format.headers import StatisticsHeader
from fade.format.legacy import statistics_fields
from fade.methods.compact import read_head
from fade.race import check_memory
from fade.statistics.choice import model_level

_TABLE = {version: layout(statistics_fields(version)) for version in (7, 8)}
# The bit coder gives a bit at least 1/65536 of its range: at most 16 bits a
# bit, 16 bytes a byte, plus its 4-byte final state. A statistics stream is
# never longer, so no more than this is read to find where it ends.
_BYTES_PER_BYTE = 16
_SLACK = 64
_DAMAGED = ("decoded data fails its CRC-32 (the archive is damaged, or a bug in fade: the "
            "statistics decode alike on any machine)")


def read(source, prefix: bytes, version: int, method: str,
         reading) -> tuple[bytes, bytes | None]:
    """A statistics archive: its head and table, then its stream decoded to
    where it ends (fade.methods.Method.read)."""
    head, size, crc = read_head(source, prefix)
    if size is None:
        return head, None
    table = _TABLE[8 if version >= 8 else 7]  # versions 6 and 7: no model field
    head += source.read(table.size + U32.size)
    end = COMPACT_LAYOUT.size + table.size
    if len(head) < end + U32.size or not sealed(head, end):
        return head, None  # unpack reports the damage
    config = _config(table.unpack_from(head, COMPACT_LAYOUT.size), version)
    check_memory(config, size, reading.memory_limit)
    # The stream's end is known only once it is decoded: decoded from what
    # the source has, and again from its start if that ran out and more
    # comes (a file gives all it can at once: one decode; a pipe what has
    # arrived: one decode per piece).
    limit = _BYTES_PER_BYTE * size + _SLACK
    stream = source.read_some(limit)
    progress = reading.progress
    report = None if progress is None else (lambda done, bits: progress(done, size, bits))
    while True:
        # No decode (nor its arrays of `size` bytes) before the bytes there
        # can hold `size` (docs/format.md, "Field domains").
        most = (8 * len(stream) + 64) * STATISTICS_BYTES_PER_BIT
        try:
            if size > most:
                raise FormatError(f"header field original_size = {size} is outside its domain "
                                  f"(at most {most} for a payload of {len(stream)} bytes)")
            data, used = statistics.decode_prefix(stream, size, config, report)
            break
        except FadeError:
            more = source.read_some(limit - len(stream)) if len(stream) < limit else b""
            if not more:  # all there is: as the last archive, its CRC-32 names the damage
                unpack(head + stream)
                raise
            stream += more
    source.unread(stream[used:])
    archive = head + stream[:used]
    unpack(archive)  # the stream's CRC-32 and the size's domain
    if zlib.crc32(data) != crc:
        raise ChecksumMismatchError(_DAMAGED)
    return archive, data


def _config(values: tuple, version: int) -> StatisticsConfig:
    """The statistics' settings in a table, checked against their domains."""
    table_bits, match_bits, rate, keyed = values[:4]
    model = values[4] if version >= 8 else 0
    try:
        config = StatisticsConfig(table_bits, match_bits, rate, bool(keyed), model).validate(
            "header field")
    except FadeError as error:
        raise FormatError(str(error)) from None
    if keyed:
        raise FormatError(f"header field keyed = {keyed} is outside its domain (0 in a "
                          "statistics archive: one stream)")
    return config


def decode(header: StatisticsHeader, payload: bytes, decoding) -> bytes:
    size = header.original_size
    progress = decoding.progress
    report = None if progress is None else (lambda done, bits: progress(done, size, bits))
    data = statistics.decode_file(payload, size, header.statistics, report)
    if zlib.crc32(data) != header.original_crc32:
        raise ChecksumMismatchError(_DAMAGED)
    return data


def listing(header: StatisticsHeader) -> str:
    """The level that writes (or wrote) the archive's model."""
    level = model_level(header.statistics.model)
    return f"{level}/statistics" if level else f"statistics model {header.statistics.model}"
