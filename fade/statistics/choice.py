"""Which statistics model a level writes for each kind of bytes, read from
the table of models (fade.statistics.models): the level's current model for
that kind, else its current model for any bytes."""

from __future__ import annotations

from fade.statistics.models import MODELS


def level_model(level: str, kind: str) -> int | None:
    """The model `level` codes bytes of `kind` (fade.race.Screen.kind:
    "text", "table", "dna", "binary") with alone today: the one for that kind,
    else its model for any bytes, if the table has one."""
    found = None
    for number, model in enumerate(MODELS):
        if model.current and model.level == level:
            if model.kind == kind:
                return number
            if model.kind is None and found is None:
                found = number
    return found


def for_kind(number: int, kind: str) -> int:
    """The model that codes bytes of `kind` where model `number` is its
    level's model for text or for any bytes today; else `number`."""
    if not 0 <= number < len(MODELS):
        return number
    model = MODELS[number]
    if not model.current or model.kind not in ("text", None):
        return number
    found = level_model(model.level, kind)
    return number if found is None else found


def model_level(number: int) -> str | None:
    """The level that writes (or wrote) model `number`; None for a number
    outside the table."""
    return MODELS[number].level if 0 <= number < len(MODELS) else None

