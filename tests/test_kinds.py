"""Each kind of data (fade/kinds.py and each kind's statistics module):
the screen finds it in real files, each level codes it with its model for
that kind, smaller than with the model it would get otherwise, and the
kind's transforms (x86 addresses, audio residuals, ...) undo exactly."""


import platform
import struct
from pathlib import Path

import numpy as np

import fade
from fade import kinds, race, single, statistics
from fade.format import archive
from fade.config import LEVELS, StatisticsConfig
from fade.statistics.models import LEVEL_MODELS

from conftest import (coded_sizes, coded_without, corpus_file, decode_in_a_fresh_process)

def test_bytes_that_are_not_text_get_the_binary_models():
    """Levels fast and default code bytes that are not text (kinds.Screen)
    with their models for other bytes where their statistics code alone
    (sparse, record, stride and column contexts and more, which cost text
    speed): each level's is smaller than its model for text, the default's
    and max's on map tile data (measured -1.05% and -0.65%), fast's on an
    ICC profile's tables (-13.3%; on the map tiles fast's text model, with
    bit-history states since fade 0.14, is level with it on 64 KB),
    and text keeps the text model and its bytes. The default's hybrid
    (asked for with method fade) mixes its text model."""
    maps = corpus_file("mapsdatazrh").read_bytes()[:60_000]
    profile = corpus_file("lcms-test4.icc").read_bytes()
    for level in ("fast", "default", "max"):
        binary, text = coded_sizes(profile if level == "fast" else maps,
                                   (LEVEL_MODELS[(level, "binary")], LEVEL_MODELS[(level, "text")]))
        assert binary < 0.995 * text, level
    fast, default = ({kind: LEVEL_MODELS[(level, kind)] for kind in ("text", "binary")}
                     for level in ("fast", "default"))
    book = corpus_file("lcet10.txt").read_bytes()[:20_000]
    assert single.plan(len(maps), maps, level="fast").alone.model == fast["binary"]
    hybrid = single.plan(len(maps), maps, level="default", device="cpu", method="fade")
    assert hybrid.statistics.model == default["text"] and hybrid.screen is not None
    assert hybrid.statistics.for_kind(hybrid.screen.kind).model == default["binary"]
    assert single.plan(len(maps), maps, level="default").alone.model == default["binary"]
    assert single.plan(len(book), book, level="fast").alone.model == fast["text"]
    # no bytes, no screen
    assert single.plan(len(maps), level="fast").alone.model == fast["text"]
    for data, model in ((maps, fast["binary"]), (book, fast["text"])):
        blob = fade.compress(data, level="fast")
        assert fade.read_header(blob).statistics.model == model
        assert blob == race.statistics_archive(
            data, race.file_order(StatisticsConfig(model=model), len(data)))
        assert fade.decompress(blob) == data


def test_other_bytes_are_coded_with_the_bytes_further_back(tmp_path):
    """Levels max and the default code bytes of no other kind with models
    that have F_DISTANT's contexts (the bytes at fixed distances back that
    each mask names, hashed as here). On 40 KB of map tiles the default's is
    smaller than it is without them (measured -2.0%; max's -1.1%, left to
    the benchmarks: its model less the part compiles for 15 s or more).
    Each level's archive decodes in a fresh process."""
    from fade.statistics.kernels import context_hash
    from fade.statistics.parts import DISTANT, DISTANT_MASKS, F_DISTANT, MAX_CONTEXTS
    from fade.statistics.records import _distant_contexts
    from fade.statistics.state import SCRATCH_HASHES
    maps = corpus_file("mapsdatazrh").read_bytes()[:40_000]
    buffer = np.frombuffer(b"pad" + maps[:40], np.uint8)
    for position in (0, 3, 9, 10, 40):  # the stream's bytes start at buffer[3]
        history = int.from_bytes(maps[max(position - 6, 0):position][::-1].ljust(6, b"\0"),
                                 "little")
        scratch = np.zeros(SCRATCH_HASHES + MAX_CONTEXTS, np.int64)
        _distant_contexts(scratch, buffer, 3, position, history)
        for j, mask in enumerate(DISTANT_MASKS):
            context = j + 1
            for k in range(1, 11):
                if mask >> (k - 1) & 1:
                    context = context << 8 | (maps[position - k] if position >= k else 0)
            assert scratch[SCRATCH_HASHES + DISTANT + j] == context_hash(context, 200 + j)
    archives = {}
    for level in ("max", "default"):
        made = fade.compress(maps, level=level, method="statistics")
        config = fade.read_header(made).statistics
        assert config.model == LEVEL_MODELS[(level, "binary")]
        assert statistics.MODELS[config.model].parts & F_DISTANT
        if level == "default":
            with_them = len(archive.unpack(made)[1])  # the bit coder's stream
            assert with_them < 0.995 * coded_without(maps, config, F_DISTANT)
        archives[level] = (made, maps)
    decode_in_a_fresh_process(tmp_path, archives)


def test_a_delimited_table_gets_the_table_models_and_they_pay(tmp_path):
    """kinds.Screen finds a real CSV (numpy's cosine validation set) to be a
    delimited table, and prose, markup, indented markup and code not; levels
    fast, default and max code it with their models for tables, smaller than
    with their models for text, and it decodes in a fresh process."""
    table = corpus_file("umath-cos.csv").read_bytes()
    assert kinds.Screen.of(table).kind == "table"
    for name in ("alice29.txt", "enwik6"):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind == "text"
    indented = b"".join(b'\t<entry\n\t\tid="%d"\n\t\tname="n%d" />\n' % (i, i) for i in range(50))
    assert kinds.Screen.of(indented).kind == "markup"  # indentation is no field
    code = Path(race.__file__).read_bytes()
    assert kinds.Screen.of(code).kind == "text"
    _each_level_writes_its_model_and_it_pays(tmp_path, table, "table")


def test_a_kinds_model_pays_for_itself(tmp_path, caplog):
    """Where the screen guesses the kind from the bytes' statistics, the
    level's general model codes them beside the kind's and the smaller
    archive is written (race.guarded_archive): prose whose every line holds
    two commas reads as a table, but the default writes its model for text
    there, smaller (23,986 bytes against 24,388 on all 83 KB of them); a real
    table keeps the table model. At the check (race.guard_check) the
    general model stops where the kind's is ahead, and codes the whole
    input where it is behind. Each archive decodes in a fresh process."""
    import logging
    lines = [line for name in ("lcet10.txt", "plrabn12.txt", "alice29.txt")
             for line in corpus_file(name).read_bytes().split(b"\n") if line.count(b",") == 2]
    prose = b"\n".join(lines)
    prose = prose[:prose.index(b"\n", 80_000) + 1]  # (the books in tests/corpus: 83 KB)
    table = corpus_file("umath-cos.csv").read_bytes()
    assert kinds.Screen.of(prose).kind == kinds.Screen.of(table).kind == "table"
    assert kinds.Screen.of(prose).general == "text" and race.guard_check(len(table)) < len(table)
    default = LEVELS["default"].statistics
    models = {kind: LEVEL_MODELS[("default", kind)] for kind in ("text", "table")}

    def coded(data: bytes, kind: str) -> bytes:
        return race.statistics_archive(data, race.file_order(default.for_kind(kind), len(data)))
    archives = {}
    with caplog.at_level(logging.INFO, logger="fade"):
        archives["prose"] = fade.compress(prose, level="default"), prose
        assert "stops" not in caplog.text
        archives["table"] = fade.compress(table, level="default"), table
        assert "the general model stops" in caplog.text
    assert fade.read_header(archives["prose"][0]).statistics.model == models["text"]
    assert archives["prose"][0] == coded(prose, "text")
    assert len(archives["prose"][0]) < len(coded(prose, "table"))
    assert archives["table"][0] == coded(table, "table")
    assert "beside it model" in str(single.plan(len(prose), prose, level="default"))
    # a model asked for is not guarded
    asked = fade.compress(prose, level="default", statistics_model=models["table"])
    assert asked == coded(prose, "table")
    decode_in_a_fresh_process(tmp_path, archives)
    # At max, 16 KiB or more that is not text goes to the hybrid, which races
    # the statistics alone: their pass is guarded too.
    code = _machine_code(start=(1 << 20) + (1 << 17), size=1 << 14)
    if platform.machine() in ("x86_64", "AMD64"):
        racing, guard = single.Settings(level="max").race_statistics(len(code), code)
        assert (racing.model, guard.model) == (LEVEL_MODELS[("max", "x86")],
                                               LEVEL_MODELS[("max", "binary")])
        written = race.alone_pass(code, racing, None, guard).result()[0]
        assert written == min(race.statistics_archive(code, racing),
                              race.statistics_archive(code, guard), key=len)


def test_markup_gets_the_markup_models_and_they_pay(tmp_path):
    """kinds.Screen finds real XML (a Word document's styles) to be markup,
    and prose, a wiki dump's start (text between a few tags), a table and
    code not; levels fast, default and max code it with their models for
    markup, smaller than with their models for text, and it decodes in a
    fresh process. On markup with translations (a polkit policy's messages
    in some eighty languages), the default's model for markup, whose low
    orders are keyed by the field or the text's language (F_FIELD_ORDERS,
    F_FIELD_ORDER1), is smaller than it is without them (measured -2.7%)."""
    from fade.statistics.parts import F_FIELD_ORDER1, F_FIELD_ORDERS
    xml = corpus_file("docx-styles.xml").read_bytes()
    assert kinds.Screen.of(xml).kind == "markup"
    for name, kind in (("alice29.txt", "text"), ("enwik6", "text"), ("umath-cos.csv", "table")):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind == kind
    assert kinds.Screen.of(Path(race.__file__).read_bytes()).kind == "text"
    _each_level_writes_its_model_and_it_pays(tmp_path, xml, "markup")
    translated = corpus_file("packagekit.policy").read_bytes()[:40_000]
    assert kinds.Screen.of(translated).kind == "markup"
    by_language = fade.compress(translated, level="default", method="statistics")
    config = fade.read_header(by_language).statistics
    assert config.model == LEVEL_MODELS[("default", "markup")]
    assert fade.decompress(by_language) == translated
    keyed = len(archive.unpack(by_language)[1])  # the bit coder's stream
    assert keyed < 0.985 * coded_without(translated, config, F_FIELD_ORDERS | F_FIELD_ORDER1)


def test_log_lines_get_the_log_models_and_they_pay(tmp_path):
    """kinds.Screen finds a real log (a package manager's: timestamps first) to
    be log lines, and prose, a wiki dump's start, a table, markup and code
    not; levels fast, default and max code it with their models for log
    lines, their fields the space-separated tokens, smaller than with their
    models for text, and it decodes in a fresh process."""
    log = corpus_file("dpkg.log").read_bytes()
    assert kinds.Screen.of(log).kind == "log"
    for name, kind in (("alice29.txt", "text"), ("asyoulik.txt", "text"), ("enwik6", "text"),
                       ("umath-cos.csv", "table"), ("docx-styles.xml", "markup")):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind == kind
    assert kinds.Screen.of(Path(race.__file__).read_bytes()).kind == "text"
    _each_level_writes_its_model_and_it_pays(tmp_path, log[:40_000], "log")


def test_log_lines_are_decided_on_the_first_lines_alike():
    """kinds.log_lines on real lines mixed (the package manager's log and
    two books' lines of three spaces or more, which begin unalike): log
    lines where LOG_SHARE of the first LOG_ROWS lines begin alike, 31 in
    50, and not at 29 in 50; the lines past LOG_ROWS are not read (log
    lines first, then more lines of prose than of log in all, and the other
    way round); a last line without its end is no line (MIN_TABLE_ROWS
    lines at least)."""
    log = corpus_file("dpkg.log").read_bytes().split(b"\n")[:-1]
    prose = [line for name in ("alice29.txt", "lcet10.txt")  # (whole in tests/corpus too)
             for line in corpus_file(name).read_bytes().split(b"\n") if line.count(b" ") >= 3]
    assert len(prose) > kinds.LOG_ROWS and kinds.LOG_SHARE == 0.6

    def lines(chosen: list[bytes]) -> bytes:
        return b"\n".join(chosen) + b"\n"

    def mixed(alike: int, of: int) -> bytes:
        logs, books = iter(log * 2), iter(prose)
        return lines([next(logs) if k % of < alike else next(books) for k in range(1500)])

    assert kinds.log_lines(mixed(31, 50)) and not kinds.log_lines(mixed(29, 50))
    logs = (log * 5)[:kinds.LOG_ROWS]
    assert kinds.log_lines(lines(logs + prose)) and len(prose) > len(logs)
    assert not kinds.log_lines(lines(prose[:kinds.LOG_ROWS] + log * 5))
    rows = kinds.MIN_TABLE_ROWS
    assert kinds.log_lines(lines(log[:rows]))
    assert not kinds.log_lines(lines(log[:rows - 1]) + log[rows - 1])


def test_each_rows_marks_are_counted_up_to_its_end():
    """kinds.per_row, with which the table and log screens count each row's
    delimiters and spaces: on a real table's and a book's first lines, each
    row's count is its line's; a row's end is its own (each row holds one
    line break); where no byte is marked, none."""
    for name, mark in (("umath-cos.csv", b","), ("alice29.txt", b" ")):
        data = corpus_file(name).read_bytes()[:20_000]
        symbols = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(symbols == 10)
        lines = data[:ends[-1]].split(b"\n")
        counts = kinds.per_row(symbols == mark[0], ends)
        assert counts.tolist() == [line.count(mark) for line in lines] and counts.sum() > 0
        assert kinds.per_row(symbols == 10, ends).tolist() == [1] * len(ends)
        assert not kinds.per_row(symbols == 0, ends).any()


def test_markup_follows_elements_attributes_and_values():
    """The markup model's state after each byte: a value is a field keyed by
    its element, parent and attribute, quoted or not, whose last place the
    next value of that key finds as the field above; text is keyed apart,
    and a closed element's parent is open again."""
    from fade.statistics import markup as m
    from fade.statistics.coding import Tables
    from fade.statistics.compose import predictor_for
    from fade.statistics.models import MODEL_PARTS
    from fade.statistics.layouts.markup import S_M_DEPTH, S_M_KEY, S_M_MODE
    from fade.statistics.layouts.tables import S_ABOVE_END, S_ABOVE_START, S_FIELD_START
    from fade.statistics.state import P_BITS, P_MATCH_BITS, S_BASE, S_POSITION
    data = b'<a><b x="12" y=34>t</b><b x="56" y=78>u</b></a>'
    config = LEVELS["fast"].statistics.for_kind("markup").sized(len(data))
    tables = Tables.build(config, 1, len(data))
    code = predictor_for(MODEL_PARTS[config.model], ahead=False)  # (its end_byte)
    code.begin_streams(tables, np.zeros(1, np.int64), np.array([len(data)], np.int64))
    seen = []
    for byte in data:
        code.end_byte(tables, 0, np.int64(byte), tables.parameters[P_BITS],
                 tables.parameters[P_MATCH_BITS])
        row = tables.streams[0]
        seen.append((int(row[S_M_MODE]), int(row[S_M_DEPTH]), int(row[S_M_KEY]),
                     int(row[S_FIELD_START]), int(row[S_ABOVE_START]), int(row[S_ABOVE_END])))
    assert int(tables.streams[0, S_BASE]) == 0 and int(tables.streams[0, S_POSITION]) == len(data)
    at = {name: data.index(name) for name in (b'x="12', b"y=34", b'x="56', b"y=78", b">t", b">u")}
    # after the opening quote of x="56": a value whose field above is "12"
    mode, depth, key, start, above, end = seen[at[b'x="56'] + 2]
    assert (mode, depth) == (m.M_VALUE, 2) and data[above:end] == b"12"
    assert key == seen[at[b'x="12'] + 2][2] != seen[at[b"y=34"] + 1][2]
    # y=78 has no quotes: the value starts at its first byte, above it 34
    mode, depth, key, start, above, end = seen[at[b"y=78"] + 2]
    assert mode == m.M_VALUE and start == at[b"y=78"] + 2 and data[above:end] == b"34"
    # the texts: keyed alike, the second's field above the first
    mode, depth, key, start, above, end = seen[at[b">u"]]
    assert (mode, depth) == (m.M_TEXT, 2) and data[above:end] == b"t"
    assert key == seen[at[b">t"]][2]
    assert seen[-1][:2] == (m.M_TEXT, 0)  # </a> closed the last element


def test_the_markup_models_round_trip_broken_markup():
    """Markup as it comes in the wild: nesting deeper than the stack keeps,
    closing tags never opened, a quote never closed, < and > inside values
    and comments, a value longer than a field's places, attributes without
    values, then bytes that are no markup at all: each level's model for
    markup codes it all and decodes it to the same bytes."""
    rng = np.random.default_rng(5)
    parts = [b"<a>" * 40 + b"deep" + b"</a>" * 44, b"</b></c>text", b'<d x="1 > 2" y=\'<\'>',
             b"<!-- a > b --><?pi <x>?>", b'<e v="' + b"9" * 600 + b'" w z=3/>',
             b'<f q="never closed>' + b"<g h=1>" * 5, bytes(rng.integers(0, 256, 3000,
                                                                           dtype=np.uint8)),
             b"<i j=k>" * 30]
    data = b"".join(parts) * 3
    for model in (LEVEL_MODELS[(level, "markup")] for level in ("fast", "default", "max")):
        archive = fade.compress(data, level="default", method="statistics",
                                statistics_model=model)
        assert fade.read_header(archive).statistics.model == model
        assert fade.decompress(archive) == data


def _each_level_writes_its_model_and_it_pays(tmp_path, data, kind, against="text",
                                             margin=1.0, levels=("fast", "default", "max"),
                                             margins=None) -> dict[str, bytes]:
    """`levels` code `data` with their models for `kind`, smaller than
    `margin` (or a level's in `margins`) times with their models for
    `against` (their models for text unless given), and it decodes in a
    fresh process; each level's archive."""
    sizes, archives = {}, {}
    for level in levels:
        archive = fade.compress(data, level=level, method="statistics")
        assert fade.read_header(archive).statistics.model == LEVEL_MODELS[(level, kind)]
        sizes[level] = len(fade.compress(data, level=level, method="statistics",
                                         statistics_model=LEVEL_MODELS[(level, against)]))
        most = (margins or {}).get(level, margin)
        assert len(archive) < most * sizes[level], (level, len(archive), sizes[level])
        archives[level] = (archive, data)
    decode_in_a_fresh_process(tmp_path, archives)
    return {level: made for level, (made, _) in archives.items()}


def _fasta(name: str, bases: bytes, width: int = 80) -> bytes:
    return b">%s\n" % name.encode() + b"".join(
        bases[i:i + width] + b"\n" for i in range(0, len(bases), width))


def test_nucleotides_get_the_dna_models_and_they_pay(tmp_path):
    """kinds.Screen finds a real genome (FASTA: headers, bases in lines) to be
    nucleotides, and prose, a table and binary not; levels fast, default and
    max code it with their models for nucleotides, and it decodes in a fresh
    process: the default's and max's smaller than with their models for
    text, fast's within 0.5% of its model for text (measured +0.13% on these
    64 KB: with bit-history states since fade 0.14, fast's text model is
    level with F_DNA's three contexts on so little; the other strand is
    where the nucleotide models pay, the test below)."""
    genome = corpus_file("genome-2.fna").read_bytes()
    assert kinds.Screen.of(genome).kind == "dna"
    lowercase = genome.lower().replace(b"acg", b"NNN")  # soft-masked, with unknown bases
    assert kinds.Screen.of(lowercase).kind == "dna"
    for name in ("alice29.txt", "umath-cos.csv", "mapsdatazrh"):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind != "dna"
    _each_level_writes_its_model_and_it_pays(tmp_path, genome, "dna", margins={"fast": 1.005})
    round_trip = fade.compress(lowercase, level="fast", method="statistics")
    assert fade.decompress(round_trip) == lowercase


def test_the_dna_models_learn_the_other_strand():
    """A genome's stretch followed by its reverse complement (the other
    strand, read the way it is read): fast's and the default's nucleotide
    models, which learn both strands, code the second half in a fraction of
    the first's bits; fast's text model, which sees bytes, cannot."""
    lines = corpus_file("genome-2.fna").read_bytes().split(b"\n")
    bases = b"".join(line for line in lines if not line.startswith(b">"))[:20_000]
    other = bases[::-1].translate(bytes.maketrans(b"ACGTacgt", b"TGCAtgca"))
    first = _fasta("forward", bases)
    data = first + _fasta("reverse complement", other)
    text = LEVEL_MODELS[("fast", "text")]
    dna = [LEVEL_MODELS[(level, "dna")] for level in ("fast", "default")]
    halves = {}
    for model in (text, *dna):
        config = StatisticsConfig(table_bits=18, match_bits=16, model=model)
        stream, bits = statistics.encode_file_marked(data, config, np.array([len(first)]))
        assert statistics.decode_file(stream, len(data), config) == data
        halves[model] = (int(bits[0]), 8 * len(stream) - int(bits[0]))
    for model in dna:
        assert halves[model][1] < 0.15 * halves[model][0], halves
        assert halves[model][0] < 1.01 * halves[text][0], halves  # and no worse on the first
    assert halves[text][1] > 0.8 * halves[text][0], halves


def _machine_code(start: int = 1 << 20, size: int = 1 << 18) -> bytes:
    """`size` bytes of real machine code from every install: numpy's core
    extension module, `start` bytes in (1 MiB: its code, past the symbol
    tables)."""
    import numpy
    module = sorted(Path(numpy.__file__).parent.glob("_core/_multiarray_umath*"))[0]
    return module.read_bytes()[start:start + size]


def _elf_section(path: Path, name: str) -> bytes:
    """Section `name` of the ELF64 (little-endian) file at `path`; empty if
    the file is no such ELF file or has no such section."""
    data = path.read_bytes()
    if data[:6] != b"\x7fELF\x02\x01":
        return b""
    offset, = struct.unpack_from("<Q", data, 0x28)
    size, count, names = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, offset + k * size) for k in range(count)]
    for label, _, _, _, at, length in headers:
        if data[headers[names][4] + label:].split(b"\0", 1)[0] == name.encode():
            return data[at:at + length]
    return b""


def test_records_get_the_column_models_and_they_pay(tmp_path):
    """A relocation table (24-byte records: numpy's compiled module's, 96
    KiB of it, where the install has one) is neither text nor code; levels
    fast and default code it with their models for other bytes, smaller
    than with their models for text (measured -46% and -39%), and it
    decodes in a fresh process. (What F_RECORDS' column contexts and second
    record length save is left to the benchmarks: each model less a part is
    compiled when a test runs; docs/results.md, "Suite times".)"""
    import numpy
    module = sorted(Path(numpy.__file__).parent.glob("_core/_multiarray_umath*"))[0]
    records = _elf_section(module, ".rela.dyn")[:98304]
    if len(records) < 65536:  # not an ELF install: the module's own bytes, decoded
        records = module.read_bytes()[:98304]
        assert fade.decompress(fade.compress(records, level="fast")) == records
        return
    assert kinds.Screen.of(records).kind == "binary"
    _each_level_writes_its_model_and_it_pays(tmp_path, records, "binary", "text", 0.7,
                                             ("fast", "default"))


def test_the_call_transform_reverses_on_any_bytes():
    """fade.statistics.steps.e8e9 back and forth gives the bytes again: on
    bytes made of little but E8, E9, 00 and FF (where operands overlap and
    the decisions can go wrong) and on real machine code."""
    from fade.statistics.steps import e8e9
    rng = np.random.default_rng(5)
    for _ in range(300):
        data = rng.choice(np.array([0xE8, 0xE9, 0, 0xFF, 1], dtype=np.uint8),
                          size=int(rng.integers(0, 400)))
        assert (e8e9(e8e9(data, True), False) == data).all()
    binary = np.frombuffer(_machine_code(), np.uint8)
    moved = e8e9(binary, True)
    assert (e8e9(moved, False) == binary).all()
    assert platform.machine() not in ("x86_64", "AMD64") or (moved != binary).mean() > 0.001


def test_the_address_transforms_reverse_on_any_bytes():
    """fade.statistics.steps.to_addresses and from_addresses give the bytes
    again, with the RIP-relative step (F_X86) and the calls' (F_E8E9): on
    bytes made of opcodes with RIP-relative operands, prefixes, E8 and
    immediates run together at random (where the parse and the calls'
    operands overlap), and on real machine code, where they move bytes."""
    from fade.statistics.parts import F_E8E9, F_X86
    from fade.statistics.steps import from_addresses, to_addresses
    pieces = [b"\x8b\x05", b"\xc7\x05", b"\x48", b"\x66", b"\x0f", b"\xe8", b"\xe9",
              b"\x00", b"\xff", b"\x81\x05", b"\xc4", b"\x3a", b"\x05"]
    rng = np.random.default_rng(6)
    for _ in range(200):
        data = np.frombuffer(b"".join(pieces[k] for k in rng.integers(0, len(pieces), 150)),
                             np.uint8)
        for parts in (F_X86, F_X86 | F_E8E9):
            assert (from_addresses(to_addresses(data, parts), parts) == data).all()
    binary = np.frombuffer(_machine_code(), np.uint8)
    moved = to_addresses(binary, F_X86)
    assert (from_addresses(moved, F_X86) == binary).all()
    assert platform.machine() not in ("x86_64", "AMD64") or (moved != binary).mean() > 0.001


def test_the_instruction_parse_finds_where_instructions_end():
    """fade.statistics.x86's parse, byte by byte, is at the start of an
    instruction exactly where each of these known ones ends (prefixes,
    two-byte and VEX opcodes, ModRM with SIB and displacements, immediates
    of 1, 2, 4 and 8 bytes, TEST's immediate in group F7), and knows the
    RIP-relative displacement and what follows it."""
    from fade.statistics.layouts.x86 import S_X86_BYTES, S_X86_IMMEDIATE, S_X86_LEFT, S_X86_STEP
    from fade.statistics.state import S_FIELDS
    from fade.statistics.x86 import DISPLACEMENT, START, note_x86
    instructions = [
        "55", "4889e5", "488b0510000000", "c70500010000ffffffff", "8b442408",
        "48b80102030405060708", "66b83412", "f7c101000000", "f7d8", "0fb6c0",
        "0f8410000000", "c5f877", "c4e27918c0", "e8fbffffff", "eb05", "f30f1efa",
        "4c8d0c8d00000000", "66817c2404ff00", "c3"]
    streams = np.zeros((1, S_FIELDS), dtype=np.int64)
    for text in instructions:
        code = bytes.fromhex(text)
        for k, byte in enumerate(code):
            begins = streams[0, S_X86_STEP] == START and streams[0, S_X86_BYTES] == 0
            assert begins == (k == 0), (text, k)
            if text == "c70500010000ffffffff" and k == 2:  # RIP-relative, then 4 bytes
                assert streams[0, S_X86_STEP] == DISPLACEMENT
                assert (streams[0, S_X86_LEFT], streams[0, S_X86_IMMEDIATE]) == (4, 4)
            note_x86(streams, 0, byte)
    assert streams[0, S_X86_STEP] == START and streams[0, S_X86_BYTES] == 0


def test_x86_code_gets_the_x86_models_and_they_pay(tmp_path):
    """kinds.Screen finds numpy's compiled code to be x86 machine code (on an
    x86-64 machine), and compressed bytes, map data and text not; levels
    fast, default and max code it with their models for x86 code
    (instructions parsed, calls' and RIP-relative distances as addresses;
    at the default and max five more instruction contexts), smaller than
    with their models for other bytes (measured -28%, -29% and -24%), and
    it decodes in a fresh process. (64 KiB of it, 1.125 MiB in, where calls
    are dense: the 128 KiB before them has fewer than the screen asks for.)"""
    code = _machine_code(start=(1 << 20) + (1 << 17), size=1 << 16)
    for name in ("edge/compressed_file", "mapsdatazrh", "alice29.txt"):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind != "x86"
    if platform.machine() not in ("x86_64", "AMD64"):  # the code of another machine
        assert fade.decompress(fade.compress(code, level="fast")) == code
        return
    assert kinds.Screen.of(code).kind == "x86"
    # Vector loops with few calls (0.66% of the bytes start one, under the
    # screen's 1%) are x86-64 code by their REX prefixes.
    loops = np.frombuffer(_machine_code(size=1 << 17), np.uint8)
    starts = np.flatnonzero((loops[:-4] & 0xFE) == 0xE8)
    assert np.isin(loops[starts + 4], (0, 0xFF)).sum() < kinds.CALL_SHARE * len(loops)
    assert kinds.Screen.of(loops.tobytes()).kind == "x86"
    for name in ("chelsea.ppm", "coins.pgm", "pydub-test4.wav", "edge/compressed_file"):
        assert not kinds.machine_code(np.frombuffer(corpus_file(name).read_bytes(), np.uint8))
    _each_level_writes_its_model_and_it_pays(tmp_path, code, "x86", "binary", 0.8)


def _wav(samples: np.ndarray, channels: int, tag: int = 1, bits: int = 16,
         extra: bytes = b"") -> bytes:
    """A RIFF WAVE file of `samples` (interleaved; 24 bits: the low three
    bytes of each as int32), with `extra` chunks before its data chunk."""
    width = 3 if bits == 24 else 2
    data = samples.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes() \
        if bits == 24 else samples.astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", tag, channels, 8000, 8000 * width * channels,
                      width * channels, bits)
    if tag == 0xFFFE:  # WAVE_FORMAT_EXTENSIBLE, the PCM sub-format
        fmt += struct.pack("<HHI", 22, bits, 0) + bytes.fromhex(
            "0100000000001000800000aa00389b71")
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + \
        b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_wav_layouts_are_found_from_their_headers():
    """wav_layout reads 16-bit PCM's channels and where its whole samples
    lie (after other chunks, WAVE_FORMAT_EXTENSIBLE too, cut to the bytes
    there); anything else is no audio."""
    from fade.statistics.wav import Layout, wav_layout
    samples = np.arange(-300, 300, dtype=np.int16)
    mono = _wav(samples, 1)
    assert wav_layout(mono) == Layout(1, 44, 1200)
    assert wav_layout(_wav(samples, 2, extra=b"LIST" + struct.pack("<I", 5) + b"abcde\0")) \
        == Layout(2, 58, 1200)
    assert wav_layout(_wav(samples, 2, tag=0xFFFE)) == Layout(2, 68, 1200)
    assert wav_layout(mono[:1000]) == Layout(1, 44, 956)  # cut short: whole samples there
    assert wav_layout(_wav(samples, 2)[:1001]) == Layout(2, 44, 956)
    assert wav_layout(_wav(samples, 2, bits=24)) == Layout(2, 44, 1800, 3)
    for other in (_wav(samples, 1, bits=8), _wav(samples, 1, tag=3), mono[:40],
                  b"RIFX" + mono[4:], mono.replace(b"WAVE", b"AVI "),
                  corpus_file("mapsdatazrh").read_bytes()[:60_000]):
        assert wav_layout(other) is None
    real = corpus_file("pydub-test1.wav").read_bytes()
    assert wav_layout(real) == Layout(2, 44, len(real) - 44 - (len(real) - 44) % 4)


def test_audio_residuals_undo_exactly():
    """to_residuals and from_residuals are each other's inverse on real
    recordings and on samples that make every sum wrap (full-scale noise,
    jumps from one extreme to the other), mono to 8 channels, and leave the
    header and a trailing odd byte alone; without F_AUDIO, or on other
    bytes, the data is coded as it is. The same with least squares of
    order 64 (F_OLS64), whose residuals are others."""
    from fade.statistics.steps import from_residuals, to_residuals
    from fade.statistics.parts import F_AUDIO, F_OLS64
    rng = np.random.default_rng(11)
    noise = rng.integers(-32768, 32768, 4000).astype(np.int16)
    jumps = np.tile(np.array([32767, -32768, 32767, 0, -32768], dtype=np.int16), 400)
    inputs = [corpus_file("pydub-test4.wav").read_bytes(),
              corpus_file("pydub-test1.wav").read_bytes() + b"\x07"]
    inputs += [_wav(noise[:len(noise) // c * c], c) for c in (1, 2, 3, 8)]
    inputs += [_wav(jumps, c) for c in (1, 2)]
    wide = rng.integers(-1 << 23, 1 << 23, 3000)
    inputs += [_wav(wide, c, bits=24) for c in (1, 2)]  # 24 bits, wrapping too
    inputs += [_wav(np.tile([(1 << 23) - 1, -1 << 23, 0], 500), 1, bits=24)]
    # wasted low bits: 16-bit samples in 24 (the last one odd), 12-bit ones in 16
    padded = (noise[:2000].astype(np.int64) << 8)
    padded[-1] += 1
    inputs += [_wav(padded, 2, bits=24), _wav(noise[:2000] & -16, 1)]
    for data in inputs:
        source = np.frombuffer(data, dtype=np.uint8)
        coded = to_residuals(source, F_AUDIO)
        assert coded.tobytes()[:44] == data[:44] and coded.tobytes() != data
        assert from_residuals(coded, F_AUDIO).tobytes() == data
        assert to_residuals(source, 0) is source
        longer = to_residuals(source, F_AUDIO | F_OLS64)
        assert from_residuals(longer, F_AUDIO | F_OLS64).tobytes() == data
        if data in inputs[:2]:  # (real recordings: the order changes the predictions)
            assert longer.tobytes() != coded.tobytes()
    assert len(inputs[1]) % 2 == 1 and to_residuals(
        np.frombuffer(inputs[1], dtype=np.uint8), F_AUDIO)[-1] == 7
    other = np.frombuffer(corpus_file("mapsdatazrh").read_bytes(), dtype=np.uint8)
    assert to_residuals(other, F_AUDIO) is other


def test_least_squares_solves_in_integers():
    """_solve gives the weights of a linear relation from decayed sums built
    as the audio predictor builds them (_accumulate), within 1/256 each
    (the ridge shrinks them a little), for inputs of a few units and of
    tens of thousands alike; with no sums, the weights are 0."""
    from fade.statistics.audio import OLS_FRACTION, _accumulate, _solve
    rng = np.random.default_rng(5)
    n = 6
    truth = np.array([1.5, -0.75, 0.25, 0.0, 2.0, -1.25])
    for scale in (2, 5000):
        matrix, vector = np.zeros((n, n), np.int64), np.zeros(n, np.int64)
        for _ in range(3000):
            x = 4 * rng.integers(-scale, scale + 1, n)
            target = int(x @ truth)  # (exact: multiples of 1/4 times multiples of 4)
            _accumulate(matrix, vector, x.astype(np.int64), target, n)
        weights = np.zeros(n, np.int64)
        _solve(matrix, vector, weights, n, np.zeros((n, n), np.int64), np.zeros(2 * n, np.int64))
        assert np.abs(weights / (1 << OLS_FRACTION) - truth).max() < 1 / 256, scale
    unseen = np.arange(n, dtype=np.int64)
    _solve(np.zeros((n, n), np.int64), np.zeros(n, np.int64), unseen, n,
           np.zeros((n, n), np.int64), np.zeros(2 * n, np.int64))
    assert not unseen.any()


def test_audio_predictor_learns_a_tone_quickly():
    """Two tones, each a linear recurrence of the samples before: after a few
    hundred samples the residuals are a few units, where the tones' first
    differences are thousands (the least squares stage; sign-sign LMS alone
    took thousands of samples to come near)."""
    from fade.statistics.steps import to_residuals
    from fade.statistics.parts import F_AUDIO
    t = np.arange(4000)
    tone = np.round(9000 * np.sin(0.05 * t) + 6000 * np.sin(0.31 * t + 1)).astype(np.int16)
    coded = to_residuals(np.frombuffer(_wav(tone, 1), dtype=np.uint8), F_AUDIO)
    zigzag = coded[44:].view(">u2").astype(np.int64)
    residuals = (zigzag >> 1) ^ -(zigzag & 1)
    assert np.abs(np.diff(tone.astype(np.int64))[500:]).mean() > 1000
    assert np.abs(residuals[500:]).mean() < 4


def test_a_channel_that_does_not_move_with_the_first_is_coded_as_it_is():
    """A second channel is coded as its side (less the first) while that
    moves less than the channel itself, else as it is: a tone beside
    full-scale noise leaves residuals of a few units, where its side would
    carry the noise; the same tone in both channels keeps the side (0)."""
    from fade.statistics.steps import to_residuals
    from fade.statistics.parts import F_AUDIO
    t = np.arange(4000)
    tone = np.round(9000 * np.sin(0.05 * t) + 6000 * np.sin(0.31 * t + 1)).astype(np.int64)
    noise = np.random.default_rng(3).integers(-20000, 20000, len(t))
    for first, expected in ((noise, 4), (tone, 1)):
        samples = np.stack([first, tone], axis=1).reshape(-1)
        coded = to_residuals(np.frombuffer(_wav(samples, 2), dtype=np.uint8), F_AUDIO)
        zigzag = coded[44:].view(">u2").astype(np.int64)[1::2]  # the second channel's
        residuals = (zigzag >> 1) ^ -(zigzag & 1)
        assert np.abs(residuals[1000:]).mean() < expected


def test_wasted_low_bits_stay_cheap():
    """Samples whose low bits are all 0 (16-bit audio in a 24-bit file,
    12-bit samples in 16) keep them 0 in their residuals: the audio models
    code them smaller than the models for other bytes do."""
    recording = corpus_file("pydub-test4.wav").read_bytes()
    samples = np.frombuffer(recording[44:], dtype="<i2").astype(np.int64)
    for wasted in (_wav(samples << 8, 1, bits=24), _wav(samples & -16, 1)):
        audio = fade.compress(wasted, level="fast", method="statistics")
        assert fade.read_header(audio).statistics.model == LEVEL_MODELS[("fast", "audio")]
        other = fade.compress(wasted, level="fast", method="statistics",
                              statistics_model=LEVEL_MODELS[("fast", "binary")])
        assert len(audio) < 0.9 * len(other)
        assert fade.decompress(audio) == wasted


def test_audio_gets_the_audio_models_and_they_pay(tmp_path):
    """kinds.Screen finds real recordings (mono and stereo WAV files of
    16-bit PCM) to be audio, and text, code and map data not; levels fast,
    default and max code them with their models for audio (the samples as a
    predictor's residuals), at least 10% smaller than with their models for
    other bytes, and they decode in a fresh process."""
    for name in ("alice29.txt", "mapsdatazrh", "edge/compressed_file"):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind != "audio"
    for name in ("pydub-test4.wav", "pydub-test1.wav"):
        # (48 KiB: pydub-test1's first 32 KiB are too quiet for the audio models to pay)
        recording = corpus_file(name).read_bytes()[:49_152]
        assert kinds.Screen.of(recording).kind == "audio"
        _each_level_writes_its_model_and_it_pays(tmp_path, recording, "audio", "binary", 0.9)
