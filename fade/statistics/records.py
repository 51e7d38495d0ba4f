"""Contexts for tables, records and arrays: columns, record lengths, strides.

Data laid out in rows (lines of a table, fixed-length records, arrays of
8-byte numbers, machine code) predicts a byte from the one above it, one
record back or one stride back. `record_contexts` hashes those contexts
for a stream's next byte; `note_line` and `note_record` keep the state
they read: where the current and the previous line start, and the record
length, found as paq8's record model does.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import INLINE, context_hash
from fade.statistics.parts import (ABOVE, COLUMN, F_COLUMNS, F_RECORD, F_STRIDE, RECORD1,
                                   RECORD2, STRIDE1, STRIDE2)
from fade.statistics.state import (S_ABOVE, S_BASE, S_HISTORY, S_LINE, S_POSITION, S_RECORD,
                                   S_RECORD_SEEN, SCRATCH_HASHES)


@nb.njit(**INLINE)
def record_contexts(scratch, streams, buffer, s, parts):
    """Hash stream s's column (F_COLUMNS), record (F_RECORD) and stride
    (F_STRIDE) contexts for its next byte into the scratch."""
    history = streams[s, S_HISTORY]
    position = streams[s, S_POSITION]
    start = streams[s, S_BASE]
    if parts & F_COLUMNS:
        line = streams[s, S_LINE]
        column = position - line
        above = 0
        if line > 0 and streams[s, S_ABOVE] + column < line:
            above = np.int64(buffer[start + streams[s, S_ABOVE] + column])
        scratch[SCRATCH_HASHES + ABOVE] = context_hash(above * 256 + (history & 255), 44)
        scratch[SCRATCH_HASHES + COLUMN] = context_hash(above * 4096 + min(column, 4095), 45)
    if parts & F_RECORD:
        r = streams[s, S_RECORD]
        back1 = 0  # the bytes one and two records back
        back2 = 0
        if r > 0 and position >= 2 * r:
            back1 = np.int64(buffer[start + position - r])
            back2 = np.int64(buffer[start + position - 2 * r])
        r = min(r, 4095)
        scratch[SCRATCH_HASHES + RECORD1] = context_hash(
            ((back1 << 8) | (history & 255)) * 4096 + r, 57)
        scratch[SCRATCH_HASHES + RECORD2] = context_hash(((back1 << 8) | back2) * 4096 + r, 58)
    if parts & F_STRIDE:
        back8 = np.int64(buffer[start + position - 8]) if position >= 8 else 0
        back16 = np.int64(buffer[start + position - 16]) if position >= 16 else 0
        lane = position & 7
        scratch[SCRATCH_HASHES + STRIDE1] = context_hash((lane << 16) | (back8 << 8) | back16, 61)
        scratch[SCRATCH_HASHES + STRIDE2] = context_hash(
            (lane << 16) | (back16 << 8) | (history & 255), 62)


@nb.njit(**INLINE)
def note_line(streams, s, byte):
    """After a newline, the line it ends is the one above the next."""
    if byte == 10:
        streams[s, S_ABOVE] = streams[s, S_LINE]
        streams[s, S_LINE] = streams[s, S_POSITION]


@nb.njit(**INLINE)
def note_record(streams, recent, s, byte):
    """F_RECORD: the record length is a distance d > 3 at which a byte value
    came twice in a row (d since its last time, and d before that), once
    three such repeats (of any values) agree on d with none at another
    distance between them."""
    here = streams[s, S_POSITION] - 1
    d = here - (recent[s, byte] - 1) if recent[s, byte] > 0 else 0
    if d > 3 and d == recent[s, 256 + byte]:
        seen = streams[s, S_RECORD_SEEN]  # d << 16 | how many repeats agreed on it
        if d == seen >> 16:
            seen += 1 if (seen & 0xFFFF) < 0xFFFF else 0
        else:
            seen = (d << 16) | 1
        streams[s, S_RECORD_SEEN] = seen
        if (seen & 0xFFFF) >= 3:
            streams[s, S_RECORD] = d
    recent[s, 256 + byte] = d
    recent[s, byte] = here + 1
