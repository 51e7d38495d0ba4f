"""The .fade archive format, version 1 (specified in docs/format.md).

An archive is a header followed by the range coder's payload. The header
holds every parameter the decoder needs, so decompression takes no flags;
both the header and the payload carry a CRC-32 so damage is reported before
any decoding, and the SHA-256 of the original verifies the decoded bytes.
All integers are little-endian.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
import zlib
from dataclasses import dataclass

from fade.config import ModelConfig
from fade.errors import CorruptArchiveError, FormatError

MAGIC = b"\x89FADE\r\n\x1a"  # non-ASCII first byte, CR LF and ^Z catch text-mode damage
VERSION = 1

# Fixed part of the header: (field, struct code), in file order.
# docs/format.md has the same table; tests/test_format.py keeps them equal.
FIXED_FIELDS = [
    ("magic", "8s"),
    ("version", "H"),
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
]
_FIXED = struct.Struct("<" + "".join(code for _, code in FIXED_FIELDS))
# After the fixed part: these UTF-8 strings, each as u16 length + bytes,
# then the CRC-32 of every header byte before it.
STRING_FIELDS = ["preset", "device_name", "torch_version", "cpu_capability", "fade_version"]
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")

DTYPES = {1: "float32"}
OPTIMIZERS = {1: "adam-fused"}  # torch.optim.Adam(fused=True)
DEVICE_KINDS = {0: "cpu", 1: "cuda"}
# Determinism bits; every archive of v1 sets all three.
DETERMINISTIC_ALGORITHMS = 1  # torch.use_deterministic_algorithms(True)
NO_TF32 = 2  # float32 matmul precision "highest": no TF32 or bf16 shortcuts
CUDNN_DETERMINISTIC = 4  # cudnn.deterministic = True, cudnn.benchmark = False
DETERMINISM_V1 = DETERMINISTIC_ALGORITHMS | NO_TF32 | CUDNN_DETERMINISTIC

_MODEL_FIELDS = [f.name for f in dataclasses.fields(ModelConfig)]


@dataclass(frozen=True)
class Header:
    """Everything the decoder needs, and what the archive was made with."""

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

    def fields(self) -> dict[str, object]:
        """Flat name -> value view, as `fade info` prints it."""
        flat = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "model"}
        flat["original_sha256"] = self.original_sha256.hex()
        flat.update(dataclasses.asdict(self.model))
        return flat


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _code(table: dict[int, str], name: str, field: str) -> int:
    for code, value in table.items():
        if value == name:
            return code
    raise ValueError(f"{field} {name!r} has no code in format v{VERSION}")


def pack(header: Header, payload: bytes) -> bytes:
    """The archive bytes for `header` and the coder's `payload`."""
    strings = b"".join(_U16.pack(len(s)) + s for s in
                       (getattr(header, name).encode() for name in STRING_FIELDS))
    header_size = _FIXED.size + len(strings) + _U32.size
    values = dict(
        magic=MAGIC, version=VERSION, flags=0, header_size=header_size,
        original_size=header.original_size, original_sha256=header.original_sha256,
        payload_size=len(payload), payload_crc32=zlib.crc32(payload),
        batch_size=header.batch_size, seed=header.seed,
        dtype=_code(DTYPES, header.dtype, "dtype"),
        optimizer=_code(OPTIMIZERS, header.optimizer, "optimizer"),
        determinism=header.determinism,
        device_kind=_code(DEVICE_KINDS, header.device_kind, "device kind"),
        threads=header.threads,
        **dataclasses.asdict(header.model),
    )
    head = _FIXED.pack(*(values[name] for name, _ in FIXED_FIELDS)) + strings
    return head + _U32.pack(zlib.crc32(head)) + payload


def _enum(table: dict[int, str], code: int, field: str) -> str:
    if code not in table:
        raise FormatError(f"unsupported {field} code {code} (this fade reads format v{VERSION})")
    return table[code]


def unpack(blob: bytes) -> tuple[Header, bytes]:
    """Parse and check an archive; raise FormatError or CorruptArchiveError.

    Cost: one CRC-32 pass over the archive. Nothing is decoded here.
    """
    if len(blob) < len(MAGIC) or blob[:len(MAGIC)] != MAGIC:
        raise FormatError("not a fade archive (bad magic number)")
    if len(blob) < _FIXED.size + _U32.size:
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    values = dict(zip((name for name, _ in FIXED_FIELDS), _FIXED.unpack_from(blob)))
    if values["version"] != VERSION:
        raise FormatError(f"unsupported format version {values['version']} "
                          f"(this fade reads version {VERSION}); upgrade fade")
    header_size = values["header_size"]
    if header_size > len(blob):
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    if header_size < _FIXED.size + _U32.size:
        raise CorruptArchiveError("header size field is damaged")
    (stored_crc,) = _U32.unpack_from(blob, header_size - _U32.size)
    if zlib.crc32(blob[:header_size - _U32.size]) != stored_crc:
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if values["flags"] != 0:
        raise FormatError(f"reserved flags are set ({values['flags']:#06x}); "
                          "made by a newer fade?")
    if values["determinism"] != DETERMINISM_V1:
        raise FormatError(f"unsupported determinism settings {values['determinism']:#04x}")

    strings, offset = {}, _FIXED.size
    for name in STRING_FIELDS:
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
    if offset != header_size - _U32.size:
        raise CorruptArchiveError("header strings do not fill the header")

    payload = blob[header_size:]
    if len(payload) < values["payload_size"]:
        raise CorruptArchiveError(f"archive is truncated ({len(payload)} of "
                                  f"{values['payload_size']} payload bytes)")
    if len(payload) > values["payload_size"]:
        raise CorruptArchiveError(f"{len(payload) - values['payload_size']} unexpected "
                                  "bytes after the payload")
    if zlib.crc32(payload) != values["payload_crc32"]:
        raise CorruptArchiveError("payload checksum mismatch (the archive is damaged)")

    try:
        model = ModelConfig(**{name: values[name] for name in _MODEL_FIELDS}).validate()
    except Exception as error:  # a CRC-valid header with impossible sizes
        raise FormatError(f"invalid model parameters in header: {error}") from None
    header = Header(
        original_size=values["original_size"], original_sha256=values["original_sha256"],
        batch_size=values["batch_size"], seed=values["seed"], model=model,
        threads=values["threads"],
        device_kind=_enum(DEVICE_KINDS, values["device_kind"], "device kind"),
        dtype=_enum(DTYPES, values["dtype"], "dtype"),
        optimizer=_enum(OPTIMIZERS, values["optimizer"], "optimizer"),
        determinism=values["determinism"], **strings,
    )
    if header.original_size and not 1 <= header.batch_size <= header.original_size:
        raise FormatError(f"invalid batch size {header.batch_size} in header")
    if header.threads < 1:
        raise FormatError("invalid thread count 0 in header")
    return header, payload
