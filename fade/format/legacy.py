"""Format versions 1 to 7: what each older version's tables lack.

Every older version's table is version 8's (fade.format.headers) with the
fields added since left out; this module names those fields, so a decoder
reads any readable version with one code path (fade.format.archive) and the
current tables stay the one place where a field is described:

- version 1 has no method byte (every archive is learned);
- versions 2 and 3 end the fixed part before `groups`: one group, one payload;
- version 4 adds the groups and their payload sizes;
- version 5 adds the numeric profile and the machine's description (strings);
- version 6 adds the statistics and the hybrid (`coding` and four fields);
- version 7 adds the frames archive (fade.format.container), no field here;
- version 8 adds the statistics' model number (model 0 before it).
"""

from __future__ import annotations

import functools
import struct

from fade.format.binary import Fields, layout
from fade.format.headers import FIXED_FIELDS, STATISTICS_FIELDS, STRING_FIELDS

# Fields of each table by the version that added them.
FIXED_ADDED = {
    2: ("method",),
    4: ("groups", "schedule"),
    6: ("coding", "table_bits", "match_bits", "mixer_rate", "keyed"),
    8: ("statistics_model",),
}
STRINGS_ADDED = {
    5: ("profile", "architecture", "cpu_vendor", "cpu_isa", "onednn_isa", "mkl_cpu",
        "mkl_version", "onednn_version", "cuda_version", "cudnn_version"),
}
STATISTICS_ADDED = {8: ("model",)}
# The statistics' model number of an archive from before version 8.
STATISTICS_MODEL_BEFORE_V8 = 0


def _added_after(added: dict[int, tuple[str, ...]], version: int) -> set[str]:
    return {name for since, names in added.items() if since > version for name in names}


def fixed_fields(version: int) -> Fields:
    """The fixed part of a learned header in format `version`."""
    later = _added_after(FIXED_ADDED, version)
    return [field for field in FIXED_FIELDS if field[0] not in later]


@functools.cache
def fixed_layout(version: int) -> tuple[struct.Struct, Fields]:
    """The struct of `fixed_fields(version)`, and the fields."""
    fields = fixed_fields(version)
    return layout(fields), fields


def string_fields(version: int) -> list[str]:
    """The strings after a learned header's fixed part in format `version`."""
    later = _added_after(STRINGS_ADDED, version)
    return [name for name in STRING_FIELDS if name not in later]


def statistics_fields(version: int) -> Fields:
    """A statistics archive's table in format `version` (6 and later)."""
    later = _added_after(STATISTICS_ADDED, version)
    return [field for field in STATISTICS_FIELDS if field[0] not in later]


@functools.cache
def statistics_layout(version: int) -> struct.Struct:
    return layout(statistics_fields(version))


def has_groups(version: int) -> bool:
    """Whether a learned header of `version` records its groups (from 4);
    before, a non-empty original is one group with one payload."""
    return version >= 4
