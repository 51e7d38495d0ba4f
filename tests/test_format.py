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
from fade import profile, race
from fade.format import archive, container, headers, legacy
from fade.config import LEVELS, PRESETS
from fade.statistics.models import MODELS

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


# level max's statistics models, by release (2, 3, 6)
MAX_MODELS = tuple(n for n, model in enumerate(MODELS) if model.level == "max")


def _raw(blob, fields):
    return {name: struct.unpack_from("<" + code, blob, offset)[0]
            for offset, _, code, name in fields}


LEARNED_GOLDEN = [("v1-tiny", 1, 1), ("v2-tiny", 2, 1), ("v3-tiny", 3, 1), ("v4-tiny", 4, 1),
                  ("v4-groups", 4, 3), ("v5-tiny", 5, 1), ("v5-groups", 5, 3),
                  ("v5-native", 5, 1), ("v6-tiny", 6, 1), ("v6-hybrid", 6, 2),
                  ("v7-tiny", 7, 1), ("v7-hybrid", 7, 2), ("v8-tiny", 8, 1), ("v8-hybrid", 8, 2),
                  ("v8-max-hybrid", 8, 2), ("v8-max3-hybrid", 8, 2)]
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
        hybrid = name.endswith("hybrid")
        model = [3 if "max3" in name else 2 if "max" in name else 1 if version >= 8 else 0
                 ] if hybrid else [0]
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
                                  "v8-max6-hybrid"])
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
    fast = LEVELS["fast"].statistics.sized(len(original))
    assert (table["table_bits"], table["match_bits"], table["mixer_rate"], table["keyed"],
            table.get("model", 0)) == \
        (fast.table_bits, fast.match_bits, fast.mixer_rate, 0, fast.model)
    assert table["payload_crc32"] == zlib.crc32(blob[stream_at:])
    assert struct.unpack_from("<I", blob, stream_at - 4)[0] == zlib.crc32(blob[:stream_at - 4])
    assert fade.decompress(blob) == original
    # Integer arithmetic only: the same bytes on every machine (in today's
    # version; older ones hold the same stream of their model).
    again = fade.compress(original, level="fast")
    assert archive.unpack(again) == (dataclasses.replace(fade.read_header(blob),
                                                         version=headers.VERSION),
                                     blob[stream_at:])
    if version == headers.VERSION:
        assert again == blob


@pytest.mark.parametrize("level, model, name", [
    ("default", 1, "default"), ("max", 2, "max"), ("max", 3, "max3"), ("fast", 4, "binary"),
    ("default", 5, "default-binary"), ("max", 6, "max6"), ("fast", 7, "table"),
    ("default", 8, "default-table"), ("max", 9, "max-table"), ("fast", 10, "dna"),
    ("default", 11, "default-dna"), ("max", 12, "max-dna"), ("fast", 13, "x86"),
    ("default", 14, "default-x86"), ("max", 15, "max-x86"), ("fast", 16, "x86-instructions"),
    ("default", 17, "default-x86-instructions"), ("max", 18, "max-x86-instructions"),
    ("fast", 19, "records"), ("default", 20, "default-records"), ("fast", 21, "audio"),
    ("default", 22, "default-audio"), ("max", 23, "max-audio"),
    ("default", 22, "default-audio24"), ("default", 22, "default-audio-apart"),
    ("fast", 24, "image"), ("default", 25, "default-image"),
    ("max", 26, "max-image"), ("default", 25, "default-image-bmp"),
    ("default", 25, "default-image16"), ("fast", 39, "image-green"),
    ("default", 40, "default-image-green"), ("max", 41, "max-image-green"),
    ("default", 28, "default-pixels"), ("fast", 30, "markup"), ("default", 31, "default-markup"),
    ("max", 32, "max-markup"), ("fast", 33, "log"), ("default", 34, "default-log"),
    ("max", 35, "max-log"), ("max", 36, "max36"), ("default", 37, "default37"),
    ("max", 38, "max38"), ("default", 45, "default-image45"), ("max", 46, "max-image46"),
    ("default", 45, "default-image16-45"), ("default", 47, "default-pixels47"),
    ("default", 49, "default-image-green49"), ("fast", 53, "audio53"),
    ("default", 54, "default-audio54"), ("max", 55, "max-audio55"),
    ("default", 54, "default-audio24-54"), ("default", 54, "default-audio-apart54"),
    ("fast", 56, "markup56"), ("default", 57, "default-markup57"), ("max", 58, "max-markup58"),
    ("fast", 59, "table59"), ("default", 60, "default-table60"), ("max", 61, "max-table61"),
    ("fast", 62, "log62"), ("default", 63, "default-log63"), ("max", 64, "max-log64"),
    ("max", 65, "max65"), ("default", 66, "default-x86-66"), ("max", 67, "max-x86-67"),
    ("default", 68, "default-markup68"), ("max", 69, "max-markup69"),
    ("default", 70, "default-markup70"), ("max", 71, "max-markup71"),
    ("default", 72, "default-markup72"), ("max", 73, "max73"), ("max", 74, "max-markup74"),
    ("default", 75, "default-markup75"), ("max", 76, "max-markup76"),
    ("default", 77, "default77"), ("default", 78, "default-image78"), ("max", 79, "max-image79"),
    ("default", 78, "default-image16-78"), ("default", 80, "default-pixels80"),
    ("default", 82, "default-image-green82"), ("fast", 86, "image-green-swap86"),
    ("default", 88, "default-image-green-swap88"), ("fast", 98, "image-green-swap98"),
    ("default", 100, "default-image-green-swap100"), ("default", 94, "default-image-green94"),
    ("max", 104, "max104"), ("default", 105, "default105"), ("max", 106, "max-records106"),
    ("default", 107, "default-records107"), ("max", 108, "max-table108"),
    ("max", 109, "max-markup109"), ("max", 110, "max-log110"), ("max", 111, "max-x86-111"),
    ("default", 112, "default-table112"), ("default", 113, "default-markup113"),
    ("default", 114, "default-log114"), ("default", 115, "default-x86-115"),
    ("default", 116, "default-image116"), ("max", 117, "max-image117"),
    ("default", 116, "default-image16-116"), ("default", 118, "default-pixels118"),
    ("default", 124, "default-image-green-swap124"), ("default", 128, "default-audio128"),
    ("max", 129, "max-audio129"), ("default", 128, "default-audio24-128"),
    ("default", 128, "default-audio-apart128"), ("max", 130, "max-audio130"),
    ("max", 131, "max131"), ("max", 132, "max132"), ("max", 133, "max133"),
    ("default", 134, "default134"), ("max", 135, "max-markup135"), ("max", 136, "max136"),
    ("max", 137, "max-markup137"), ("max", 138, "max138"), ("max", 139, "max-records139")])
def test_golden_file_order_statistics_archive_of_each_level(level, model, name):
    """What levels default and max write where the network cannot help: their
    statistics (models 1, 2, 3 and 6; model 2 in fade 0.9.0, model 3 in
    0.10.0, model 6 from 0.11, in version 8's model byte) alone, in file
    order; levels fast and default on binary records (models 4 and 5 in an
    early build of fade 0.11, asked for by number; models 19 and 20 after it)
    and the three levels on a delimited table (models 7, 8 and 9 from fade
    0.11), on nucleotides (models 10, 11 and 12) and on x86 code (models 13,
    14 and 15 in an early build of fade 0.11, asked for by number; models 16,
    17 and 18 after it), on 16-bit PCM audio (models 21, 22 and 23; 24-bit at
    the default; asked for by number since models 53, 54 and 55, the same
    with least squares of order 64), on images (models 24, 25 and 26; a BMP and a 16-bit gray
    image at the default), on a photo whose colours pay as green and
    differences (models 39, 40 and 41), on raw pixels (model 28 at the
    default; the default's and max's image models before models 45 to 52,
    asked for by number since, and 45, 46, 47 and 49 after them), on markup
    (models 30, 31 and 32, asked for by number since models 56, 57 and 58,
    which add a field's length against the field above's) and on log lines
    (33, 34 and 35; 62, 63 and 64 since, as the tables' 59, 60 and 61);
    level max's text
    from fade 0.11's release (model 36, model 6 before it); and the default's
    and max's text from fade 0.11 (models 37 and 38; models 1 and 36 before
    them, asked for by number since; model 65, max's since, adds the line's
    length against the line above's to 38); the default's and max's x86
    code since models 66 and 67 (17 and 18 with five more instruction
    contexts; 17 and 18 asked for by number since); the default's and max's
    markup since models 68 and 69 (57 and 58 with two low orders keyed by
    the field or the text's language; 57 and 58 asked for by number since)
    and models 70 and 71 (order 1 keyed the same way, and at the default
    max's runs and expected byte; 68 and 69 asked for by number since);
    the default's markup since model 72 and max's text since model 73 (70
    and 65 with the letter that last followed the word so far; 70 and 65
    asked for by number since), max's markup since model 74 (71 with it,
    without the record contexts; 71 asked for by number since), the
    default's markup since model 75 (72 with a translation's words by its
    original's last word, and weight sets that skip their tiny errors; 72
    asked for by number since) and max's since model 76 (74 with the same,
    without the field's length against the field above's; 74 asked for by
    number since); the default's text since model 77 (37 with the recalled
    letter, the line's length, the indirect contexts and lazy weight sets;
    37 asked for by number since); images since models 78 to 85 (45 to 52
    with least squares per place in an 8x8 block; those asked for by number
    since); colour images whose band pays with the differences swapped
    since models 86 to 91 (39, 82 and the colour goldens' others asked for
    by number since); colour images' differences by the differences since
    models 92 to 103 (86 and 88 asked for by number since, and 94, the
    differences in their first order); max's and the default's text since
    models 104 and 105 (73 and 77 with a second final mixer; those asked
    for by number since); max's and the default's bytes of no other kind
    since models 106 and 107 (6 and 20 with the bytes at fixed distances
    back and a second final mixer; 20 asked for by number since); max's and
    the default's tables, markup, log lines and x86 code since models 108
    to 115 (61, 76, 64, 67, 60, 75, 63 and 66 with the same second final
    mixer; those asked for by number since); images and raw pixels since
    models 116 to 127 (78 to 81, 94 to 97 and 100 to 103 with the same; 78,
    79, 80 and 100 asked for by number since); WAV audio since models 128 and
    129 (54 and 55 with the same; those asked for by number since), and max's
    since model 130 (model 128 at max; 129 asked for by number since); max's
    text since model 131 (104 with its contexts' inputs quieter and its runs'
    maps finer; 104 asked for by number since) and since model 132 (131 with
    thirteen more contexts of the text around the byte; 131 asked for by
    number since) and model 133 (132 with thirteen more; 132 asked for by
    number since); the default's text since model 134 (105 with 132's
    contexts and 131's quieter inputs; 105 asked for by number since); max's
    markup since model 135 (109 with 131's and 132's parts; 109 asked for
    by number since); max's text since model 136 (133 with twelve contexts
    of groups and brackets, two weight sets and twice the slots; 133 asked
    for by number since) and max's markup since model 137 (135 with those
    twelve contexts; 135 asked for by number since); max's text since model
    138 (136 with an input per context where its bit history has seen one
    value only; 136 asked for by number since) and max's bytes of no other
    kind since model 139 (106 with max's text parts; 106 asked for by number
    since); the same bytes on any CPU."""
    blob = (GOLDEN / f"v8-statistics-{name}.fade").read_bytes()
    original = (GOLDEN / f"v8-statistics-{name}.input").read_bytes()
    header = fade.read_header(blob)
    assert header.method == "statistics" and header.version == 8
    kind = race.Screen.of(original, measure=True).kind
    # (the colour goldens' band has paid with the differences swapped since
    # models 86 to 91: those before are asked for by number)
    assert kind == (MODELS[model].kind or "text") or model in (39, 40, 41, 49, 82, 94) and \
        kind == MODELS[model].kind + "-swap"
    mixing = LEVELS[level].statistics
    # A model its level no longer writes for these bytes (an earlier one): asked for by number.
    older = mixing.for_kind(kind).model != model
    assert older == (model in (1, 2, 3, 4, 5, 6, 13, 14, 15, 21, 22, 23, 36, 25, 26, 28, 40,
                                 41, 30, 31, 32, 7, 8, 9, 33, 34, 35, 38, 17, 18, 57, 58, 68,
                                 69, 65, 70, 71, 72, 74, 37, 45, 46, 47, 49, 39, 82, 86,
                                 88, 94, 73, 77, 20, 60, 61, 63, 64, 66, 67, 75, 76, 78, 79,
                                 80, 100, 54, 55, 129, 104, 131, 132, 105, 109, 133, 135,
                                 136, 106))
    assert header.statistics == race.file_order(
        dataclasses.replace(mixing, model=model) if older else mixing.for_kind(kind),
        len(original))
    assert header.statistics.model == model and not header.statistics.keyed
    assert fade.decompress(blob) == original
    if headers.VERSION == 8:
        assert fade.compress(original, level=level, method="statistics",
                             statistics_model=model if older else None) == blob


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
        out = io.BytesIO()
        fade.compress_stream(io.BytesIO(original), out.write, level="fast", frame_size=4096)
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
    assert named["v8-statistics-binary"] == "fast/statistics"
    assert named["v8-statistics-max3"] == named["v8-statistics-max6"] == "max/statistics"
    assert named["v5-floats-strong"] == "floats/strong"
    assert named["v8-frames"].startswith("frames/") and named["v8-hybrid"] == "hybrid/tiny"
