"""docs/format.md, the code and the golden v1 archive agree."""

import re
import struct
from pathlib import Path

import fade
from fade import archive
from fade.config import PRESETS

from conftest import REPO

GOLDEN = Path(__file__).parent / "golden"
TYPES = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q", "f64": "d"}


def documented_fixed_fields():
    """(offset, size, struct code, field) from the byte table in docs/format.md."""
    doc = (REPO / "docs" / "format.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\w+) \| (\w+) \|", doc, flags=re.M)
    fields = []
    for offset, size, kind, name in rows:
        code = f"{size}s" if kind == "bytes" else TYPES[kind]
        fields.append((int(offset), int(size), code, name))
    return fields


def test_document_table_matches_the_code():
    documented = documented_fixed_fields()
    offset, expected = 0, []
    for name, code in archive.FIXED_FIELDS:
        size = struct.calcsize("<" + code)
        expected.append((offset, size, code, name))
        offset += size
    assert documented == expected
    doc = (REPO / "docs" / "format.md").read_text()
    assert f"Format version: **{archive.VERSION}**" in doc
    assert f"fixed part ({offset} B)" in doc
    strings = re.findall(r"^\| \d \| (\w+) \| `", doc, flags=re.M)
    assert strings == archive.STRING_FIELDS


def test_golden_archive_fields_at_documented_offsets():
    blob = (GOLDEN / "v1-tiny.fade").read_bytes()
    original = (GOLDEN / "v1-tiny.input").read_bytes()
    raw = {name: struct.unpack_from("<" + code, blob, offset)[0]
           for offset, _, code, name in documented_fixed_fields()}
    assert raw["magic"] == b"\x89FADE\r\n\x1a"
    assert raw["version"] == 1 and raw["flags"] == 0
    assert raw["original_size"] == len(original)
    assert raw["original_sha256"] == archive.sha256(original)
    assert raw["header_size"] + raw["payload_size"] == len(blob)
    assert (raw["batch_size"], raw["seed"], raw["threads"]) == (4, 0, 1)
    assert (raw["dtype"], raw["optimizer"], raw["determinism"], raw["device_kind"]) == (1, 1, 7, 0)
    tiny = PRESETS["tiny"]
    for name in ("timesteps", "embed_dim", "global_width", "cache_step", "branches",
                 "coarse_rank", "fine_width", "init_std", "learning_rate", "weight_decay"):
        assert raw[name] == getattr(tiny, name), name
    header = fade.read_header(blob)
    assert header.preset == "tiny" and header.fade_version == "0.1.0"
    assert header.model == tiny


def test_golden_archive_decodes_and_reencodes_identically():
    blob = (GOLDEN / "v1-tiny.fade").read_bytes()
    original = (GOLDEN / "v1-tiny.input").read_bytes()
    assert fade.decompress(blob) == original
    again = fade.compress(original, preset_name="tiny", batch_size=4, threads=1, seed=0,
                          device="cpu")
    # Every fixed field but header_size, and the payload, are pinned; the
    # provenance strings (device name, torch version) vary by machine.
    fields = archive.FIXED_FIELDS
    fixed = struct.Struct("<" + "".join(code for _, code in fields))
    pinned = [i for i, (name, _) in enumerate(fields) if name != "header_size"]
    assert [fixed.unpack_from(again)[i] for i in pinned] == \
        [fixed.unpack_from(blob)[i] for i in pinned]
    assert archive.unpack(again)[1] == archive.unpack(blob)[1]
