"""docs/format.md, the code and the golden archives of every version agree."""

import re
import struct
from pathlib import Path

import pytest

import fade
from fade import archive
from fade.config import PRESETS

from conftest import REPO

GOLDEN = Path(__file__).parent / "golden"
TYPES = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q", "f64": "d"}
DOC = (REPO / "docs" / "format.md").read_text()


def documented_fields(heading: str):
    """(offset, size, struct code, field) from the byte table under `heading`."""
    section = DOC.split(heading, 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\w+) \| (\w+) \|", section, flags=re.M)
    return [(int(offset), int(size), f"{size}s" if kind == "bytes" else TYPES[kind], name)
            for offset, size, kind, name in rows]


def laid_out(fields):
    offset, table = 0, []
    for name, code in fields:
        size = struct.calcsize("<" + code)
        table.append((offset, size, code, name))
        offset += size
    return table


def test_document_tables_match_the_code():
    assert documented_fields("### Fixed part") == laid_out(archive.FIXED_FIELDS)
    assert documented_fields("## Compact archive") == laid_out(archive.COMPACT_FIELDS)
    assert f"Format version: **{archive.VERSION}**" in DOC
    assert f"fixed part ({struct.calcsize('<' + ''.join(c for _, c in archive.FIXED_FIELDS))} B)" \
        in DOC
    strings = re.findall(r"^\| \d \| (\w+) \| `", DOC, flags=re.M)
    assert strings == archive.STRING_FIELDS
    methods = dict(re.findall(r"^\| (\d) \| (\w+) \| ", DOC.split("## Compact")[0], flags=re.M))
    assert {int(code): name for code, name in methods.items()} == archive.METHODS


def _raw(blob, fields):
    return {name: struct.unpack_from("<" + code, blob, offset)[0]
            for offset, _, code, name in fields}


@pytest.mark.parametrize("name, version", [("v1-tiny", 1), ("v2-tiny", 2)])
def test_golden_learned_archive_fields_at_documented_offsets(name, version):
    blob = (GOLDEN / f"{name}.fade").read_bytes()
    original = (GOLDEN / f"{name}.input").read_bytes()
    fields = documented_fields("### Fixed part")
    if version == 1:  # v1: the same fields without the method byte (docs/format.md changelog)
        fields = laid_out([(field, code) for _, _, code, field in fields if field != "method"])
    raw = _raw(blob, fields)
    assert raw["magic"] == b"\x89FADE\r\n\x1a"
    assert raw["version"] == version and raw["flags"] == 0
    assert raw.get("method", 1) == 1
    assert raw["original_size"] == len(original)
    assert raw["original_sha256"] == archive.sha256(original)
    assert raw["header_size"] + raw["payload_size"] == len(blob)
    assert (raw["batch_size"], raw["seed"], raw["threads"]) == (4, 0, 1)
    assert (raw["dtype"], raw["optimizer"], raw["determinism"], raw["device_kind"]) == (1, 1, 7, 0)
    tiny = PRESETS["tiny"]
    for field in ("timesteps", "embed_dim", "global_width", "cache_step", "branches",
                  "coarse_rank", "fine_width", "init_std", "learning_rate", "weight_decay"):
        assert raw[field] == getattr(tiny, field), field
    header = fade.read_header(blob)
    assert header.preset == "tiny" and header.version == version
    assert header.model == tiny
    assert fade.decompress(blob) == original


def test_golden_v2_archive_reencodes_identically():
    blob = (GOLDEN / "v2-tiny.fade").read_bytes()
    original = (GOLDEN / "v2-tiny.input").read_bytes()
    again = fade.compress(original, preset_name="tiny", batch_size=4, threads=1, seed=0,
                          device="cpu", method="fade")
    # Every fixed field but header_size, and the payload, are pinned; the
    # provenance strings (device name, torch and fade versions) vary.
    fixed = struct.Struct("<" + "".join(code for _, code in archive.FIXED_FIELDS))
    pinned = [i for i, (name, _) in enumerate(archive.FIXED_FIELDS) if name != "header_size"]
    assert [fixed.unpack_from(again)[i] for i in pinned] == \
        [fixed.unpack_from(blob)[i] for i in pinned]
    assert archive.unpack(again)[1] == archive.unpack(blob)[1]
    # The v1 golden archive holds the very same payload: only the header moved.
    assert archive.unpack((GOLDEN / "v1-tiny.fade").read_bytes())[1] == archive.unpack(blob)[1]


def test_golden_compact_archive_at_documented_offsets():
    blob = (GOLDEN / "v2-stored.fade").read_bytes()
    original = (GOLDEN / "v2-stored.input").read_bytes()
    raw = _raw(blob, documented_fields("## Compact archive"))
    assert (raw["magic"], raw["version"], raw["method"]) == (archive.MAGIC, 2, 0)
    assert raw["original_size"] == len(original)
    assert blob[archive.COMPACT_OVERHEAD:] == original
    assert fade.decompress(blob) == original
    assert fade.compress(original, method="stored") == blob
