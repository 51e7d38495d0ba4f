"""Word contexts beyond the word and its two predecessors (F_WORDS, text).

The current word with what surrounds it in text: the line's first word, the
bytes between it and the word before (a space, ". ", "\\n\\n", "[["), the
word before with those bytes, the brackets and quotes open around it, and
the word that followed the word before last time (a phrase seen again);
beside them the kinds of the last eight bytes (letters, digits, spaces,
others: the shape of what is being written) with the last byte, and the
current number with the one before it (dates, counts, references); with
F_LINES, the line's length so far against the line above's with
the current word's length and the last byte (`line_context`: where a
book's lines break); with F_RECALL, the letter that
last followed the current word's letters so far, in either case
(`recall_context`: a word met before, in a tag or in other capitals,
completed as it went then). A word is a run of bytes that
fade.statistics.contexts.in_word takes, as for the general contexts, whose
word hashes these read. The ideas are those of
paq8's word model (Mahoney, and paq8px's authors); these contexts are
chosen and written here, each measured (docs/history/statistics-0.11.md, "Model 36").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.contexts import byte_kind, in_word
from fade.statistics.kernels import JIT, context_hash
from fade.statistics.parts import (LINE_LENGTH, WORD_GAP, WORD_KINDS, WORD_LINE, WORD_NEXT,
                                   WORD_NUMBER, WORD_OPEN, WORD_PAIR, WORD_RECALL)
from fade.statistics.state import (
    RECALL, RECALL_AT, SCRATCH_HASHES, S_ABOVE, S_HISTORY, S_LINE, S_POSITION, S_WORD, S_WORD2,
    S_WORDLEN, WORD_FOLLOWERS_AT)
from fade.statistics.layouts.words import (
    S_W_COUNT, S_W_GAP, S_W_GAP_BEFORE, S_W_KINDS, S_W_LINE, S_W_NUMBER, S_W_NUMBER_BEFORE,
    S_W_OPEN)
from fade.statistics.tables import against

_SPREAD = 0x3A8F05C5  # an odd multiplier that spreads one hash before another is added


@nb.njit(**JIT)
def word_contexts(scratch, streams, followers, s):
    """Hash stream s's word contexts for its next byte into the scratch."""
    word = streams[s, S_WORD]
    last = streams[s, S_HISTORY] & 255
    scratch[SCRATCH_HASHES + WORD_LINE] = context_hash(
        word + streams[s, S_W_LINE] * _SPREAD + min(streams[s, S_W_COUNT], 3), 63)
    scratch[SCRATCH_HASHES + WORD_GAP] = context_hash(word + streams[s, S_W_GAP] * _SPREAD, 64)
    scratch[SCRATCH_HASHES + WORD_PAIR] = context_hash(
        (word + streams[s, S_WORD2] * _SPREAD) * 0x2F0F3A55 + streams[s, S_W_GAP_BEFORE], 65)
    scratch[SCRATCH_HASHES + WORD_KINDS] = context_hash(
        (streams[s, S_W_KINDS] & 0xFFFF) * 256 + last, 66)
    scratch[SCRATCH_HASHES + WORD_OPEN] = context_hash(
        word * _SPREAD + (streams[s, S_W_OPEN] & 0xFFFF) * 256 + last, 67)
    scratch[SCRATCH_HASHES + WORD_NUMBER] = context_hash(
        streams[s, S_W_NUMBER] * _SPREAD + streams[s, S_W_NUMBER_BEFORE], 68)
    followed = followers[WORD_FOLLOWERS_AT + (streams[s, S_WORD2] & 0xFFFF)]
    scratch[SCRATCH_HASHES + WORD_NEXT] = context_hash(followed * _SPREAD + word, 69)


@nb.njit(**JIT)
def line_context(scratch, streams, s):
    """F_LINES: hash stream s's line-length context for its next byte: the
    line's length so far against the line above's (tables.against; 16 on
    the first line), the current word's length (up to 15), the last byte."""
    line = streams[s, S_LINE]
    bucket = np.int64(16)
    if line > 0:
        bucket = against(streams[s, S_POSITION] - line - (line - streams[s, S_ABOVE]))
    scratch[SCRATCH_HASHES + LINE_LENGTH] = context_hash(
        ((bucket * 16 + min(streams[s, S_WORDLEN], 15)) << 8) | (streams[s, S_HISTORY] & 255), 75)


@nb.njit(**JIT)
def _recall_slot(streams, s):
    """F_RECALL: where in Tables.followers the letter that last followed
    stream s's current word so far is kept."""
    return RECALL_AT + (context_hash(streams[s, S_WORD], 81) & (RECALL - 1))


@nb.njit(**JIT)
def recall_context(scratch, streams, followers, s):
    """F_RECALL: hash stream s's recall context for its next byte: the letter
    that last followed the current word's letters so far (in either case;
    0: none), the last byte's case (upper, lower or any other byte of a
    word, not a letter) and the word's length (up to 3)."""
    predicted = followers[_recall_slot(streams, s)]
    last = streams[s, S_HISTORY] & 255
    case = 2 if 65 <= last <= 90 else (1 if in_word(last) else 0)
    scratch[SCRATCH_HASHES + WORD_RECALL] = context_hash(
        (predicted * 4 + case) * 4 + min(streams[s, S_WORDLEN], 3), 82)


@nb.njit(**JIT)
def note_recall(followers, streams, s, byte):
    """F_RECALL: `byte`, if a word's, followed the current word so far
    (before note_byte adds it)."""
    if in_word(byte):
        lower = byte + 32 if 65 <= byte <= 90 else byte
        followers[_recall_slot(streams, s)] = lower + 1


@nb.njit(**JIT)
def note_words(followers, streams, s, byte):
    """Stream s's word state after `byte`, before note_byte moves its words on."""
    word = streams[s, S_WORD]
    if in_word(byte):
        if streams[s, S_WORDLEN] == 0:  # a word begins: keep the gap before it
            streams[s, S_W_GAP_BEFORE] = streams[s, S_W_GAP]
    else:
        if word != 0:  # a word ends
            if streams[s, S_W_COUNT] == 0:
                streams[s, S_W_LINE] = word
            streams[s, S_W_COUNT] += 1
            followers[WORD_FOLLOWERS_AT + (streams[s, S_WORD2] & 0xFFFF)] = word
            streams[s, S_W_GAP] = 0
        streams[s, S_W_GAP] = ((streams[s, S_W_GAP] << 8) | byte) & 0xFFFFFFFF
        if byte == 10:
            streams[s, S_W_COUNT] = 0
            streams[s, S_W_LINE] = 0
    streams[s, S_W_KINDS] = ((streams[s, S_W_KINDS] << 2) | byte_kind(byte)) & 0xFFFFFFFF
    opened = streams[s, S_W_OPEN]
    if byte == 40 or byte == 91 or byte == 123 or byte == 60:  # ( [ { <
        opened = (opened << 8) | byte
    elif byte == 41 or byte == 93 or byte == 125 or byte == 62:  # ) ] } >
        opened = opened >> 8
    elif byte == 34:  # a double quote opens, or closes the one open
        opened = (opened >> 8) if (opened & 255) == 34 else ((opened << 8) | 34)
    elif byte == 10 and (opened & 255) == 34:  # a quote left open: forgotten, its place empty
        opened = opened & ~np.int64(255)
    streams[s, S_W_OPEN] = opened & 0xFFFFFFFFFFFF
    if 48 <= byte <= 57:
        streams[s, S_W_NUMBER] = ((streams[s, S_W_NUMBER] + byte + 1) * 0x2F0F3A55) & 0xFFFFFFFFFF
    elif streams[s, S_W_NUMBER] != 0:
        streams[s, S_W_NUMBER_BEFORE] = streams[s, S_W_NUMBER]
        streams[s, S_W_NUMBER] = 0
