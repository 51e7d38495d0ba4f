"""The README's Python API section runs as written: every ```python block
in it, in order, in one namespace, in a folder with the files it names
(alice29.txt from the test corpus; `big_bytes` 1.1 MB of real text, past its
seek; `chunks` pieces of a real file; a text
archive `notes.txt.fade`), each archive decoded and checked by the blocks'
own asserts. The data libraries' block runs in a test of its own, where
zarr, fsspec and pandas are installed (the test extra has them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fade

from conftest import corpus_file

README = Path(__file__).resolve().parent.parent / "README.md"


def api_blocks() -> list[str]:
    """The ```python blocks of the README's "Python API" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def _is_libraries(block: str) -> bool:
    return "import fade.zarr" in block


def test_the_readme_api_blocks_run_as_written(tmp_path, monkeypatch):
    blocks = [block for block in api_blocks() if not _is_libraries(block)]
    assert len(blocks) >= 4  # the signatures, one shot, a file object, incremental
    alice = corpus_file("alice29.txt").read_bytes()
    (tmp_path / "alice29.txt").write_bytes(alice)
    (tmp_path / "notes.txt.fade").write_bytes(fade.compress(alice, level="fast"))
    big_bytes = (alice * (1_100_000 // len(alice) + 1))[:1_100_000]
    chunks = [alice[i:i + 40_000] for i in range(0, len(alice), 40_000)]
    monkeypatch.chdir(tmp_path)
    # the first block lists the calls' signatures: each line names a real callable
    for name in re.findall(r"^fade\.(\w+)\(", blocks[0], flags=re.M):
        assert callable(getattr(fade, name)), name
    namespace = {"fade": fade, "big_bytes": big_bytes, "chunks": chunks}
    for block in blocks[1:]:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["piece"] == big_bytes[1_000_000:1_004_096]
    assert "".join(namespace["lines"]) == alice.decode("utf-8").replace("\r\n", "\n")
    assert namespace["data"] == b"".join(chunks)


def test_the_readme_data_libraries_block_runs_as_written(tmp_path, monkeypatch):
    for library in ("zarr", "fsspec", "pandas"):
        pytest.importorskip(library)
    [block] = [block for block in api_blocks() if _is_libraries(block)]
    array = np.frombuffer(corpus_file("pydub-test4.wav").read_bytes()[44:], "<i2")
    table = corpus_file("umath-cos.csv").read_bytes()
    (tmp_path / "table.csv.fade").write_bytes(fade.compress(table, level="fast"))
    (tmp_path / "folder").mkdir()
    text = corpus_file("alice29.txt").read_bytes()[:20_000]
    (tmp_path / "folder" / "alice29.txt").write_bytes(text)
    monkeypatch.chdir(tmp_path)
    namespace = {"array": array}
    exec(compile(block, str(README), "exec"), namespace)
    assert np.array_equal(namespace["back"], array)
    assert namespace["table"].shape == (1374, 4)  # its 4 comment lines are rows here too
    assert (tmp_path / "restored" / "folder" / "alice29.txt").read_bytes() == text


def test_the_readme_settings_names_are_what_compress_takes():
    """The settings the README names are fade.Settings' fields, which
    `fade.compress` takes as keywords: `preset=` runs the network of that
    name (fade 0.10's `preset_name=` still works, the same archive)."""
    section = README.read_text(encoding="utf-8").split("\n## Python API\n", 1)[1]
    named = re.findall(r"`(\w+)=`", section.split("\n## ", 1)[0])
    assert {"level", "preset", "frame_size", "jobs"} <= set(named)
    fields = set(fade.Settings.__dataclass_fields__)
    assert set(named) <= fields, set(named) - fields
    # 600 bytes: the network steps a byte at a time. The method is named, as the
    # size floor's archive would win on so little.
    data = corpus_file("alice29.txt").read_bytes()[:600]
    archive = fade.compress(data, preset="tiny", method="fade")
    assert fade.read_header(archive).preset == "tiny"
    assert fade.decompress(archive) == data
    assert fade.compress(data, preset_name="tiny", method="fade") == archive


def test_the_readme_levels_table_is_the_model_tables():
    """The README's Levels table says what each level's model mixes for
    each kind of bytes, as fade.statistics.listing makes it from the table
    of models (no model numbers: `python -m fade.statistics.listing`)."""
    from fade.statistics.listing import levels_table
    section = README.read_text(encoding="utf-8").split("\n## Levels\n", 1)[1].split("\n## ", 1)[0]
    assert levels_table() in section
    assert not re.search(r"\bmodels? \d", section)
