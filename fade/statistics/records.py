"""Contexts for tables, records and arrays: columns, record lengths, strides.

Data laid out in rows (lines of a table, fixed-length records, arrays of
8-byte numbers, machine code) predicts a byte from the one above it, one
record back or one stride back. `record_contexts` hashes those contexts
for a stream's next byte; `note_line` and `note_record` keep the state
they read: where the current and the previous line start, and the record
length, found as paq8's record model does. With F_RECORDS, the contexts
add the column (the place in the record) and a second record length, which
`note_lengths` finds among two candidates that count their repeats, and
`record_set` picks a weight set by the column once `record_kept` finds the
length well counted. With F_DISTANT, thirteen more
contexts of the bytes at fixed distances back (parts.DISTANT_MASKS), as
paq8's sparse model has them: fields of 2, 4 and 8 bytes, lists of indices.
With F_NUMBERS, seven contexts of numbers in rows (a table of 16-bit
numbers, as an ICC profile's between a JPEG's scans): the byte predicted
from the records before it and from the row before (its length the one of
2 to 64 records that predicts best lately), as a number's high or low byte
or alone, as paq8px's linear prediction model keys its maps by its
predictions (the predictions here of integers, the same on every machine).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT, bit_size, context_hash
from fade.statistics.parts import (ABOVE, COLUMN, DISTANT, DISTANT_MASKS, F_COLUMNS, F_DISTANT,
                                   F_NUMBERS, F_RECORD, F_RECORDS, F_STRIDE, NUMBERS, RECORD1,
                                   RECORD2, RECORD3, RECORD4, RECORD5, STRIDE1, STRIDE2)
from fade.statistics.layouts.records import (ROWS_FIRST, ROWS_LAST, S_LENGTHS, S_LENGTH_COUNTS,
                                             S_RECORD, S_RECORD_SEEN, S_ROWS, S_ROWS_AT)
from fade.statistics.state import SCRATCH_HASHES, S_ABOVE, S_BASE, S_HISTORY, S_LINE, S_POSITION

MASKS = np.array(DISTANT_MASKS, dtype=np.int64)
KEPT = 32  # F_RECORDS: repeats counted at the record length before its column picks weights


@nb.njit(**JIT)
def record_contexts(scratch, streams, buffer, s, parts):
    """Hash stream s's column (F_COLUMNS), record (F_RECORD, F_RECORDS),
    stride (F_STRIDE) and distant (F_DISTANT) contexts for its next byte into
    the scratch."""
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
    r = streams[s, S_RECORD]
    back1, back2 = _records_back(buffer, start, position, r)  # one and two records back
    if parts & F_RECORD:
        scratch[SCRATCH_HASHES + RECORD1] = context_hash(
            ((back1 << 8) | (history & 255)) * 4096 + min(r, 4095), 57)
        scratch[SCRATCH_HASHES + RECORD2] = context_hash(
            ((back1 << 8) | back2) * 4096 + min(r, 4095), 58)
    if parts & F_RECORDS:  # the column with the bytes above; the second length's
        column = min(position % r, 4095) if r > 0 and position >= 2 * r else 0
        key = (column << 12) | min(r, 4095)
        scratch[SCRATCH_HASHES + RECORD3] = context_hash(
            (key << 16) | (back1 << 8) | (history & 255), 104)
        scratch[SCRATCH_HASHES + RECORD4] = context_hash((key << 16) | (back1 << 8) | back2, 105)
        r2 = second_length(streams, s)
        above1, above2 = _records_back(buffer, start, position, r2)
        scratch[SCRATCH_HASHES + RECORD5] = context_hash(
            (((min(r2, 4095) << 8) | above1) << 16) | (above2 << 8) | (history & 255), 106)
    if parts & F_STRIDE:
        back8 = np.int64(buffer[start + position - 8]) if position >= 8 else 0
        back16 = np.int64(buffer[start + position - 16]) if position >= 16 else 0
        lane = position & 7
        scratch[SCRATCH_HASHES + STRIDE1] = context_hash((lane << 16) | (back8 << 8) | back16, 61)
        scratch[SCRATCH_HASHES + STRIDE2] = context_hash(
            (lane << 16) | (back16 << 8) | (history & 255), 62)
    if parts & F_DISTANT:
        _distant_contexts(scratch, buffer, start, position, history)
    if parts & F_NUMBERS:
        _number_contexts(scratch, buffer, start, position, r, _row(streams, s, buffer, r))


@nb.njit(**JIT)
def _back(buffer, start, position, k):
    """The byte k back (0 before the stream's start)."""
    return np.int64(buffer[start + position - k]) if position >= k else np.int64(0)


@nb.njit(**JIT)
def _number(buffer, start, position, k):
    """The 16-bit big-endian number whose low byte is k back."""
    return (_back(buffer, start, position, k + 1) << 8) | _back(buffer, start, position, k)


@nb.njit(**JIT)
def _row(streams, s, buffer, r):
    """F_NUMBERS: the length of a row of records (a table's next dimension),
    ROWS_FIRST to ROWS_LAST records, at which the plane through the bytes a
    record, a row and both back missed least lately (0: none yet); each
    row's misses are measured at the byte just coded, and start again when
    the record length changes."""
    start = streams[s, S_BASE]
    position = streams[s, S_POSITION]
    if streams[s, S_ROWS_AT] != r:
        streams[s, S_ROWS_AT] = r
        for k in range(ROWS_LAST + 1 - ROWS_FIRST):
            streams[s, S_ROWS + k] = -1
    if r <= 0 or r > 1024:
        return 0
    last = _number(buffer, start, position, 1)
    west = _number(buffer, start, position, 1 + r)
    best = 0
    least = np.int64(1) << 62
    for k in range(ROWS_LAST + 1 - ROWS_FIRST):
        row = (k + ROWS_FIRST) * r
        if position <= row + r + 2:
            break
        miss = abs(last - west - _number(buffer, start, position, 1 + row)
                   + _number(buffer, start, position, 1 + row + r)) << 4
        kept = streams[s, S_ROWS + k]
        kept = miss if kept < 0 else kept + ((miss - kept) >> 5)
        streams[s, S_ROWS + k] = kept
        if kept < least:
            least = kept
            best = row
    return best


@nb.njit(**JIT)
def _number_contexts(scratch, buffer, start, position, r, r2):
    """F_NUMBERS, with the record length r and the row's length r2: the
    next byte as a 16-bit big-endian number's low byte (its high one the
    last byte) and as its high byte, the number predicted as the line 2a - b
    through the numbers one (a) and two (b) records back, with how far that
    line missed one record back; the byte as the line through the bytes one
    and two records back, and as the byte one record back changed as the
    last byte (number) changed from one record back; the byte (number) as
    the plane through the ones one record, one row, and both back."""
    last = _back(buffer, start, position, 1)
    low = high = line = 0
    if r > 0 and position > 3 * r + 1:
        for o in range(2):  # the byte as the low one (o 0), as the high one (o 1)
            a = _number(buffer, start, position, r - o)
            b = _number(buffer, start, position, 2 * r - o)
            miss = bit_size(a - 2 * b + _number(buffer, start, position, 3 * r - o))
            if o == 0:
                low = ((min(max(2 * a - b - (last << 8), -1), 256) + 2) << 4) | miss
            else:
                high = ((min(max(2 * a - b, -256), 65791) >> 6) + 8) << 4 | miss
        a = _back(buffer, start, position, r)
        b = _back(buffer, start, position, 2 * r)
        line = ((min(max(2 * a - b, -1), 256) + 2) << 4) | bit_size(
            a - 2 * b + _back(buffer, start, position, 3 * r))
    scratch[SCRATCH_HASHES + NUMBERS] = context_hash(low, 300)
    scratch[SCRATCH_HASHES + NUMBERS + 1] = context_hash(high, 301)
    scratch[SCRATCH_HASHES + NUMBERS + 2] = context_hash(line, 302)
    across = across16 = 0
    if r > 2 and position > 2 * r:
        a = _back(buffer, start, position, r)
        across = ((min(max(a + last - _back(buffer, start, position, r + 1), -1), 256) + 2) << 4) \
            | bit_size(a - _back(buffer, start, position, 2 * r))
        a = _number(buffer, start, position, r)
        across16 = min(max(a + _number(buffer, start, position, 2)
                           - _number(buffer, start, position, r + 2) - (last << 8), -1), 256) + 2
    scratch[SCRATCH_HASHES + NUMBERS + 3] = context_hash(across, 303)
    scratch[SCRATCH_HASHES + NUMBERS + 4] = context_hash(across16, 304)
    plane = plane16 = 0
    if r > 0 and r2 > 0 and position > r + r2 + 1:
        a = _back(buffer, start, position, r) + _back(buffer, start, position, r2) - _back(
            buffer, start, position, r + r2)
        plane = ((min(max(a, -1), 256) + 2) << 12) | min(r2, 4095)
        a = _number(buffer, start, position, r) + _number(buffer, start, position, r2) - _number(
            buffer, start, position, r + r2)
        plane16 = ((min(max(a - (last << 8), -1), 256) + 2) << 12) | min(r2, 4095)
    scratch[SCRATCH_HASHES + NUMBERS + 5] = context_hash(plane, 305)
    scratch[SCRATCH_HASHES + NUMBERS + 6] = context_hash(plane16, 306)


@nb.njit(**JIT)
def _distant_contexts(scratch, buffer, start, position, history):
    """F_DISTANT: each mask's bytes back (DISTANT_MASKS; 0 before the
    stream's start), after the mask's place, hashed."""
    older = np.int64(0)  # bytes 7 to 10 back, the nearest lowest
    for k in range(10, 6, -1):
        older = (older << 8) | (np.int64(buffer[start + position - k]) if position >= k else 0)
    for j in range(len(MASKS)):
        mask = MASKS[j]
        context = np.int64(j + 1)
        for k in range(10):
            if mask >> k & 1:
                byte = (history >> (8 * k)) & 255 if k < 6 else (older >> (8 * (k - 6))) & 255
                context = (context << 8) | byte
        scratch[SCRATCH_HASHES + DISTANT + j] = context_hash(context, 200 + j)


@nb.njit(**JIT)
def _records_back(buffer, start, position, r):
    """The bytes r and 2r back from stream place `position` (the stream's
    bytes start at buffer[start]); 0 and 0 without a length r or before 2r."""
    if r > 0 and position >= 2 * r:
        return np.int64(buffer[start + position - r]), np.int64(buffer[start + position - 2 * r])
    return np.int64(0), np.int64(0)


@nb.njit(**JIT)
def note_line(streams, s, byte):
    """After a newline, the line it ends is the one above the next."""
    if byte == 10:
        streams[s, S_ABOVE] = streams[s, S_LINE]
        streams[s, S_LINE] = streams[s, S_POSITION]


@nb.njit(**JIT)
def note_record(streams, recent, s, byte, parts):
    """F_RECORD: the record length is a distance d > 3 at which a byte value
    came twice in a row (d since its last time, and d before that), once
    three such repeats (of any values) agree on d with none at another
    distance between them. F_RECORDS: each such repeat counts for its d
    among two candidate lengths (`note_lengths`)."""
    here = streams[s, S_POSITION] - 1
    d = here - (recent[s, byte] - 1) if recent[s, byte] > 0 else 0
    repeat = d > 3 and d == recent[s, 256 + byte]
    if repeat and parts & F_RECORDS:
        note_lengths(streams, s, d)
    if repeat and parts & F_RECORD:
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


@nb.njit(**JIT)
def second_length(streams, s):
    """F_RECORDS: the candidate length that is not the record length, with
    the more repeats (at least 4), else 0."""
    r = streams[s, S_RECORD]
    best = 0
    most = 3
    for k in range(2):
        length = streams[s, S_LENGTHS + k]
        if length != r and streams[s, S_LENGTH_COUNTS + k] > most:
            best = length
            most = streams[s, S_LENGTH_COUNTS + k]
    return best


@nb.njit(**JIT)
def note_lengths(streams, s, d):
    """F_RECORDS: a repeat at distance d counts for d among two candidate
    lengths (replacing the one with fewer, the second on a tie, where d is
    neither), as paq8's record model keeps two; counts halve at 255."""
    for k in range(2):
        if streams[s, S_LENGTHS + k] == d:
            streams[s, S_LENGTH_COUNTS + k] += 1
            if streams[s, S_LENGTH_COUNTS + k] >= 255:
                for j in range(2):
                    streams[s, S_LENGTH_COUNTS + j] >>= 1
            return
    k = 0 if streams[s, S_LENGTH_COUNTS] < streams[s, S_LENGTH_COUNTS + 1] else 1
    streams[s, S_LENGTHS + k] = d
    streams[s, S_LENGTH_COUNTS + k] = 1


@nb.njit(**JIT)
def record_set(streams, s):
    """F_RECORDS' weight set (times 8, before the bit position), where
    `record_kept`: the column (the last for columns 63 and on)."""
    return min(streams[s, S_POSITION] % streams[s, S_RECORD], 63)


@nb.njit(**JIT)
def record_kept(streams, s):
    """F_RECORDS: whether the record length is one of the two candidates
    with at least KEPT repeats counted (where the column's weight set pays;
    a length found by chance, in map tiles, made it cost 1%)."""
    r = streams[s, S_RECORD]
    if r <= 0:
        return False
    for k in range(2):
        if streams[s, S_LENGTHS + k] == r and streams[s, S_LENGTH_COUNTS + k] >= KEPT:
            return True
    return False
