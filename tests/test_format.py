"""docs/format.md, the code and the golden archives of every version agree."""

import dataclasses
import io
import re
import struct
import zlib
from pathlib import Path

import pytest
import torch

import fade
from fade import kinds, profile, race
from fade.format import archive, container, headers, legacy
from fade.config import LEVELS, PRESETS
from fade.statistics.models import LEVEL_MODELS, MODELS
from fade.statistics.parts import part_names

from conftest import REPO, decodes_here

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
    assert documented_fields("### Fixed part") == laid_out(headers.FIXED_FIELDS)
    assert documented_fields("## Compact archive") == laid_out(headers.COMPACT_FIELDS)
    table = [(offset + archive.COMPACT_OVERHEAD, size, code, name)
             for offset, size, code, name in laid_out(headers.FLOAT_FIELDS)]
    assert documented_fields("### Float table") == table
    assert documented_fields("### Segment row") == laid_out(headers.SEGMENT_FIELDS)
    table = [(offset + archive.COMPACT_OVERHEAD, size, code, name)
             for offset, size, code, name in laid_out(headers.STATISTICS_FIELDS)]
    assert documented_fields("### Statistics table") == table
    for heading, fields in (("### Frames head", container.HEAD_FIELDS),
                            ("### Frame record", container.RECORD_FIELDS),
                            ("### Frame index", container.INDEX_FIELDS),
                            ("### Index row", container.INDEX_ROW_FIELDS),
                            ("### Index end", container.INDEX_END_FIELDS),
                            ("### Footer", container.FOOTER_FIELDS)):
        assert documented_fields(heading) == laid_out(fields), heading
    assert f"Format version: **{headers.VERSION}**" in DOC
    assert f"fixed part ({struct.calcsize('<' + ''.join(c for _, c in headers.FIXED_FIELDS))} B)" \
        in DOC
    strings = re.findall(r"^\| \d+ \| (\w+) \| `", DOC, flags=re.M)
    assert strings == headers.STRING_FIELDS
    methods = dict(re.findall(r"^\| (\d) \| (\w+) \| ", DOC.split("## Compact")[0], flags=re.M))
    assert {int(code): name for code, name in methods.items()} == headers.METHODS


# level max's statistics models
MAX_MODELS = tuple(n for n, model in enumerate(MODELS) if model.level == "max")


def _raw(blob, fields):
    return {name: struct.unpack_from("<" + code, blob, offset)[0]
            for offset, _, code, name in fields}


LEARNED_GOLDEN = [("v1-tiny", 1, 1), ("v2-tiny", 2, 1), ("v3-tiny", 3, 1), ("v4-tiny", 4, 1),
                  ("v4-groups", 4, 3), ("v5-tiny", 5, 1), ("v5-groups", 5, 3),
                  ("v5-native", 5, 1), ("v6-tiny", 6, 1), ("v6-hybrid", 6, 2),
                  ("v7-tiny", 7, 1), ("v7-hybrid", 7, 2), ("v8-tiny", 8, 1), ("v8-hybrid", 8, 2),
                  ("v8-max-hybrid", 8, 2), ("v8-max3-hybrid", 8, 2),
                  ("v8-hybrid-default-text", 8, 2), ("v8-hybrid-max-text", 8, 2)]
# The statistics model each hybrid golden mixes: fade 0.8 to 0.10's (models 1
# to 3), then each level's text model (fade 0.11); 0 before version 8.
HYBRID_MODELS = {"v8-hybrid": 1, "v8-max-hybrid": 2, "v8-max3-hybrid": 3,
                 "v8-hybrid-default-text": LEVEL_MODELS[("default", "text")],
                 "v8-hybrid-max-text": LEVEL_MODELS[("max", "text")]}
HYBRID_FIELDS = ("coding", "table_bits", "match_bits", "mixer_rate", "keyed", "statistics_model")


@pytest.mark.parametrize("name, version, groups", LEARNED_GOLDEN)
def test_golden_learned_archive_fields_at_documented_offsets(name, version, groups):
    blob = (GOLDEN / f"{name}.fade").read_bytes()
    original = (GOLDEN / f"{name}.input").read_bytes()
    fields = documented_fields("### Fixed part")
    if version < 8:  # v2, v3: no groups and schedule; v1 also no method byte; v1-v5 no
        fields = laid_out([(field, code) for _, _, code, field in fields  # hybrid, v1-v7 no
                           if (version > 5 or field not in HYBRID_FIELDS)  # statistics_model
                           and field != "statistics_model"  # (changelog)
                           and (version > 3 or field not in ("groups", "schedule"))
                           and (version > 1 or field != "method")])
    raw = _raw(blob, fields)
    assert raw["magic"] == b"\x89FADE\r\n\x1a"
    assert raw["version"] == version and raw["flags"] == 0
    assert raw.get("method", 1) == 1
    assert raw["original_size"] == len(original)
    assert raw["original_sha256"] == headers.sha256(original)
    assert raw["header_size"] + raw["payload_size"] == len(blob)
    assert (raw["batch_size"], raw["seed"], raw["threads"]) == (4 if groups == 1 else 8, 0, 1)
    assert (raw["dtype"], raw["optimizer"], raw["determinism"], raw["device_kind"]) == (1, 1, 7, 0)
    tiny = PRESETS["tiny"]
    for field in ("timesteps", "embed_dim", "global_width", "cache_step", "branches",
                  "coarse_rank", "fine_width", "init_std", "learning_rate", "weight_decay"):
        assert raw[field] == getattr(tiny, field), field
    header = fade.read_header(blob)
    assert header.preset == "tiny" and header.version == version
    assert header.model == tiny and header.groups == groups
    if version >= 6:
        hybrid = "hybrid" in name
        model = [HYBRID_MODELS.get(name, 0)]
        assert [raw.get(field, 0) for field in HYBRID_FIELDS] == \
            ([1, 16, 12, 24, 1] if hybrid else [0, 0, 0, 0, 0]) + model
        assert header.coding == ("hybrid" if hybrid else "network")
        if hybrid:
            assert header.statistics.model == model[0]
    if version >= 5:
        assert header.profile == ("native" if name.endswith("native") else "portable")
    if version >= 4:  # the group table: G u64 sizes between the strings and the header CRC
        assert (raw["groups"], raw["schedule"]) == (groups, 1)
        table_end = raw["header_size"] - 4
        sizes = struct.unpack_from(f"<{groups}Q", blob, table_end - 8 * groups)
        assert sizes == header.group_payload_sizes and sum(sizes) == raw["payload_size"]
    decodes_here(blob, original)


def _reencoded(name: str, native: bool) -> tuple[bytes, bytes]:
    original = (GOLDEN / f"{name}.input").read_bytes()
    header = fade.read_header((GOLDEN / f"{name}.fade").read_bytes())
    level = model = None
    if header.version >= 6 and header.coding == "hybrid":  # the level, with its model then
        level = "max" if header.statistics.model in MAX_MODELS else "default"
        model = header.statistics.model
    again = fade.compress(original, preset_name="tiny", batch_size=header.batch_size, threads=1,
                          seed=0, device="cpu", method="fade", groups=header.groups,
                          native=native, level=level, statistics_model=model)
    return original, again


def _native_like_here(header) -> bool:
    """Whether this process computes torch's own kernels as the one that made
    a native (or v1-v4) archive: the same CPU model and best vector extension
    (before v5 the recorded ATen capability was the CPU's best), and that
    extension in use here: fade pins ATen to AVX2 in its own process, so on
    an AVX-512 CPU an archive of v1-v4 made there computes alike only in the
    replay process (conftest.decodes_here), not in this one."""
    name, _, isa = profile.cpu()
    return (header.device_name == name and header.cpu_capability == isa
            and torch.backends.cpu.get_cpu_capability() == isa)


@pytest.mark.parametrize("name", ["v4-tiny", "v4-groups", "v5-native", "v5-tiny", "v5-groups",
                                  "v6-tiny", "v6-hybrid", "v7-tiny", "v7-hybrid", "v8-tiny",
                                  "v8-hybrid", "v8-max-hybrid", "v8-max3-hybrid",
                                  "v8-hybrid-default-text", "v8-hybrid-max-text"])
def test_golden_archive_reencodes_identically(name):
    blob = (GOLDEN / f"{name}.fade").read_bytes()
    header = fade.read_header(blob)
    portable = header.profile == profile.PORTABLE
    original, again = _reencoded(name, native=not portable)
    # Every fixed field but header_size, and the payload, are pinned; the
    # provenance strings (device name, torch and fade versions) vary. The
    # payload depends on how this CPU rounds where the archive is native
    # (conftest.decodes_here): where it computes like the one that made the
    # golden file it must be equal; a portable payload is equal everywhere.
    # Versions 4 and 5 end before `coding`, 6 and 7 before `statistics_model`:
    # compare the fields they have.
    fields = (legacy.fixed_fields(5) if header.version < 6 else
              legacy.fixed_fields(7) if header.version < 8 else headers.FIXED_FIELDS)
    fixed = struct.Struct("<" + "".join(code for _, code in fields))
    numeric = {"header_size", "payload_size", "payload_crc32"}
    same_cpu = portable or _native_like_here(header)
    if header.version < headers.VERSION:
        numeric |= {"version"}  # the same computation, written in today's format
    pinned = [i for i, (name, _) in enumerate(fields)
              if name != "header_size" and (same_cpu or name not in numeric)
              and not (name == "version" and header.version < headers.VERSION)]
    assert [fixed.unpack_from(again)[i] for i in pinned] == \
        [fixed.unpack_from(blob)[i] for i in pinned]
    assert fade.read_header(again).coding == header.coding
    if same_cpu:
        assert archive.unpack(again)[1] == archive.unpack(blob)[1]
    assert fade.decompress(again) == original


def test_one_group_is_the_computation_of_earlier_versions():
    # v1 to v3 golden files hold the very same payload: only the header
    # changed. A v4 archive with one group, made where the v3 file was made
    # or anywhere that computes alike, carries that payload too.
    v3 = archive.unpack((GOLDEN / "v3-tiny.fade").read_bytes())
    for old in ("v1-tiny", "v2-tiny"):
        assert archive.unpack((GOLDEN / f"{old}.fade").read_bytes())[1] == v3[1]
    v4 = archive.unpack((GOLDEN / "v4-tiny.fade").read_bytes())
    assert (GOLDEN / "v4-tiny.input").read_bytes() == (GOLDEN / "v3-tiny.input").read_bytes()
    if v4[0].cpu_capability == v3[0].cpu_capability:
        assert v4[1] == v3[1]
    _, again = _reencoded("v3-tiny", native=True)
    if _native_like_here(v3[0]):
        assert archive.unpack(again)[1] == v3[1]
    if _native_like_here(v4[0]):
        assert archive.unpack(again)[1] == v4[1]


@pytest.mark.parametrize("version", [6, 7, 8])
def test_golden_statistics_archive_at_documented_offsets(version):
    blob = (GOLDEN / f"v{version}-statistics.fade").read_bytes()
    original = (GOLDEN / f"v{version}-statistics.input").read_bytes()
    raw = _raw(blob, documented_fields("## Compact archive"))
    assert (raw["magic"], raw["version"], raw["method"]) == (headers.MAGIC, version, 6)
    assert raw["original_size"] == len(original)
    fields = documented_fields("### Statistics table")  # absolute offsets
    if version < 8:  # no model field (changelog)
        fields = [(offset + archive.COMPACT_OVERHEAD, size, code, name) for offset, size, code, name
                  in laid_out([(name, code) for _, _, code, name in fields if name != "model"])]
    table = _raw(blob, fields)
    stream_at = fields[-1][0] + 4 + 4  # after the payload CRC and the table CRC
    # (model 0: level fast's for text in fade 0.6 to 0.13, which wrote these)
    fast = dataclasses.replace(LEVELS["fast"].statistics, model=0).sized(len(original))
    assert (table["table_bits"], table["match_bits"], table["mixer_rate"], table["keyed"],
            table.get("model", 0)) == \
        (fast.table_bits, fast.match_bits, fast.mixer_rate, 0, fast.model)
    assert table["payload_crc32"] == zlib.crc32(blob[stream_at:])
    assert struct.unpack_from("<I", blob, stream_at - 4)[0] == zlib.crc32(blob[:stream_at - 4])
    assert fade.decompress(blob) == original
    # Integer arithmetic only: the same bytes on every machine (in today's
    # version; older ones hold the same stream of their model).
    again = fade.compress(original, level="fast", statistics_model=0)
    assert archive.unpack(again) == (dataclasses.replace(fade.read_header(blob),
                                                         version=headers.VERSION),
                                     blob[stream_at:])
    if version == headers.VERSION:
        assert again == blob


# Every statistics golden of format version 8 but model 0's (v8-statistics,
# above: fast's for text until fade 0.13): its name says the level, the kind
# and, after it, a variant of the kind's layout (16-bit pixels, 24-bit
# samples, channels apart).
STATISTICS_GOLDEN = sorted(path.stem for path in GOLDEN.glob("v8-statistics-*.fade"))
# Models no level of fade 0.11 writes: fade 0.8 to 0.10's, asked for by number.
RELEASED_BEFORE = {"v8-statistics-default": ("default", 1), "v8-statistics-max": ("max", 2),
                   "v8-statistics-max3": ("max", 3)}


def test_every_models_bytes_are_pinned_by_a_golden_archive():
    """Each model a level writes, and each older one, has a golden archive."""
    pinned = {fade.read_header((GOLDEN / f"{name}.fade").read_bytes()).statistics.model
              for name in STATISTICS_GOLDEN + ["v8-statistics"]}
    assert pinned == set(range(len(MODELS)))


def test_released_model_numbers_keep_their_parts():
    """A number that a released fade writes keeps its meaning forever
    (docs/format.md, "Model numbers"): tests/golden/models.txt, written by
    the release that numbered them, freezes each model's level, kind,
    table size and parts; the table may only grow past it."""
    frozen = [line.split() for line in (GOLDEN / "models.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    assert [int(row[0]) for row in frozen] == list(range(len(frozen))) and \
        len(frozen) <= len(MODELS)
    for number, level, kind, slots, *parts in frozen:
        model = MODELS[int(number)]
        assert (model.level, model.kind or "any", 1 << model.slots_per_byte_bits) == \
            (level, kind, int(slots)), number
        assert part_names(model.parts) == parts, number


def test_the_changelog_and_format_name_the_release_and_its_models():
    """CHANGELOG.md's newest entry is the package's version (a development
    version's, "X (unreleased)", for X.devN), and docs/format.md gives the
    header's statistics model the domain of the table (0 to its last
    number, which tests/golden/models.txt freezes)."""
    newest = re.search(r"^## (\S+)(.*)$", (REPO / "CHANGELOG.md").read_text(), flags=re.M)
    version, development = fade.__version__.partition(".dev")[::2]
    assert newest.group(1) == version
    assert (newest.group(2) == " (unreleased)") == bool(development)
    last = len(MODELS) - 1
    assert re.search(rf"0 to {last} \(the models of `fade\.statistics\.models\.MODELS`\)",
                     DOC)
    frozen = (GOLDEN / "models.txt").read_text().splitlines()
    assert frozen[-1].split()[0] == str(last)


def test_only_numbered_models_are_archived():
    """The colour band's models and the candidates (measured, never
    archived) are refused in an archive's header and in the settings, one
    line naming the field and its domain."""
    from fade.config import StatisticsConfig
    from fade.statistics.models import MEASURED
    assert MEASURED
    measured = StatisticsConfig(table_bits=16, match_bits=12, model=len(MODELS))
    assert measured.validate(measured=True) == measured
    with pytest.raises(fade.FadeError, match=f"model = {len(MODELS)} is outside"):
        measured.validate()
    with pytest.raises(fade.FadeError, match=f"model = {len(MODELS)} is outside"):
        fade.compress(b"spam " * 100, level="fast", statistics_model=len(MODELS))
    blob = bytearray((GOLDEN / "v8-statistics.fade").read_bytes())
    blob[28] = len(MODELS)
    blob[33:37] = struct.pack("<I", zlib.crc32(bytes(blob[:33])))
    with pytest.raises(fade.FadeError, match="model"):
        fade.decompress(bytes(blob))


@pytest.mark.parametrize("name", STATISTICS_GOLDEN)
def test_golden_file_order_statistics_archive_of_each_level_and_kind(name):
    """What each level writes for each kind of bytes where the network does
    not run, its statistics alone in file order (and fade 0.8 to 0.10's
    models 1 to 3, asked for by number): the archive decodes and coding the
    input again with its model gives the same bytes, on any CPU; and where
    the screen takes the input for the model's kind, the level writes that
    archive, unless the level's general model codes it smaller (a kind's
    model pays for itself: race.guarded_archive)."""
    blob = (GOLDEN / f"{name}.fade").read_bytes()
    original = (GOLDEN / f"{name}.input").read_bytes()
    header = fade.read_header(blob)
    assert header.method == "statistics" and header.version == 8
    model = header.statistics.model
    screen = kinds.Screen.of(original, measure=True)
    if name in RELEASED_BEFORE:
        level, kind = RELEASED_BEFORE[name][0], None
        assert RELEASED_BEFORE[name][1] == model and not MODELS[model].current
    else:
        level, kind = MODELS[model].level, MODELS[model].kind
        assert name.startswith(f"v8-statistics-{level}-{kind}")
    mixing = LEVELS[level].statistics
    assert header.statistics == race.file_order(dataclasses.replace(mixing, model=model),
                                                len(original))
    assert not header.statistics.keyed
    assert fade.decompress(blob) == original
    if headers.VERSION != 8:
        return
    assert fade.compress(original, level=level, method="statistics",
                         statistics_model=model) == blob
    if screen.kind == kind and MODELS[model].current:  # (an older release's: asked by number)
        chosen = fade.compress(original, level=level, method="statistics")
        if chosen != blob:
            assert screen.general is not None and len(chosen) < len(blob)
            assert fade.read_header(chosen).statistics.model == \
                mixing.for_kind(screen.general).model


@pytest.mark.parametrize("version", [7, 8])
def test_golden_frames_archive_at_documented_offsets(version):
    blob = (GOLDEN / f"v{version}-frames.fade").read_bytes()
    original = (GOLDEN / f"v{version}-frames.input").read_bytes()
    head = _raw(blob, documented_fields("### Frames head"))
    assert (head["magic"], head["version"], head["method"], head["flags"]) == \
        (headers.MAGIC, version, 7, 0)
    assert head["frame_size"] == 4096 and head["head_crc32"] == zlib.crc32(blob[:29])
    offset, position, methods = 0, 33, []
    for number in range(3):
        record = _raw(blob[position:], documented_fields("### Frame record"))
        assert (record["tag"], record["number"], record["original_offset"]) == \
            (b"F", number, offset)
        assert record["archive_id"] == head["archive_id"]
        inner = blob[position + 45:position + 45 + record["archive_size"]]
        assert fade.decompress(inner) == original[offset:offset + record["original_size"]]
        methods.append(archive.method_of(inner))
        offset += record["original_size"]
        position += 45 + record["archive_size"]
    assert methods == ["statistics", "stored", "statistics"] and offset == len(original)
    footer = _raw(blob[len(blob) - 16:], documented_fields("### Footer"))
    assert footer["end_magic"] == b"FADEIDX\x1a"
    assert position + footer["index_size"] + 16 == len(blob)
    index = _raw(blob[position:], documented_fields("### Frame index"))
    assert (index["tag"], index["frame_count"]) == (b"I", 3)
    end = _raw(blob[len(blob) - 16 - 52:], documented_fields("### Index end"))
    assert end["total_size"] == len(original)
    assert end["original_sha256"] == headers.sha256(original)
    assert fade.decompress(blob) == original
    if version == headers.VERSION:  # v7 frames hold v7 statistics archives (model 0)
        out = io.BytesIO()  # (model 0: fast's for text until fade 0.13, which wrote it)
        fade.compress_stream(io.BytesIO(original), out.write, level="fast", frame_size=4096,
                             statistics_model=0)
        assert out.getvalue() == blob


@pytest.mark.parametrize("version", [2, 3, 4, 5, 6, 7, 8])
def test_golden_compact_archive_at_documented_offsets(version):
    blob = (GOLDEN / f"v{version}-stored.fade").read_bytes()
    original = (GOLDEN / f"v{version}-stored.input").read_bytes()
    raw = _raw(blob, documented_fields("## Compact archive"))
    assert (raw["magic"], raw["version"], raw["method"]) == (headers.MAGIC, version, 0)
    assert raw["original_size"] == len(original)
    assert blob[archive.COMPACT_OVERHEAD:] == original
    assert fade.decompress(blob) == original
    if version == headers.VERSION:
        assert fade.compress(original, method="stored") == blob


@pytest.mark.parametrize("version", [3, 4, 5])
@pytest.mark.parametrize("mode", ["fast", "strong"])
def test_golden_float_archives_at_documented_offsets(mode, version):
    blob = (GOLDEN / f"v{version}-floats-{mode}.fade").read_bytes()
    original = (GOLDEN / f"v{version}-floats-{mode}.input").read_bytes()
    raw = _raw(blob, documented_fields("## Compact archive"))
    assert (raw["magic"], raw["version"], raw["method"]) == (headers.MAGIC, version, 5)
    assert raw["original_size"] == len(original)
    table = _raw(blob, documented_fields("### Float table"))  # absolute offsets
    rows = [_raw(blob[33 + 18 * i:], documented_fields("### Segment row"))
            for i in range(table["segment_count"])]
    assert table["mode"] == {"fast": 0, "strong": 1}[mode]
    assert sum(row["length"] for row in rows) == len(original)
    if mode == "fast":  # one bf16 segment, huffman; the streams fill the rest
        assert table["source"] == 0 and [(r["type"], r["codec"]) for r in rows] == [(1, 3)]
        assert 33 + 18 + 4 + rows[0]["stream_size"] == len(blob)
        again = fade.compress(original, method="floats", dtype="bf16", float_mode="fast",
                              float_codec="huffman")
        if version == headers.VERSION:
            assert again == blob
        else:  # a new version number, the same stream (docs/format.md changelog):
            crc = 33 + 18  # all but the version byte and the table CRC that covers it
            assert again[9:crc] == blob[9:crc] and again[crc + 4:] == blob[crc + 4:]
    else:  # npy: header bytes, then fp32; a nested archive follows the table
        assert table["source"] == 1 and [r["type"] for r in rows] == [0, 3]
        nested = blob[33 + 18 * 2 + 4:]
        assert nested[:8] == headers.MAGIC
    decodes_here(blob, original)


def test_every_method_has_one_entry_that_every_dispatcher_reads():
    """fade.methods.METHODS has an entry for each method code, and the
    dispatchers go through it: a golden archive of each method (and a
    compact one of each codec) unpacks to its entry's header, is read to
    exactly its end among other bytes (fade.members), decodes, and `fade -l`
    names it as its entry says."""
    from fade import members, methods
    from fade.cli.report import level_of
    assert set(methods.METHODS) == set(headers.METHODS.values())
    blobs = {path.stem: path.read_bytes() for path in GOLDEN.glob("*.fade")
             if path.stem.startswith(("v8-", "v5-floats"))}
    for codec in ("deflate", "bzip2", "xz", "lzma"):
        blobs[codec] = fade.compress(b"spam and eggs " * 40, method=codec)
    named = {}
    for name, blob in sorted(blobs.items()):
        method = archive.method_of(blob)
        header = fade.frames.read_header(blob)
        assert type(header) is methods.METHODS[method].header, name
        named[name] = level_of(header)
        if method == headers.FRAMES:
            continue
        read, data = members.read_archive(members.Source(io.BytesIO(blob + blob)))
        assert read == blob, name
        if data is not None and method != headers.LEARNED:
            assert fade.decompress(blob) == data
    assert named["v8-stored"] == "stored" and named["xz"] == "xz"
    assert named["v8-statistics-fast-binary"] == "fast/statistics"
    assert named["v8-statistics-max3"] == named["v8-statistics-max-text"] == "max/statistics"
    assert named["v5-floats-strong"] == "floats/strong"
    assert named["v8-frames"].startswith("frames/") and named["v8-hybrid"] == "hybrid/tiny"
