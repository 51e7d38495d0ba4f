"""The .fade archive format, version 8 (specified in docs/format.md).

Every archive starts with the magic number, the format version and (from
version 2 on) a method byte. Method `fade` is the learned model: a header
holding every parameter the decoder needs, so decompression takes no flags,
then the range coders' payloads, one per group of sub-streams (version 4;
one payload before); the header and the payload carry a CRC-32 so damage is
reported before any decoding, and the SHA-256 of the original verifies the
decoded bytes. The compact methods (stored, deflate, bzip2, xz: the size
floor for inputs the model would not win on) have a 23-byte header with the
original size and its CRC-32. Version 5 adds the numeric profile and the
machine description a decoder checks before it replays the model
(fade.profile). Version 6 adds the statistics and the hybrid; version 7 the
frames archive (its container is read and written by fade.frames); version 8
the statistics' model number (fade.statistics: model 1; older archives are
model 0). Archives of versions 1 to 7 still decode. All integers are
little-endian.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
import zlib
from dataclasses import dataclass

from fade.config import MAX_BATCH, MAX_GROUPS, MAX_THREADS, ModelConfig, StatisticsConfig
from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.profile import MACHINE_FIELDS, PROFILES, Machine

MAGIC = b"\x89FADE\r\n\x1a"  # non-ASCII first byte, CR LF and ^Z catch text-mode damage
VERSION = 8
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)

# How the data is coded. Only "fade" runs the learned model; stored, deflate,
# bzip2 and xz are the size floor (fade.floor), each a standard stream of the
# stdlib codec; "floats" splits float tensors into exponent and sign/mantissa
# streams (fade.floats) and is new in version 3; "statistics" codes the bytes
# in file order with the context-mixing statistics alone (fade.statistics,
# level fast), new in version 6; "frames" holds an input cut into frames, each
# an archive of one of the other methods (fade.frames), new in version 7.
METHODS = {0: "stored", 1: "fade", 2: "deflate", 3: "bzip2", 4: "xz", 5: "floats",
           6: "statistics", 7: "frames"}
LEARNED = "fade"
FLOATS = "floats"
STATISTICS = "statistics"
FRAMES = "frames"
# The version each method first appeared in.
METHOD_SINCE = {"floats": 3, "statistics": 6, "frames": 7}

# Fixed part of a learned ("fade") archive's header: (field, struct code), in
# file order. docs/format.md has the same table; tests/test_format.py keeps
# them equal. Versions 2 and 3 end before `groups`; version 1 also lacks the
# method byte.
FIXED_FIELDS = [
    ("magic", "8s"),
    ("version", "H"),
    ("method", "B"),
    ("flags", "H"),  # reserved, must be 0
    ("header_size", "I"),  # payload starts at this offset
    ("original_size", "Q"),
    ("original_sha256", "32s"),
    ("payload_size", "Q"),
    ("payload_crc32", "I"),
    ("batch_size", "I"),
    ("seed", "Q"),
    ("timesteps", "H"),
    ("embed_dim", "H"),
    ("global_width", "I"),
    ("cache_step", "H"),
    ("branches", "H"),
    ("coarse_rank", "H"),
    ("fine_width", "I"),
    ("init_std", "d"),
    ("learning_rate", "d"),
    ("weight_decay", "d"),
    ("adam_beta1", "d"),
    ("adam_beta2", "d"),
    ("adam_eps", "d"),
    ("dtype", "B"),
    ("optimizer", "B"),
    ("determinism", "B"),
    ("device_kind", "B"),
    ("threads", "H"),
    ("groups", "H"),  # G: groups of sub-streams, one payload each (0 when N = 0)
    ("schedule", "B"),  # SCHEDULES: the order of forwards, backwards and updates
    ("coding", "B"),  # CODINGS: what codes the bytes (version 6)
    ("table_bits", "B"),  # the hybrid's statistics (fade.config.StatisticsConfig); 0 if none
    ("match_bits", "B"),
    ("mixer_rate", "H"),
    ("keyed", "B"),
    ("statistics_model", "B"),  # StatisticsConfig.model (version 8; 0 before)
]
FIXED_FIELDS_V7 = FIXED_FIELDS[:-1]
FIXED_FIELDS_V5 = FIXED_FIELDS_V7[:-5]
FIXED_FIELDS_V3 = FIXED_FIELDS_V5[:-2]
FIXED_FIELDS_V1 = [field for field in FIXED_FIELDS_V3 if field[0] != "method"]
_FIXED = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS))
_FIXED_V7 = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS_V7))
_FIXED_V5 = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS_V5))
_FIXED_V3 = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS_V3))
_FIXED_V1 = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS_V1))
_PREFIX = struct.Struct("<8sH")  # magic, version: common to every version

# The whole header of a compact archive (every method but "fade"); the
# method's stream follows to the end of the archive.
COMPACT_FIELDS = [
    ("magic", "8s"),
    ("version", "H"),
    ("method", "B"),
    ("original_size", "Q"),
    ("original_crc32", "I"),  # of the original data; checked after decoding
]
_COMPACT = struct.Struct("<" + "".join(code for _, code in COMPACT_FIELDS))
COMPACT_OVERHEAD = _COMPACT.size  # 23 bytes

# A "floats" archive: the compact fields above, then this table, one
# SEGMENT_FIELDS row per segment, the CRC-32 of every byte before it, and
# the segments' streams in order (fast mode) or one nested archive of the
# byte planes (strong mode).
FLOAT_FIELDS = [
    ("mode", "B"),
    ("source", "B"),
    ("segment_count", "I"),
    ("payload_crc32", "I"),  # of everything after the table's CRC
]
SEGMENT_FIELDS = [
    ("type", "B"),  # SEGMENT_TYPES, | BIG_ENDIAN
    ("codec", "B"),  # EXPONENT_CODECS; 0 for bytes and in strong mode
    ("length", "Q"),  # bytes of the original
    ("stream_size", "Q"),  # bytes of this segment's stream; 0 in strong mode
]
# A "statistics" archive: the compact fields, then this table, the CRC-32 of
# every byte before it, and the binary arithmetic coder's stream.
STATISTICS_FIELDS = [
    ("table_bits", "B"),
    ("match_bits", "B"),
    ("mixer_rate", "H"),
    ("keyed", "B"),  # 0: one stream in file order
    ("model", "B"),  # StatisticsConfig.model (version 8; 0 before)
    ("payload_crc32", "I"),
]
STATISTICS_FIELDS_V7 = [field for field in STATISTICS_FIELDS if field[0] != "model"]
_STATISTICS_TABLE = struct.Struct("<" + "".join(code for _, code in STATISTICS_FIELDS))
_STATISTICS_TABLE_V7 = struct.Struct("<" + "".join(code for _, code in STATISTICS_FIELDS_V7))
_FLOAT_TABLE = struct.Struct("<" + "".join(code for _, code in FLOAT_FIELDS))
_SEGMENT = struct.Struct("<" + "".join(code for _, code in SEGMENT_FIELDS))
FLOAT_MODES = {0: "fast", 1: "strong"}
FLOAT_SOURCES = {0: "raw", 1: "npy", 2: "safetensors"}
SEGMENT_TYPES = {0: "bytes", 1: "bf16", 2: "fp16", 3: "fp32"}
BIG_ENDIAN = 0x80
EXPONENT_CODECS = {0: "none", 1: "window7", 2: "top16", 3: "huffman", 4: "rlh"}
# After the fixed part: these UTF-8 strings, each as u16 length + bytes,
# then the CRC-32 of every header byte before it. Version 5 adds the numeric
# profile and the rest of the machine description (fade.profile.Machine).
STRING_FIELDS_V4 = ["preset", "device_name", "torch_version", "cpu_capability", "fade_version"]
STRING_FIELDS = STRING_FIELDS_V4 + [
    "profile", "architecture", "cpu_vendor", "cpu_isa", "onednn_isa", "mkl_cpu", "mkl_version",
    "onednn_version", "cuda_version", "cudnn_version"]
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")  # each group's payload size, after the strings (version 4)

DTYPES = {1: "float32"}
OPTIMIZERS = {1: "adam-fused"}  # torch.optim.Adam(fused=True)
DEVICE_KINDS = {0: "cpu", 1: "cuda"}
# lockstep: at step t every group's forward sees the parameters after t Adam
# steps; the groups' weighted losses are backpropagated in group order and
# one Adam step follows (fade.codec). One group: the computation of v1-v3.
SCHEDULES = {1: "lockstep"}
# network: the network's 256 probabilities drive a range coder per group
# (constriction), as in versions 1 to 5; hybrid: each group's statistics
# (fade.statistics) mix them with their own contexts, bit by bit, into a
# binary arithmetic coder (version 6).
CODINGS = {0: "network", 1: "hybrid"}
NETWORK, HYBRID = "network", "hybrid"
# Determinism bits; every archive of v1 sets all three.
DETERMINISTIC_ALGORITHMS = 1  # torch.use_deterministic_algorithms(True)
NO_TF32 = 2  # float32 matmul precision "highest": no TF32 or bf16 shortcuts
CUDNN_DETERMINISTIC = 4  # cudnn.deterministic = True, cudnn.benchmark = False
DETERMINISM_V1 = DETERMINISTIC_ALGORITHMS | NO_TF32 | CUDNN_DETERMINISTIC

_MODEL_FIELDS = [f.name for f in dataclasses.fields(ModelConfig)]
# What the statistics fields hold when the network codes alone.
_NO_STATISTICS = StatisticsConfig(table_bits=0, match_bits=0, mixer_rate=0, keyed=False)


@dataclass(frozen=True)
class Header:
    """Everything the decoder of a learned archive needs, and what it was made with."""

    original_size: int
    original_sha256: bytes
    batch_size: int  # 0 for an empty input
    seed: int
    model: ModelConfig
    threads: int  # torch intra-op threads used for encoding; decoding restores it
    device_kind: str  # "cpu" or "cuda"
    device_name: str
    torch_version: str
    cpu_capability: str
    fade_version: str
    preset: str = ""  # informational: the model config is stored in full
    dtype: str = "float32"
    optimizer: str = "adam-fused"
    determinism: int = DETERMINISM_V1
    groups: int = 1  # 0 for an empty input
    schedule: str = "lockstep"
    group_payload_sizes: tuple[int, ...] = ()  # bytes of each group's payload, in order
    statistics: StatisticsConfig | None = None  # the hybrid's; None: the network alone
    # The numeric profile and the machine (fade.profile.Machine); versions 1
    # to 4 hold none of these: native, oneDNN unpinned.
    profile: str = "native"
    architecture: str = ""
    cpu_vendor: str = ""
    cpu_isa: str = ""
    onednn_isa: str = ""
    mkl_cpu: str = ""
    mkl_version: str = ""
    onednn_version: str = ""
    cuda_version: str = ""
    cudnn_version: str = ""
    version: int = VERSION
    method: str = LEARNED

    @property
    def coding(self) -> str:
        return NETWORK if self.statistics is None else HYBRID

    def machine(self) -> Machine:
        """The machine the archive was made on, as fade.profile compares it."""
        return Machine(**{name: getattr(self, name) for name in MACHINE_FIELDS})

    def fields(self) -> dict[str, object]:
        """Flat name -> value view, as `fade info` prints it."""
        flat = {"version": self.version, "method": self.method}
        flat.update((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                    if f.name not in ("model", "version", "method"))
        flat["original_sha256"] = self.original_sha256.hex()
        flat["group_payload_sizes"] = ", ".join(map(str, self.group_payload_sizes)) or "none"
        del flat["statistics"]
        flat["coding"] = self.coding
        flat.update(_statistics_values(self.statistics or _NO_STATISTICS))
        for name in MACHINE_FIELDS:  # recorded as empty: no GPU, no MKL, before v5
            flat[name] = flat[name] or "none"
        flat.update(dataclasses.asdict(self.model))
        return flat


@dataclass(frozen=True)
class CompactHeader:
    """Header of an archive that does not use the model (the size floor)."""

    method: str  # "stored", "deflate", "bzip2" or "xz"
    original_size: int
    original_crc32: int
    version: int = VERSION

    def fields(self) -> dict[str, object]:
        """Flat name -> value view, as `fade info` prints it."""
        return {"version": self.version, "method": self.method,
                "original_size": self.original_size,
                "original_crc32": f"{self.original_crc32:08x}"}


@dataclass(frozen=True)
class StatisticsHeader:
    """Header of a "statistics" archive: the original's size and CRC, and the
    statistics settings the decoder repeats."""

    original_size: int
    original_crc32: int
    statistics: StatisticsConfig
    version: int = VERSION
    method: str = STATISTICS

    def fields(self) -> dict[str, object]:
        """Flat name -> value view, as `fade info` prints it."""
        return {"version": self.version, "method": self.method,
                "original_size": self.original_size,
                "original_crc32": f"{self.original_crc32:08x}",
                **dataclasses.asdict(self.statistics)}


@dataclass(frozen=True)
class Segment:
    """A run of the original: plain bytes, or values of one float type."""

    type: str  # SEGMENT_TYPES value
    length: int  # bytes
    big_endian: bool = False
    codec: str = "none"  # how the exponents were coded (fast mode)
    stream_size: int = 0


@dataclass(frozen=True)
class FloatHeader:
    """Header of a "floats" archive: the original's size and CRC, and its segments."""

    original_size: int
    original_crc32: int
    mode: str  # "fast" (exponent codecs) or "strong" (byte planes to a nested archive)
    source: str  # "raw", "npy" or "safetensors": how the segments were found
    segments: tuple[Segment, ...]
    version: int = VERSION
    method: str = FLOATS

    def fields(self) -> dict[str, object]:
        """Flat name -> value view, as `fade info` prints it."""
        kinds: dict[str, int] = {}
        for segment in self.segments:
            name = segment.type if segment.codec == "none" else f"{segment.type}/{segment.codec}"
            kinds[name] = kinds.get(name, 0) + segment.length
        return {"version": self.version, "method": self.method, "mode": self.mode,
                "source": self.source, "original_size": self.original_size,
                "original_crc32": f"{self.original_crc32:08x}",
                "segments": len(self.segments),
                "bytes_by_type": ", ".join(f"{k} {v}" for k, v in kinds.items())}


AnyHeader = Header | CompactHeader | FloatHeader | StatisticsHeader


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


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
    strings = b"".join(_U16.pack(len(s)) + s for s in
                       (getattr(header, name).encode() for name in STRING_FIELDS))
    group_table = b"".join(_U64.pack(size) for size in header.group_payload_sizes)
    header_size = _FIXED.size + len(strings) + len(group_table) + _U32.size
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
        **_statistics_values(header.statistics or _NO_STATISTICS),
        **dataclasses.asdict(header.model),
    )
    head = _FIXED.pack(*(values[name] for name, _ in FIXED_FIELDS)) + strings + group_table
    return head + _U32.pack(zlib.crc32(head)) + payload


def _statistics_values(config: StatisticsConfig) -> dict[str, int]:
    """A learned header's statistics fields (the model's as statistics_model:
    `model` is the network's there)."""
    values = dataclasses.asdict(config)
    values["statistics_model"] = values.pop("model")
    return values


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
    return head + _U32.pack(zlib.crc32(head)) + payload


def pack_statistics(config: StatisticsConfig, original: bytes, stream: bytes) -> bytes:
    """A "statistics" archive: `stream` codes `original` with `config`."""
    head = _COMPACT.pack(MAGIC, VERSION, _code(METHODS, STATISTICS, "method"), len(original),
                         zlib.crc32(original))
    head += _STATISTICS_TABLE.pack(config.table_bits, config.match_bits, config.mixer_rate,
                                   int(config.keyed), config.model, zlib.crc32(stream))
    return head + _U32.pack(zlib.crc32(head)) + stream


def _unpack_statistics(blob: bytes, version: int, size: int,
                       crc: int) -> tuple[StatisticsHeader, bytes]:
    table = _STATISTICS_TABLE if version >= 8 else _STATISTICS_TABLE_V7
    end = _COMPACT.size + table.size
    if len(blob) < end + _U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    if zlib.crc32(blob[:end]) != _U32.unpack_from(blob, end)[0]:
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if version >= 8:
        table_bits, match_bits, rate, keyed, model, payload_crc = table.unpack_from(
            blob, _COMPACT.size)
    else:  # versions 6 and 7: model 0, the only one there was
        table_bits, match_bits, rate, keyed, payload_crc = table.unpack_from(blob, _COMPACT.size)
        model = 0
    payload = blob[end + _U32.size:]
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
    if len(blob) < end + _U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete segment table)")
    if zlib.crc32(blob[:end]) != _U32.unpack_from(blob, end)[0]:
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
    payload = blob[end + _U32.size:]
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
    if len(blob) < _PREFIX.size + 1:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    _, version = _PREFIX.unpack_from(blob)
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
    _, version = _PREFIX.unpack_from(blob)
    if version == 1:
        return LEARNED
    method = _enum(METHODS, blob[_PREFIX.size], "method")
    if version < METHOD_SINCE.get(method, 1):
        raise FormatError(f"method {method!r} does not exist in format v{version}")
    return method


def _unpack_learned(blob: bytes, version: int) -> tuple[Header, bytes]:
    layout, fields = {1: (_FIXED_V1, FIXED_FIELDS_V1), 2: (_FIXED_V3, FIXED_FIELDS_V3),
                      3: (_FIXED_V3, FIXED_FIELDS_V3), 4: (_FIXED_V5, FIXED_FIELDS_V5),
                      5: (_FIXED_V5, FIXED_FIELDS_V5), 6: (_FIXED_V7, FIXED_FIELDS_V7),
                      7: (_FIXED_V7, FIXED_FIELDS_V7)}.get(version, (_FIXED, FIXED_FIELDS))
    if len(blob) < layout.size + _U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    values = dict(zip((name for name, _ in fields), layout.unpack_from(blob)))
    header_size = values["header_size"]
    if header_size > len(blob):
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    if header_size < layout.size + _U32.size:
        raise CorruptArchiveError("header size field is damaged")
    (stored_crc,) = _U32.unpack_from(blob, header_size - _U32.size)
    if zlib.crc32(blob[:header_size - _U32.size]) != stored_crc:
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if values["flags"] != 0:
        raise FormatError(f"reserved flags are set ({values['flags']:#06x}); "
                          "made by a newer fade?")
    if values["determinism"] != DETERMINISM_V1:
        raise FormatError(f"unsupported determinism settings {values['determinism']:#04x}")

    strings, offset = {}, layout.size
    for name in STRING_FIELDS if version >= 5 else STRING_FIELDS_V4:
        if offset + _U16.size > header_size - _U32.size:
            raise CorruptArchiveError("header strings are damaged")
        (length,) = _U16.unpack_from(blob, offset)
        offset += _U16.size
        raw = blob[offset:offset + length]
        offset += length
        try:
            strings[name] = raw.decode()
        except UnicodeDecodeError:
            raise CorruptArchiveError(f"header field {name} is not UTF-8") from None
    if version >= 5 and strings["profile"] not in PROFILES:
        raise FormatError(f"unsupported numeric profile {strings['profile']!r} (this fade "
                          f"knows {', '.join(PROFILES)}); made by a newer fade?")
    if version >= 4:
        groups = values["groups"]
        if offset + groups * _U64.size != header_size - _U32.size:
            raise CorruptArchiveError("header strings and group table do not fill the header")
        sizes = tuple(_U64.unpack_from(blob, offset + i * _U64.size)[0] for i in range(groups))
        schedule = _enum(SCHEDULES, values["schedule"], "schedule")
    else:  # one group, one payload
        if offset != header_size - _U32.size:
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
                                bool(values["keyed"]), values.get("statistics_model", 0)
                                ).validate("header field")
    except FadeError as error:
        raise FormatError(str(error)) from None
