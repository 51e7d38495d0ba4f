"""The table of models for the docs: docs/statistics.md, "The models", which
`python -m fade.statistics.listing` prints (a test checks that the docs
hold it as printed)."""

from __future__ import annotations

from fade.statistics.models import MODELS
from fade.statistics.parts import part_names


def markdown_table() -> str:
    """The table of docs/statistics.md, "The models"."""
    rows = ["| model | level | what it adds | parts |", "|---|---|---|---|"]
    for number, model in enumerate(MODELS):
        base = 0 if model.base is None else MODELS[model.base].parts
        names = ", ".join(f"`{name}`" for name in part_names(model.parts & ~base))
        if base:
            names = f"model {model.base}'s" + (f", {names}" if names else "")
        adds = model.adds if model.base is None else f"model {model.base} and: {model.adds}"
        rows.append(f"| {number} | {model.use} | {adds} | {names or 'none'} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
