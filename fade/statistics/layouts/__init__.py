"""Where each part's state lies: its fields, weight sets, inputs and arrays.

Each kind of the statistics (fade.statistics.dna, x86, image, ...) keeps the
description of its state here, in a module of the same name that imports
neither numba nor numpy, so that fade.config can size every array before
anything is compiled (fade.statistics.state composes them): the fields of
its row in Tables.streams, its weight sets, its mixer inputs and the
arrays it owns. A row holds the general fields (`general`), then each
layout's in ORDER; a layout takes its first field from `first`, so that
adding a kind is a module here and its name in ORDER, and no field's
place is counted by hand.
"""

from __future__ import annotations

import importlib

# The layouts, in the order of their fields in a stream's row.
ORDER = ("general", "records", "tables", "dna", "x86", "image", "markup", "words", "text")


def first(module: str) -> int:
    """The first field of layout `module` (its __name__) in a stream's row:
    after the fields of every layout before it in ORDER."""
    return _fields(ORDER[:ORDER.index(module.rsplit(".", 1)[-1])])


def row_fields() -> int:
    """The fields of a stream's row: every layout's."""
    return _fields(ORDER)


def _fields(names: tuple[str, ...]) -> int:
    """The fields of the layouts `names` in all."""
    return sum(importlib.import_module(f"{__name__}.{name}").FIELDS for name in names)
