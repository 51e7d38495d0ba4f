"""Contexts for delimited tables: a byte by its field, and the field above.

A CSV or TSV file is rows of fields: what predicts a byte is which column
it is in and what that column held in the row above, wherever the fields
before it happen to end. The delimiter is found as the stream goes (of
tab, comma, semicolon and vertical bar, the one whose count per row stays
the same for two rows in a row, the most rows), so the decoder finds it
from the same bytes; with none found, the contexts say nothing new. Log
lines (F_LOG) are such a table whose
delimiter is a space from the end of the first line: a field is a token,
the field above the same token of the line before. `field_contexts` hashes a stream's
field contexts for its next byte (with F_LENGTH, a
fourth: the field's length so far against the field above's, with the
field's index and the last byte: where a field or token ends);
`note_field` keeps their state after each byte; markup
(fade.statistics.markup) shares `place_above` and `length_against`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT, bytes_hash, context_hash, floor_log2
from fade.statistics.parts import DELIMITERS, FIELD1, FIELD2, FIELD3, FIELD_LENGTH
from fade.statistics.state import SCRATCH_HASHES, S_ABOVE, S_BASE, S_HISTORY, S_LINE, S_POSITION
from fade.statistics.layouts.tables import (
    CANDIDATES, S_ABOVE_END, S_ABOVE_HASH, S_ABOVE_START, S_AGREED, S_COUNT, S_COUNT_BEFORE,
    S_DELIMITER, S_FIELD, S_FIELD_HASH, S_FIELD_START)

_DELIMITERS = np.array(DELIMITERS, dtype=np.int64)
_AGREE = 2  # rows in a row with the same count before a candidate is the delimiter


@nb.njit(**JIT)
def place_above(streams, buffer, s):
    """The next byte's place in its field (at most 255), the byte at that
    place in the field above and the one after it (256: past the field
    above's end, or no field above)."""
    offset = min(streams[s, S_POSITION] - streams[s, S_FIELD_START], 255)
    above = 256
    after = 256
    start = streams[s, S_ABOVE_START]
    if start >= 0:
        at = start + offset
        if at < streams[s, S_ABOVE_END]:
            above = np.int64(buffer[at])
            if at + 1 < streams[s, S_ABOVE_END]:
                after = np.int64(buffer[at + 1])
    return offset, above, after


@nb.njit(**JIT)
def field_contexts(scratch, streams, buffer, s):
    """Hash stream s's field contexts for its next byte into the scratch."""
    c1 = streams[s, S_HISTORY] & 255
    field = min(streams[s, S_FIELD], 1023)
    offset, above, after = place_above(streams, buffer, s)
    if streams[s, S_DELIMITER] == 0:
        field = 1023  # no table found: the same contexts for every byte's field
    key = (field << 8) | offset
    scratch[SCRATCH_HASHES + FIELD1] = context_hash((key << 18) | (above << 9) | c1, 71)
    scratch[SCRATCH_HASHES + FIELD2] = context_hash(streams[s, S_FIELD_HASH] * 1024 + field, 72)
    scratch[SCRATCH_HASHES + FIELD3] = context_hash(
        ((streams[s, S_ABOVE_HASH] * 256 + offset) * 512 + after) * 256 + c1, 73)
    scratch[SCRATCH_HASHES + FIELD_LENGTH] = context_hash(
        field * 32 + length_against(streams, s), (c1 << 8) | 74)


@nb.njit(**JIT)
def length_against(streams, s):
    """F_LENGTH: the next byte's field's length so far against the field
    above's (`against`); 16 where there is no field above."""
    start = streams[s, S_ABOVE_START]
    if start < 0:
        return np.int64(16)
    return against(streams[s, S_POSITION] - streams[s, S_FIELD_START]
                   - (streams[s, S_ABOVE_END] - start))


@nb.njit(**JIT)
def against(longer):
    """A length's excess over another's, bucketed: 5 as long, 4 down to 0
    shorter by 1, 2-3, 4-7, 8-15, 16 or more, 6 up to 10 longer by as much."""
    if longer < 0:
        return 4 - min(floor_log2(-longer), 4)
    if longer > 0:
        return 6 + min(floor_log2(longer), 4)
    return np.int64(5)


@nb.njit(**JIT)
def note_field(streams, buffer, s, byte, log):
    """After `byte` (note_line has run): the counts that find the delimiter,
    the field's index, start and bytes, and the field above. `log`: the
    delimiter is a space from the first line's end (log lines' fields)."""
    base = streams[s, S_BASE]
    here = streams[s, S_POSITION]  # the next byte's place
    if byte == 10 and log:
        streams[s, S_DELIMITER] = 32
    elif byte == 10:
        best = 0
        most = _AGREE - 1
        for k in range(CANDIDATES):
            count = streams[s, S_COUNT + k]
            if count > 0 and count == streams[s, S_COUNT_BEFORE + k]:
                streams[s, S_AGREED + k] += 1
            else:
                streams[s, S_AGREED + k] = 0
            streams[s, S_COUNT_BEFORE + k] = count
            streams[s, S_COUNT + k] = 0
            if streams[s, S_AGREED + k] > most:
                most = streams[s, S_AGREED + k]
                best = _DELIMITERS[k]
        if best != 0 or streams[s, S_DELIMITER] == 0:
            streams[s, S_DELIMITER] = best
    if byte == 10:
        streams[s, S_FIELD] = 0
        streams[s, S_FIELD_START] = here
        streams[s, S_FIELD_HASH] = 0
        # the row just ended is the row above: its first field
        _field_above(streams, buffer, s, base + streams[s, S_ABOVE], base + here - 1)
        return
    for k in range(CANDIDATES):
        if byte == _DELIMITERS[k]:
            streams[s, S_COUNT + k] += 1
    if byte == streams[s, S_DELIMITER]:
        streams[s, S_FIELD] += 1
        streams[s, S_FIELD_START] = here
        streams[s, S_FIELD_HASH] = 0
        # the next field above, where the one above ended at a delimiter
        end, limit = streams[s, S_ABOVE_END], base + streams[s, S_LINE] - 1
        _field_above(streams, buffer, s,
                     end + 1 if streams[s, S_ABOVE_START] >= 0 and end < limit else -1, limit)
        return
    streams[s, S_FIELD_HASH] = bytes_hash(streams[s, S_FIELD_HASH], byte)


@nb.njit(**JIT)
def _field_above(streams, buffer, s, start, limit):
    """The field of the row above that starts at buffer[start], ending at the
    next delimiter or at `limit` (the row's newline): where, and its bytes;
    none where `start` is -1 (the row above has no more fields)."""
    delimiter = streams[s, S_DELIMITER]
    if start < 0 or start > limit:
        streams[s, S_ABOVE_START] = -1
        streams[s, S_ABOVE_END] = -1
        streams[s, S_ABOVE_HASH] = 0
        return
    end = start
    h = np.int64(0)
    while end < limit and (delimiter == 0 or buffer[end] != delimiter):
        h = bytes_hash(h, np.int64(buffer[end]))
        end += 1
    streams[s, S_ABOVE_START] = start
    streams[s, S_ABOVE_END] = end
    streams[s, S_ABOVE_HASH] = h
