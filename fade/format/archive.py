"""Single archives in bytes: pack a header and payload, unpack and check them.

Every archive starts with the magic number, the format version and (from
version 2 on) a method byte (fade.format.headers names them). Method `fade`
is the learned model: a header holding every parameter the decoder needs, so
decompression takes no flags, then the coders' payloads, one per group of
sub-streams; the header and the payload carry a CRC-32 so damage is
reported before any decoding, and the SHA-256 of the original verifies the
decoded bytes. The compact methods (the size floor: stored, deflate, bzip2,
xz), "statistics" and "floats" share a 23-byte head with the original's
size and CRC-32. Archives of versions 1 to 7 still decode (fade.format.legacy
says what their tables lack); a frames archive is a container of these
(fade.format.container). All integers are little-endian; docs/format.md is
the specification.
"""

from __future__ import annotations

import dataclasses
import zlib

from fade.config import MAX_BATCH, MAX_GROUPS, MAX_THREADS, ModelConfig, StatisticsConfig
from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.format import legacy
from fade.format.binary import U16, U32, U64, layout, seal, sealed
from fade.format.headers import (
    BIG_ENDIAN, CODINGS, COMPACT_FIELDS, DETERMINISM_V1, DEVICE_KINDS, DTYPES, EXPONENT_CODECS,
    FIXED_FIELDS, FLOAT_FIELDS, FLOAT_MODES, FLOAT_SOURCES, FLOATS, FRAMES, HYBRID, LEARNED, MAGIC,
    METHOD_SINCE, METHODS, NETWORK, NO_STATISTICS, OPTIMIZERS, READABLE_VERSIONS, SCHEDULES,
    SEGMENT_FIELDS, SEGMENT_TYPES, STATISTICS, STATISTICS_FIELDS, STRING_FIELDS, VERSION, AnyHeader, CompactHeader,
    FloatHeader, Header, Segment, StatisticsHeader, statistics_values)
from fade.profile import PROFILES

_FIXED = layout(FIXED_FIELDS)
PREFIX = layout([("magic", "8s"), ("version", "H")])  # common to every version
# What every archive starts with: magic, version and (from version 2) the
# method byte; a version 1 archive's 11th byte is its flags' first.
PREFIX_SIZE = PREFIX.size + 1
_COMPACT = layout(COMPACT_FIELDS)
COMPACT_OVERHEAD = _COMPACT.size  # 23 bytes
COMPACT_LAYOUT = _COMPACT  # the head every method but the learned one starts with
_FLOAT_TABLE = layout(FLOAT_FIELDS)
_SEGMENT = layout(SEGMENT_FIELDS)
_STATISTICS = layout(STATISTICS_FIELDS)
_MODEL_FIELDS = [f.name for f in dataclasses.fields(ModelConfig)]


def _code(table: dict[int, str], name: str, field: str) -> int:
    for code, value in table.items():
        if value == name:
            return code
    raise ValueError(f"{field} {name!r} has no code in format v{VERSION}")


def pack(header: Header, payload: bytes) -> bytes:
    """The learned archive's bytes for `header` and `payload`, the groups'
    payloads one after the other (`header.group_payload_sizes`)."""
    if len(header.group_payload_sizes) != header.groups or \
            sum(header.group_payload_sizes) != len(payload):
        raise ValueError("group payload sizes do not match the groups and the payload")
    strings = b"".join(U16.pack(len(s)) + s for s in
                       (getattr(header, name).encode() for name in STRING_FIELDS))
    group_table = b"".join(U64.pack(size) for size in header.group_payload_sizes)
    header_size = _FIXED.size + len(strings) + len(group_table) + U32.size
    values = dict(
        magic=MAGIC, version=VERSION, method=_code(METHODS, LEARNED, "method"), flags=0,
        header_size=header_size,
        original_size=header.original_size, original_sha256=header.original_sha256,
        payload_size=len(payload), payload_crc32=zlib.crc32(payload),
        batch_size=header.batch_size, seed=header.seed,
        dtype=_code(DTYPES, header.dtype, "dtype"),
        optimizer=_code(OPTIMIZERS, header.optimizer, "optimizer"),
        determinism=header.determinism,
        device_kind=_code(DEVICE_KINDS, header.device_kind, "device kind"),
        threads=header.threads, groups=header.groups,
        schedule=_code(SCHEDULES, header.schedule, "schedule"),
        coding=_code(CODINGS, header.coding, "coding"),
        **statistics_values(header.statistics or NO_STATISTICS),
        **dataclasses.asdict(header.model),
    )
    head = _FIXED.pack(*(values[name] for name, _ in FIXED_FIELDS)) + strings + group_table
    return seal(head) + payload


def pack_compact(method: str, original: bytes, stream: bytes) -> bytes:
    """A compact archive: `stream` is `original` coded by `method` (not "fade")."""
    if method == LEARNED:
        raise ValueError("the learned method has its own header (pack)")
    code = _code(METHODS, method, "method")
    return _COMPACT.pack(MAGIC, VERSION, code, len(original), zlib.crc32(original)) + stream


def pack_floats(mode: str, source: str, segments: tuple[Segment, ...], original: bytes,
                payload: bytes) -> bytes:
    """A "floats" archive of `original`: its table (FloatHeader's fields,
    the size and CRC-32 taken from `original`), then `payload` (the segment
    streams, or the nested archive)."""
    if sum(s.length for s in segments) != len(original):
        raise ValueError("segments do not cover the original")
    head = _COMPACT.pack(MAGIC, VERSION, _code(METHODS, FLOATS, "method"), len(original),
                         zlib.crc32(original))
    head += _FLOAT_TABLE.pack(_code(FLOAT_MODES, mode, "mode"),
                              _code(FLOAT_SOURCES, source, "source"),
                              len(segments), zlib.crc32(payload))
    for segment in segments:
        kind = _code(SEGMENT_TYPES, segment.type, "segment type")
        head += _SEGMENT.pack(kind | (BIG_ENDIAN if segment.big_endian else 0),
                              _code(EXPONENT_CODECS, segment.codec, "codec"),
                              segment.length, segment.stream_size)
    return seal(head) + payload


def pack_statistics(config: StatisticsConfig, original: bytes, stream: bytes) -> bytes:
    """A "statistics" archive: `stream` codes `original` with `config`."""
    head = _COMPACT.pack(MAGIC, VERSION, _code(METHODS, STATISTICS, "method"), len(original),
                         zlib.crc32(original))
    head += _STATISTICS.pack(config.table_bits, config.match_bits, config.mixer_rate,
                             int(config.keyed), config.model, zlib.crc32(stream))
    return seal(head) + stream


def _unpack_statistics(blob: bytes, version: int, size: int,
                       crc: int) -> tuple[StatisticsHeader, bytes]:
    table = legacy.statistics_layout(version)
    end = _COMPACT.size + table.size
    if len(blob) < end + U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    if not sealed(blob, end):
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    values = dict(zip((name for name, _ in legacy.statistics_fields(version)),
                      table.unpack_from(blob, _COMPACT.size)))
    table_bits, match_bits, rate, keyed, payload_crc = (
        values["table_bits"], values["match_bits"], values["mixer_rate"], values["keyed"],
        values["payload_crc32"])
    model = values.get("model", legacy.STATISTICS_MODEL_BEFORE_V8)
    payload = blob[end + U32.size:]
    if zlib.crc32(payload) != payload_crc:
        raise CorruptArchiveError("payload checksum mismatch (the archive is damaged)")
    try:
        config = StatisticsConfig(table_bits, match_bits, rate, keyed, model).validate(
            "header field")
    except FadeError as error:
        raise FormatError(str(error)) from None
    if keyed:
        raise _out_of_domain("keyed", keyed, "0 in a statistics archive: one stream")
    most = (8 * len(payload) + 64) * STATISTICS_BYTES_PER_BIT
    if size > most:
        raise _out_of_domain("original_size", size,
                             f"at most {most} for a payload of {len(payload)} bytes")
    return StatisticsHeader(size, crc, config, version), payload


def _unpack_floats(blob: bytes, version: int, size: int, crc: int) -> tuple[FloatHeader, bytes]:
    offset = _COMPACT.size
    if len(blob) < offset + _FLOAT_TABLE.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    mode, source, count, payload_crc = _FLOAT_TABLE.unpack_from(blob, offset)
    offset += _FLOAT_TABLE.size
    end = offset + count * _SEGMENT.size
    if len(blob) < end + U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete segment table)")
    if not sealed(blob, end):
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    segments = []
    for kind, codec, length, stream_size in _SEGMENT.iter_unpack(blob[offset:end]):
        segments.append(Segment(_enum(SEGMENT_TYPES, kind & ~BIG_ENDIAN, "segment type"), length,
                                bool(kind & BIG_ENDIAN), _enum(EXPONENT_CODECS, codec, "codec"),
                                stream_size))
    header = FloatHeader(size, crc, _enum(FLOAT_MODES, mode, "mode"),
                         _enum(FLOAT_SOURCES, source, "source"), tuple(segments), version)
    if sum(s.length for s in segments) != size:
        raise CorruptArchiveError("segment lengths do not add up to the original size")
    payload = blob[end + U32.size:]
    if zlib.crc32(payload) != payload_crc:
        raise CorruptArchiveError("payload checksum mismatch (the archive is damaged)")
    if header.mode == "fast" and sum(s.stream_size for s in segments) != len(payload):
        raise CorruptArchiveError("segment streams do not fill the payload")
    return header, payload


def _enum(table: dict[int, str], code: int, field: str) -> str:
    if code not in table:
        raise FormatError(f"unsupported {field} code {code} (this fade reads format "
                          f"v{VERSION}); made by a newer fade?")
    return table[code]


def unpack(blob: bytes) -> tuple[AnyHeader, bytes]:
    """Parse and check an archive; raise FormatError or CorruptArchiveError.

    Returns the header and the payload (the coder's words for "fade", the
    segment streams for "floats", the method's stream otherwise). Cost: one CRC-32 pass over a learned archive.
    Nothing is decoded here.
    """
    if len(blob) < len(MAGIC) or blob[:len(MAGIC)] != MAGIC:
        raise FormatError("not a fade archive (bad magic number)")
    if len(blob) < PREFIX.size + 1:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    _, version = PREFIX.unpack_from(blob)
    if version not in READABLE_VERSIONS:
        raise FormatError(f"unsupported format version {version} "
                          f"(this fade reads versions {', '.join(map(str, READABLE_VERSIONS))}); "
                          "upgrade fade")
    method = method_of(blob)
    if method == FRAMES:
        raise FormatError("a frames archive has no single header (fade.frames reads it)")
    if method != LEARNED:
        if len(blob) < _COMPACT.size:
            raise CorruptArchiveError("archive is truncated (incomplete header)")
        _, _, _, size, crc = _COMPACT.unpack_from(blob)
        if method == FLOATS:
            return _unpack_floats(blob, version, size, crc)
        if method == STATISTICS:
            return _unpack_statistics(blob, version, size, crc)
        return CompactHeader(method, size, crc, version), blob[_COMPACT.size:]
    return _unpack_learned(blob, version)


# A range coder cannot code a byte in less than -log2(1 - 255 / 2^24) bits
# (constriction's Categorical(perfect=False) leaves every one of the 256
# values at least 2^-24), so a payload of P bits holds at most this many
# bytes per bit, plus its final state (at most 64 bits per group).
BYTES_PER_PAYLOAD_BIT = 45_604


# The bit coder gives a bit at least 1 / 65536 of its range, so a bit costs at
# least -log2(65535 / 65536) bits and a byte 8 times that: a payload bit holds
# at most 5,678 bytes (plus 32 bits of final state).
STATISTICS_BYTES_PER_BIT = 5_678


def max_original_size(payload_size: int, groups: int, coding: str = "network") -> int:
    """The most bytes a learned payload of `payload_size` bytes in `groups`
    range-coded (network) or bit-coded (hybrid) streams can hold
    (docs/format.md, "Field domains")."""
    if coding == HYBRID:
        return (8 * payload_size + 64 * groups) * STATISTICS_BYTES_PER_BIT
    return (8 * payload_size + 64 * groups) * BYTES_PER_PAYLOAD_BIT


def _out_of_domain(field: str, value: int, domain: str) -> FormatError:
    return FormatError(f"header field {field} = {value} is outside its domain ({domain})")


def _check_domains(values: dict, groups: int, sizes: tuple[int, ...], coding: str) -> None:
    """The integer fields of a learned header against their domains and each
    other (docs/format.md, "Field domains"); the model's fields are checked
    by ModelConfig.validate."""
    size, batch, payload_size = values["original_size"], values["batch_size"], \
        values["payload_size"]
    if coding == NETWORK:
        for name in ("table_bits", "match_bits", "mixer_rate", "keyed", "statistics_model"):
            if values.get(name, 0):
                raise _out_of_domain(name, values[name], "0 when the network codes alone")
    most = max_original_size(payload_size, groups, coding)
    if size > most:
        raise _out_of_domain("original_size", size,
                             f"at most {most} for a payload of {payload_size} bytes")
    if size == 0:
        if batch != 0 or groups != 0:
            raise _out_of_domain("batch_size" if batch else "groups", batch or groups,
                                 "0 for an empty original")
    else:
        if not 1 <= batch <= min(size, MAX_BATCH):
            raise _out_of_domain("batch_size", batch, f"1 to min(original_size, {MAX_BATCH})")
        if not 1 <= groups <= min(batch, MAX_GROUPS):
            raise _out_of_domain("groups", groups, f"1 to min(batch_size, {MAX_GROUPS})")
    if not 1 <= values["threads"] <= MAX_THREADS:
        raise _out_of_domain("threads", values["threads"], f"1 to {MAX_THREADS}")
    if sum(sizes) != payload_size:
        raise CorruptArchiveError("group payload sizes do not add up to the payload size")
    for group, group_size in enumerate(sizes):
        if coding == HYBRID and size and group_size < 4:
            raise _out_of_domain(f"group_payload_size[{group}]", group_size,
                                 "at least 4: the bit coder's final state")
        if coding == NETWORK and (group_size % 4 or (size and not group_size)):
            raise _out_of_domain(f"group_payload_size[{group}]", group_size,
                                 "a positive multiple of 4: 32-bit words")


def method_of(blob: bytes) -> str:
    """The method named by an archive's first 11 bytes (magic and version
    already checked); an unknown method code is a FormatError."""
    _, version = PREFIX.unpack_from(blob)
    if version == 1:
        return LEARNED
    method = _enum(METHODS, blob[PREFIX.size], "method")
    if version < METHOD_SINCE.get(method, 1):
        raise FormatError(f"method {method!r} does not exist in format v{version}")
    return method


def method_named(prefix: bytes) -> str | None:
    """The method `prefix` names where it is a whole archive prefix
    (PREFIX_SIZE bytes, the magic number) naming a known one; else None
    (unpack or fade.members.read_archive say what is wrong)."""
    if len(prefix) < PREFIX_SIZE or not prefix.startswith(MAGIC):
        return None
    try:
        return method_of(prefix)
    except FadeError:
        return None


def _unpack_learned(blob: bytes, version: int) -> tuple[Header, bytes]:
    fixed, fields = legacy.fixed_layout(version)
    if len(blob) < fixed.size + U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    values = dict(zip((name for name, _ in fields), fixed.unpack_from(blob)))
    header_size = values["header_size"]
    if header_size > len(blob):
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    if header_size < fixed.size + U32.size:
        raise CorruptArchiveError("header size field is damaged")
    if not sealed(blob, header_size - U32.size):
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if values["flags"] != 0:
        raise FormatError(f"reserved flags are set ({values['flags']:#06x}); "
                          "made by a newer fade?")
    if values["determinism"] != DETERMINISM_V1:
        raise FormatError(f"unsupported determinism settings {values['determinism']:#04x}")

    strings, offset = {}, fixed.size
    for name in legacy.string_fields(version):
        if offset + U16.size > header_size - U32.size:
            raise CorruptArchiveError("header strings are damaged")
        (length,) = U16.unpack_from(blob, offset)
        offset += U16.size
        raw = blob[offset:offset + length]
        offset += length
        try:
            strings[name] = raw.decode()
        except UnicodeDecodeError:
            raise CorruptArchiveError(f"header field {name} is not UTF-8") from None
    if "profile" in strings and strings["profile"] not in PROFILES:
        raise FormatError(f"unsupported numeric profile {strings['profile']!r} (this fade "
                          f"knows {', '.join(PROFILES)}); made by a newer fade?")
    if legacy.has_groups(version):
        groups = values["groups"]
        if offset + groups * U64.size != header_size - U32.size:
            raise CorruptArchiveError("header strings and group table do not fill the header")
        sizes = tuple(U64.unpack_from(blob, offset + i * U64.size)[0] for i in range(groups))
        schedule = _enum(SCHEDULES, values["schedule"], "schedule")
    else:  # one group, one payload
        if offset != header_size - U32.size:
            raise CorruptArchiveError("header strings do not fill the header")
        groups = 1 if values["original_size"] else 0
        sizes = (values["payload_size"],) if groups else ()
        schedule = SCHEDULES[1]

    payload = blob[header_size:]
    if len(payload) < values["payload_size"]:
        raise CorruptArchiveError(f"archive is truncated ({len(payload)} of "
                                  f"{values['payload_size']} payload bytes)")
    if len(payload) > values["payload_size"]:
        raise CorruptArchiveError(f"{len(payload) - values['payload_size']} unexpected "
                                  "bytes after the payload")
    if zlib.crc32(payload) != values["payload_crc32"]:
        raise CorruptArchiveError("payload checksum mismatch (the archive is damaged)")

    coding = _enum(CODINGS, values.get("coding", 0), "coding")
    statistics = _statistics_of(values) if coding == HYBRID else None
    _check_domains(values, groups, sizes, coding)
    try:
        model = ModelConfig(**{name: values[name] for name in _MODEL_FIELDS}).validate(
            "header field")
    except FadeError as error:  # a CRC-valid header with impossible sizes
        raise FormatError(str(error)) from None
    header = Header(
        original_size=values["original_size"], original_sha256=values["original_sha256"],
        batch_size=values["batch_size"], seed=values["seed"], model=model,
        threads=values["threads"],
        device_kind=_enum(DEVICE_KINDS, values["device_kind"], "device kind"),
        dtype=_enum(DTYPES, values["dtype"], "dtype"),
        optimizer=_enum(OPTIMIZERS, values["optimizer"], "optimizer"),
        determinism=values["determinism"], groups=groups, schedule=schedule,
        group_payload_sizes=sizes, statistics=statistics, version=version, **strings,
    )
    return header, payload


def _statistics_of(values: dict) -> StatisticsConfig:
    """A hybrid header's statistics, checked against their domains."""
    try:
        return StatisticsConfig(values["table_bits"], values["match_bits"], values["mixer_rate"],
                                bool(values["keyed"]),
                                values.get("statistics_model", legacy.STATISTICS_MODEL_BEFORE_V8)
                                ).validate("header field")
    except FadeError as error:
        raise FormatError(str(error)) from None
