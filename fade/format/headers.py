"""What an archive says: its headers, and the codes their fields are stored as.

An archive's first bytes name its format version and method; the method
decides which header follows (fade.format.archive lays them out in bytes,
docs/format.md specifies them). Here are the headers as Python sees them,
one frozen dataclass per method, and the tables that turn a stored code into
a name (an unknown code is a FormatError: an archive from a newer fade).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

from fade.config import ModelConfig, StatisticsConfig
from fade.profile import MACHINE_FIELDS, Machine

MAGIC = b"\x89FADE\r\n\x1a"  # non-ASCII first byte, CR LF and ^Z catch text-mode damage
VERSION = 8
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)

# How the data is coded. Only "fade" runs the learned model; stored, deflate,
# bzip2 and xz are the size floor (fade.floor), each a standard stream of the
# stdlib codec; "floats" splits float tensors into exponent and sign/mantissa
# streams (fade.floats) and is new in version 3; "statistics" codes the bytes
# in file order with the context-mixing statistics alone (fade.statistics,
# level fast), new in version 6; "frames" holds an input cut into frames, each
# an archive of one of the other methods (fade.frames), new in version 7;
# "lzma" is an LZMA stream in the .lzma format (xz's LZMA1 without the .xz
# container's 60 bytes), new in fade 0.11 (version 8).
METHODS = {0: "stored", 1: "fade", 2: "deflate", 3: "bzip2", 4: "xz", 5: "floats",
           6: "statistics", 7: "frames", 8: "lzma"}
LEARNED = "fade"
FLOATS = "floats"
STATISTICS = "statistics"
FRAMES = "frames"
# The version each method first appeared in.
METHOD_SINCE = {"floats": 3, "statistics": 6, "frames": 7, "lzma": 8}

FLOAT_MODES = {0: "fast", 1: "strong"}
FLOAT_SOURCES = {0: "raw", 1: "npy", 2: "safetensors"}
SEGMENT_TYPES = {0: "bytes", 1: "bf16", 2: "fp16", 3: "fp32"}
BIG_ENDIAN = 0x80
EXPONENT_CODECS = {0: "none", 1: "window7", 2: "top16", 3: "huffman", 4: "rlh"}
DTYPES = {1: "float32"}
OPTIMIZERS = {1: "adam-fused"}  # torch.optim.Adam(fused=True)
DEVICE_KINDS = {0: "cpu", 1: "cuda"}
# lockstep: at step t every group's forward sees the parameters after t Adam
# steps; the groups' weighted losses are backpropagated in group order and
# one Adam step follows (fade.lockstep). One group: the computation of v1-v3.
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

# What the statistics fields hold when the network codes alone.
NO_STATISTICS = StatisticsConfig(table_bits=0, match_bits=0, mixer_rate=0, keyed=False)

# The field tables of version 8, (field, struct code) in file order, each
# little-endian; docs/format.md has the same tables and tests/test_format.py
# keeps them equal. fade.format.legacy derives the older versions' tables.

# The fixed part of a learned ("fade") archive's header.
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

# The whole header of a compact archive (every method but "fade"); the
# method's stream follows to the end of the archive.
COMPACT_FIELDS = [
    ("magic", "8s"),
    ("version", "H"),
    ("method", "B"),
    ("original_size", "Q"),
    ("original_crc32", "I"),  # of the original data; checked after decoding
]

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
# After the fixed part: these UTF-8 strings, each as u16 length + bytes,
# then each group's payload size (u64), then the CRC-32 of every header byte
# before it.
STRING_FIELDS = [
    "preset", "device_name", "torch_version", "cpu_capability", "fade_version",
    "profile", "architecture", "cpu_vendor", "cpu_isa", "onednn_isa", "mkl_cpu", "mkl_version",
    "onednn_version", "cuda_version", "cudnn_version"]


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
        flat.update(statistics_values(self.statistics or NO_STATISTICS))
        for name in MACHINE_FIELDS:  # recorded as empty: no GPU, no MKL, before v5
            flat[name] = flat[name] or "none"
        flat.update(dataclasses.asdict(self.model))
        return flat


@dataclass(frozen=True)
class CompactHeader:
    """Header of an archive that does not use the model (the size floor)."""

    method: str  # "stored", "deflate", "bzip2", "xz" or "lzma"
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
    """The SHA-256 digest a learned header records of its original."""
    return hashlib.sha256(data).digest()


def statistics_values(config: StatisticsConfig) -> dict[str, int]:
    """A learned header's statistics fields (the model's as statistics_model:
    `model` is the network's there)."""
    values = dataclasses.asdict(config)
    values["statistics_model"] = values.pop("model")
    return values
