"""Thirteen more contexts of the text around the byte (part F_TEXT).

Beside the word contexts (fade.statistics.words), these read the text as
paq8's word model does, looking past what separates words: the last five
letters and digits (lower-cased) whatever bytes lie between them, alone,
the three before the last two (the third to fifth last) with the last
byte, and all five with the word before; the bytes'
groups (a small letter, a capital, a digit, a byte of 128 or more by its
top two bits, any other byte itself: the punctuation kept, the letters
merged), of the last six bytes, of the last four with the last byte, of
the last two with those two bytes; the column (up to 255) with the last
byte; the current word's shape (its last eight letters, each an e, another
vowel, a y or a consonant) with the last byte and the word's length; the
current word with the word before and the gap since it, and the gap with
the two words before (where a phrase goes on after a comma or a line's
end); the line's first byte with the column (up to 63) and the last byte's
group; the two bytes above (in the line above, at this column and the
next) with the last byte; and the current word with its case (no capitals,
only the first, more) and its length (up to 3). The ideas are those of
paq8's word model (Mahoney, and paq8px's authors); these contexts are
chosen and written here, and measured together (docs/history/statistics-0.11.md,
"Model 132"). The word state they read is kept by F_WORDS, which F_TEXT
needs. With F_TEXT2, thirteen more: the line's bytes so far
(its place alone, and with the last byte: orders 0 and 1 within the line),
its first byte and its first word with the last byte, the current word
with the KiB it is in, the kinds of the last sixteen bytes (letter, digit,
space, other), of the last twelve with the last two bytes, the column
with the last four kinds, with whether the last byte is a space and with
the line above's length, the current word with the word two back and the
gap, the last four letters and digits with the last two bytes, and the
two words before with the last byte ("Model 133"). With F_TEXT3, twelve
more: the bytes' groups with a run of letters (or of digits)
kept as one group, so that a word's or a number's length drops out and the
punctuation of the last words shows (the last seven, fourteen, four, two
groups with whether the last byte continued a run; five and six with the
last three and two bytes), as paq8px's character-group model has them;
and the brackets and quotes open (nest_state) with the last byte and how
long ago they changed, with the current word, with the last five bytes'
classes (vowel, consonant, space, stop, line end, digit, other), with the
last two bytes, and the classes with runs as one; the last six classes
with the last byte. F_SETS5 keys two more weight sets by the groups and
by the classes (text_sets).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT, context_hash, floor_log2
from fade.statistics.parts import F_TEXT2, F_TEXT3, TEXT, TEXT2, TEXT3
from fade.statistics.state import (
    SCRATCH_HASHES, SET11, S_ABOVE, S_BASE, S_HISTORY, S_LINE, S_POSITION, S_WORD, S_WORD2,
    S_WORD3)
from fade.statistics.layouts.text import (
    S_T3_CLASSES, S_T3_GROUPS, S_T3_NEST, S_T3_OLDER, S_T3_RUN, S_T3_RUNS, S_T3_SINCE)
from fade.statistics.layouts.words import S_W_GAP, S_W_KINDS, S_W_LINE

_SPREAD = 0x3A8F05C5  # odd multipliers that spread one hash before another is added
_MIX = 0x2F0F3A55
_LOOK_BACK = 48  # bytes read back for the last letters and digits and the word's shape


@nb.njit(**JIT)
def _group(c):
    """A byte's group: 97 for a small letter, 65 a capital, 48 a digit, 128
    + its top two bits for one of 128 or more, any other byte itself."""
    if 97 <= c <= 122:
        return 97
    if 65 <= c <= 90:
        return 65
    if 48 <= c <= 57:
        return 48
    if c >= 128:
        return 128 + (c >> 6)
    return c


@nb.njit(**JIT)
def _letter_shape(c):
    """A letter's place in a word's shape: 1 for e, 2 another vowel, 3 y, 4 a consonant."""
    lower = c | 32
    if lower == 101:
        return 1
    if lower == 97 or lower == 105 or lower == 111 or lower == 117:
        return 2
    return 3 if lower == 121 else 4


@nb.njit(**JIT)
def _read_back(buffer, start, position):
    """From the bytes before `position`: the last five letters and digits
    (lower-cased, a byte each, the nearest highest) and the last four, and
    of the current word (the letters just before; none after a byte that is
    not a letter) its shape (its last eight letters, base 5, the nearest
    highest), its letters and its capitals."""
    text = np.int64(0)
    four = np.int64(-1)
    found = 0
    shape = np.int64(0)
    in_word = True
    letters = 0
    capitals = 0
    k = 1
    while k <= _LOOK_BACK and position - k >= 0 and (found < 5 or in_word):
        c = np.int64(buffer[start + position - k])
        letter = 97 <= (c | 32) <= 122
        if found < 5 and (letter or 48 <= c <= 57):
            text = (text << 8) | (c | 32 if c >= 65 else c)
            found += 1
            if found == 4:
                four = text
        if in_word:
            if letter:
                letters += 1
                if c < 97:
                    capitals += 1
                if letters <= 8:
                    shape = shape * 5 + _letter_shape(c)
            else:
                in_word = False
        k += 1
    return text, four if four >= 0 else text, shape, letters, capitals


@nb.njit(**JIT)
def text_contexts(scratch, streams, buffer, s, parts):
    """Hash stream s's thirteen text contexts for its next byte into the
    scratch, and with F_TEXT2 thirteen more."""
    history = streams[s, S_HISTORY]
    position = streams[s, S_POSITION]
    start = streams[s, S_BASE]
    last = history & 255
    word = streams[s, S_WORD]
    before = streams[s, S_WORD2]
    gap = streams[s, S_W_GAP]
    text, four, shape, letters, capitals = _read_back(buffer, start, position)
    groups = np.int64(0)
    for b in range(6):
        groups = (groups << 8) | _group((history >> (8 * b)) & 255)
    line = streams[s, S_LINE]
    column = position - line
    first = np.int64(buffer[start + line]) if line < position else 0
    above = np.int64(0)
    next_above = np.int64(0)
    if line > 0 and streams[s, S_ABOVE] + column + 1 < line:
        above = np.int64(buffer[start + streams[s, S_ABOVE] + column])
        next_above = np.int64(buffer[start + streams[s, S_ABOVE] + column + 1])
    case = 0 if capitals == 0 else (1 if capitals == 1 and letters > 1 else 2)
    at = SCRATCH_HASHES + TEXT
    scratch[at] = context_hash(text, 300)
    scratch[at + 1] = context_hash(((text & 0xFFFFFF) << 8) | last, 301)
    scratch[at + 2] = context_hash(groups, 302)
    scratch[at + 3] = context_hash(((groups & 0xFFFFFFFF) << 8) | last, 303)
    scratch[at + 4] = context_hash((min(column, 255) << 8) | last, 304)
    scratch[at + 5] = context_hash((shape * 256 + last) * 16 + min(letters, 15), 305)
    scratch[at + 6] = context_hash((word + before * _SPREAD) * _MIX + gap, 306)
    scratch[at + 7] = context_hash((gap * _SPREAD + before) * _MIX + streams[s, S_WORD3], 307)
    scratch[at + 8] = context_hash(text * _SPREAD + before, 308)
    scratch[at + 9] = context_hash(((groups & 0xFFFF) << 16) | (history & 0xFFFF), 309)
    scratch[at + 10] = context_hash((first << 16) | (min(column, 63) << 8) | _group(last), 310)
    scratch[at + 11] = context_hash((above << 16) | (next_above << 8) | last, 311)
    scratch[at + 12] = context_hash(word * 16 + case * 4 + min(letters, 3), 312)
    if parts & F_TEXT2:
        _more_contexts(scratch, streams, s, history, position, line, first, four)
    if parts & F_TEXT3:
        _nest_contexts(scratch, streams, s, history)


@nb.njit(**JIT)
def _more_contexts(scratch, streams, s, history, position, line, first, four):
    """F_TEXT2: hash stream s's thirteen further text contexts into the scratch."""
    last = history & 255
    word = streams[s, S_WORD]
    kinds = streams[s, S_W_KINDS]
    column = min(position - line, 255)
    above = min(line - streams[s, S_ABOVE], 255) if line > 0 else 0
    at = SCRATCH_HASHES + TEXT2
    scratch[at] = context_hash(line + 1, 400)
    scratch[at + 1] = context_hash((line + 1) * 256 + last, 401)
    scratch[at + 2] = context_hash(first * 256 + last, 402)
    scratch[at + 3] = context_hash(streams[s, S_W_LINE] * 256 + last, 403)
    scratch[at + 4] = context_hash(word * _SPREAD + (position >> 10), 404)
    scratch[at + 5] = context_hash(kinds & 0xFFFFFFFF, 405)
    scratch[at + 6] = context_hash(((kinds & 0xFFFFFF) << 16) | (history & 0xFFFF), 406)
    scratch[at + 7] = context_hash((column << 8) | (kinds & 0xFF), 407)
    scratch[at + 8] = context_hash((column << 1) | (1 if last == 32 else 0), 408)
    scratch[at + 9] = context_hash((column << 8) | above, 409)
    scratch[at + 10] = context_hash(
        (word + streams[s, S_WORD3] * _SPREAD) * _MIX + streams[s, S_W_GAP], 410)
    scratch[at + 11] = context_hash((four << 16) | (history & 0xFFFF), 411)
    scratch[at + 12] = context_hash(
        ((streams[s, S_WORD2] * _SPREAD + streams[s, S_WORD3]) << 8) | last, 412)


_SEVEN = 0xFFFFFFFFFFFFFF  # seven groups of 8 bits
_NEST_LIMIT = 7  # a bracket's depth saturates here
_NEST_FORGET = 1024  # bytes without a bracket or quote after which those open are forgotten
_OPENING = np.array([40, 91, 123, 60])  # ( [ { <, their depths in nest from bit 0, 3 bits each
_CLOSING = np.array([41, 93, 125, 62])  # ) ] } >


@nb.njit(**JIT)
def _class(c):
    """A byte's class: 1 a vowel, 2 another letter, 3 a space, 4 a stop, comma,
    colon, semicolon, ! or ?, 5 a line's end, 6 a digit, 7 any other byte."""
    lower = c | 32
    if 97 <= lower <= 122:
        return 1 if lower == 97 or lower == 101 or lower == 105 or lower == 111 or \
            lower == 117 else 2
    if c == 32:
        return 3
    if c == 46 or c == 44 or c == 58 or c == 59 or c == 33 or c == 63:
        return 4
    if c == 10:
        return 5
    return 6 if 48 <= c <= 57 else 7


@nb.njit(**JIT)
def _depth(nest, shift, step):
    """nest with the 3-bit depth at `shift` moved by step (+1 or -1), kept in 0..7."""
    depth = (nest >> shift) & 7
    depth = min(max(depth + step, 0), _NEST_LIMIT)
    return (nest & ~(np.int64(7) << shift)) | (depth << shift)


@nb.njit(**JIT)
def nest_state(nest, byte, last):
    """The brackets and quotes open after `byte` (the byte before it `last`):
    the depths of ( [ { < (3 bits each, from bit 0), whether a double quote
    is open (bit 12), a doubled single quote (a wiki's italics, bit 13), and
    whether an equals sign came (bit 14: a heading, a template's value, an
    attribute's); a line's end or a vertical bar clears bits 12 to 14."""
    for k in range(4):
        if byte == _OPENING[k]:
            return _depth(nest, 3 * k, 1)
        if byte == _CLOSING[k]:
            return _depth(nest, 3 * k, -1)
    if byte == 34:
        return nest ^ (1 << 12)
    if byte == 39 and last == 39:
        return nest ^ (1 << 13)
    if byte == 61 and last != 61:
        return nest | (1 << 14)
    if byte == 10 or byte == 124:
        return nest & 0xFFF
    return nest


@nb.njit(**JIT)
def note_text3(streams, s, byte):
    """F_TEXT3: stream s's groups, brackets and classes after `byte`."""
    last = streams[s, S_HISTORY] & 255  # (the byte before: note_byte comes after)
    group = np.int64(_group(byte))
    run = 1 if (group == 97 or group == 65 or group == 48) and group == (
        streams[s, S_T3_GROUPS] & 255) else 0
    if not run:
        groups = streams[s, S_T3_GROUPS]
        streams[s, S_T3_OLDER] = ((streams[s, S_T3_OLDER] << 8) | (groups >> 48)) & _SEVEN
        streams[s, S_T3_GROUPS] = ((groups << 8) | group) & _SEVEN
    streams[s, S_T3_RUN] = run
    nest = streams[s, S_T3_NEST]
    changed = nest_state(nest, byte, last)
    if changed != nest:
        streams[s, S_T3_SINCE] = 0
    else:
        streams[s, S_T3_SINCE] += 1
        if streams[s, S_T3_SINCE] > _NEST_FORGET:
            changed = 0
    streams[s, S_T3_NEST] = changed
    kind = np.int64(_class(byte))
    streams[s, S_T3_CLASSES] = ((streams[s, S_T3_CLASSES] << 3) | kind) & 0xFFFFFFFFFFFF
    if kind != streams[s, S_T3_RUNS] & 7:
        streams[s, S_T3_RUNS] = ((streams[s, S_T3_RUNS] << 3) | kind) & 0xFFFFFFFFFFFF


@nb.njit(**JIT)
def _nest_contexts(scratch, streams, s, history):
    """F_TEXT3: hash stream s's twelve group and bracket contexts into the scratch."""
    last = history & 255
    groups = streams[s, S_T3_GROUPS]
    run = streams[s, S_T3_RUN]
    nest = streams[s, S_T3_NEST]
    since = min(streams[s, S_T3_SINCE], 1023)
    since_bits = floor_log2(since) + 1 if since else 0  # (its bits)
    classes = streams[s, S_T3_CLASSES]
    word = streams[s, S_WORD]
    at = SCRATCH_HASHES + TEXT3
    scratch[at] = context_hash(groups * 2 + run, 500)
    scratch[at + 1] = context_hash((groups & 0xFFFFFFFF) * 2 + run, 501)
    scratch[at + 2] = context_hash((groups & 0xFFFF) * 2 + run, 502)
    scratch[at + 3] = context_hash((groups * _SPREAD + streams[s, S_T3_OLDER]) * 2 + run, 503)
    scratch[at + 4] = context_hash(((groups & 0xFFFFFFFFFF) << 24) | (history & 0xFFFFFF), 504)
    scratch[at + 5] = context_hash(((groups & 0xFFFFFFFFFFFF) << 16) | (history & 0xFFFF), 505)
    letter = 1 <= (classes & 7) <= 2  # (the last byte's class: a letter; none before the first)
    scratch[at + 6] = context_hash(
        ((nest << 9) | (256 if letter else last)) * 16 + since_bits, 506)
    scratch[at + 7] = context_hash(word * _SPREAD + nest, 507)
    scratch[at + 8] = context_hash((nest << 15) | (classes & 0x7FFF), 508)
    scratch[at + 9] = context_hash(((classes & 0x3FFFF) << 8) | last, 509)
    scratch[at + 10] = context_hash((streams[s, S_T3_RUNS] & 0x3FFFF) * 65536 + nest, 510)
    scratch[at + 11] = context_hash((nest << 16) | (history & 0xFFFF), 511)


@nb.njit(**JIT)
def text_sets(streams, s, c0, bitpos, base):
    """F_SETS5: stream s's two further weight sets (from `base`), by the
    last three groups (runs as one) with c0, hashed, and by the last three
    bytes' classes with the bit's position."""
    groups = (streams[s, S_T3_GROUPS] & 0xFFFFFF) * 2 + streams[s, S_T3_RUN]
    by_groups = base + (context_hash(groups * 256 + c0, 53) & (SET11 - 1))
    return by_groups, base + SET11 + (streams[s, S_T3_CLASSES] & 511) * 8 + bitpos
