"""Which statistics model a level writes for each kind of bytes, read from
the table of models (fade.statistics.models.LEVEL_MODELS)."""

from __future__ import annotations

from fade.statistics.models import LEVEL_MODELS, MODELS


def level_model(level: str, kind: str) -> int | None:
    """The model `level` codes bytes of `kind` (fade.kinds.Screen.kind) with
    alone today; None for a level or kind the table does not have."""
    return LEVEL_MODELS.get((level, kind))


def for_kind(number: int, kind: str) -> int:
    """The model that codes bytes of `kind` where model `number` is its
    level's model for text today; else `number`."""
    if not 0 <= number < len(MODELS):
        return number
    model = MODELS[number]
    if not model.current or model.kind != "text":
        return number
    found = level_model(model.level, kind)
    return number if found is None else found


def model_use(number: int) -> str | None:
    """What model `number` is for, in words ("x86 at max", "any bytes at
    max, an older release's"); None for a number outside the table."""
    if not 0 <= number < len(MODELS):
        return None
    model = MODELS[number]
    return f"{model.kind or 'any bytes'} at {model.level}" + \
        ("" if model.current else ", an older release's")


def model_level(number: int) -> str | None:
    """The level that writes (or wrote) model `number`; None for a number
    outside the table."""
    return MODELS[number].level if 0 <= number < len(MODELS) else None
