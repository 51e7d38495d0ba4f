"""The tables of models for the docs: docs/statistics.md, "The models", and
the README's Levels table, which `python -m fade.statistics.listing`
prints (a test checks that the docs hold them as printed)."""

from __future__ import annotations

from fade.statistics.layouts.jpeg import INPUTS as JPEG_CONTEXTS, MORE as JPEG_MORE
from fade.statistics.models import LEVEL_MODELS, LEVELS, MODELS
from fade.statistics.parts import F_JPEG, F_JPEG2, active_contexts, part_names


def markdown_table() -> str:
    """The table of docs/statistics.md, "The models": every archive number,
    its level and kind, its hash table's slots a byte and its parts."""
    rows = ["| model | level | kind | slots a byte | parts |", "|---:|---|---|---:|---|"]
    for number, model in enumerate(MODELS):
        level = f"`{model.level}`" + ("" if model.current else " (an older release)")
        names = ", ".join(f"`{name}`" for name in part_names(model.parts)) or "none"
        rows.append(f"| {number} | {level} | {model.kind or 'any'} | "
                    f"{1 << model.slots_per_byte_bits} | {names} |")
    return "\n".join(rows) + "\n"


# The README's rows: a kind (fade.kinds.Screen.kind; its colour variants share
# its row), what the screen takes for it, and what its models know besides
# the orders, the words and the match that every model has.
KIND_ROWS = (
    ("text", "text", "bit-history states; default and max: the words before, the line, "
                     "column and brackets"),
    ("table", "delimited tables", "the field's index, the field above, the delimiter found"),
    ("markup", "XML, HTML", "the tag, attribute and value; the text between tags apart"),
    ("log", "log lines", "the line's tokens as fields"),
    ("dna", "nucleotides (FASTA)", "the bases alone, counts of both strands by orders up to 20"),
    ("x86", "x86 machine code", "the instructions parsed; calls and RIP-relative addresses "
                                "as targets"),
    ("audio", "16- and 24-bit PCM WAV", "the samples as a least-squares predictor's residuals"),
    ("image", "PNM and BMP images", "each pixel's neighbours and their predictions; colours as "
                                    "green and differences where a band of the image pays so"),
    ("pixels", "raw pixels", "as images, the row length measured"),
    ("jpeg", "JPEG photos (sequential and progressive)", "the Huffman codes followed; each "
                                                         "coefficient by its neighbours"),
    ("binary", "other bytes", "sparse, record, column and stride contexts; the bytes at fixed "
                              "distances back (default, max)"),
)


def levels_table() -> str:
    """The README's Levels table: for each kind of bytes, what its models
    know, and at each level how many contexts its model mixes and the hash
    table's slots for each byte of input (its memory: 64 bytes a slot)."""
    levels = " | ".join(f"`{level}`" for level in LEVELS)
    rows = [f"| kind | what the models know | {levels} |", "|---|---|" + "---|" * len(LEVELS)]
    for kind, name, knows in KIND_ROWS:
        cells = []
        for level in LEVELS:
            model = MODELS[LEVEL_MODELS[(level, kind)]]
            contexts = len(active_contexts(model.parts, False)[0]) + \
                (JPEG_CONTEXTS if model.parts & F_JPEG else 0) + \
                (JPEG_MORE if model.parts & F_JPEG2 else 0)  # (the coefficients')
            cells.append(f"{contexts} contexts, {1 << model.slots_per_byte_bits} slots a byte")
        rows.append(f"| {name} | {knows} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table())
    print(levels_table(), end="")
