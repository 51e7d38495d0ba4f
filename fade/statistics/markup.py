"""Contexts for markup (XML, HTML): a byte by the field it is in, and that field last time.

In markup what predicts a value is whose value it is: the element that is
open, its parent, the attribute being given; and what that same attribute
of that same element held the last time it came (the table's row above,
wherever the record happens to lie). `note_markup` follows the tags as the
bytes come (text, a tag's name, its attributes, a value quoted or not, a
closing tag, a comment or declaration), keeping a stack of the open
elements' names; each value and each text between tags is a field keyed
by its element, its parent and its attribute (a text: by its element and
parent), and a small table per stream (in Tables.recent, after F_RECORD's
part) keeps where each key's last field lay in the buffer. Elsewhere (a
name, between attributes) the key is what comes before: the parent and
the element closed last, or the element and its attribute before.

`markup_contexts` hashes from them the three field contexts of a table
(fade.statistics.tables: the key with the place in the field, the byte
above and the last byte; the key with the field's bytes so far; the field
above's bytes with the key, the place, the byte after the one above and
the last byte) and three of its own: the text alone (the tags between
skipped) of orders 3 and 6, and the value before in the same tag at the
same place (in text: the tag's last value, such as a language, with the
current word); and with F_LENGTH a fourth, the field's
length so far against the field above's with the key and the last byte
(where a text or a value ends: a translation is about as long as the one
before it). The weight sets: by the key (S_FIELD, in place
of a table's field index) and by where the byte is and its place
(S_M_PLACE). With F_FIELD_ORDERS, two low orders
keyed by the text's language (in tags by the field's key), and with
F_FIELD_ORDER1 order 1 keyed the same way.
With F_SOURCE, in text the current word with its place among
the text's words, keyed by the text's language and the last word of the
last text whose tag gave no value (the original that a translation
follows: its kind of thing, "document", "image", "archive", which each
language words its own way). The reference for the parts F_MARKUP, F_LENGTH, F_FIELD_ORDERS,
F_FIELD_ORDER1 and F_SOURCE (docs/format.md).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.contexts import in_word
from fade.statistics.kernels import JIT, bytes_hash, context_hash
from fade.statistics.parts import (F_FIELD_ORDER1, F_FIELD_ORDERS, F_SOURCE, FIELD1, FIELD2,
                                   FIELD3, FIELD_LENGTH, MARKUP_HIGH, MARKUP_LEFT, MARKUP_LOW,
                                   MARKUP_ONE, MARKUP_SOURCE, MARKUP_TEXT1, MARKUP_TEXT2)
from fade.statistics.layouts.markup import (
    MARKUP_FIELDS, MARKUP_STACK, S_M_ATTRIBUTE, S_M_DEPTH, S_M_KEY, S_M_LEFT_END,
    S_M_LEFT_START, S_M_MODE, S_M_PLACE, S_M_QUOTE, S_M_SIBLING, S_M_SOURCE, S_M_STACK,
    S_M_TEXTS, S_M_TEXT_WORDS, S_M_VALUE)
from fade.statistics.state import (
    RECENT, SCRATCH_HASHES, S_BASE, S_HISTORY, S_POSITION, S_WORD, S_WORD2)
from fade.statistics.layouts.tables import (
    S_ABOVE_END, S_ABOVE_HASH, S_ABOVE_START, S_FIELD, S_FIELD_HASH, S_FIELD_START)
from fade.statistics.tables import length_against, place_above

# Where the next byte is: text between tags, a tag's name, between a tag's
# attributes, inside a quoted value, a closing tag, a comment or declaration.
M_TEXT, M_NAME, M_TAG, M_VALUE, M_CLOSE, M_SPECIAL = range(6)


@nb.njit(**JIT)
def markup_contexts(scratch, streams, buffer, s, parts):
    """Hash stream s's markup contexts for its next byte into the scratch;
    with F_FIELD_ORDERS in the model's `parts`, two low orders by the field,
    with F_FIELD_ORDER1 order 1 by it too, and with F_SOURCE a text's word
    by its language and its original's last word."""
    c1 = streams[s, S_HISTORY] & 255
    key = streams[s, S_M_KEY]
    offset, above, after = place_above(streams, buffer, s)
    scratch[SCRATCH_HASHES + FIELD1] = context_hash(
        key, (offset << 18) | (above << 9) | c1)
    scratch[SCRATCH_HASHES + FIELD2] = context_hash(key * 0x2F0F3A55 + streams[s, S_FIELD_HASH],
                                                    72)
    scratch[SCRATCH_HASHES + FIELD3] = context_hash(
        streams[s, S_ABOVE_HASH] * 0x9E3779B1 + key,
        (((offset << 9) | after) << 8) | c1)
    mode = streams[s, S_M_MODE]
    texts = streams[s, S_M_TEXTS]
    scratch[SCRATCH_HASHES + MARKUP_TEXT1] = context_hash(texts & 0xFFFFFF, mode * 256 + c1)
    scratch[SCRATCH_HASHES + MARKUP_TEXT2] = context_hash(texts & 0xFFFFFFFFFFFF,
                                                          (mode + 8) * 256 + c1)
    scratch[SCRATCH_HASHES + FIELD_LENGTH] = context_hash(
        key, (length_against(streams, s) << 8) | c1)
    left = 256  # the byte at this place in the value before in this tag
    start = streams[s, S_M_LEFT_START]
    if mode == M_VALUE and start >= 0 and start + offset < streams[s, S_M_LEFT_END]:
        left = np.int64(buffer[start + offset])
    if mode == M_TEXT:  # the text by the last value its tag gave (a language) instead
        scratch[SCRATCH_HASHES + MARKUP_LEFT] = context_hash(
            streams[s, S_M_VALUE] * 8 + mode, streams[s, S_WORD] * 256 + c1)
    else:
        scratch[SCRATCH_HASHES + MARKUP_LEFT] = context_hash(
            streams[s, S_M_ATTRIBUTE] * 8 + mode, (offset << 18) | (left << 9) | c1)
    if parts & F_FIELD_ORDERS:  # orders 0 and 3 by the text's language; 2 and 3 by the key
        history = streams[s, S_HISTORY]
        by = streams[s, S_M_VALUE] if mode == M_TEXT else key
        scratch[SCRATCH_HASHES + MARKUP_LOW] = context_hash(
            by * 16 + mode, (0 if mode == M_TEXT else history & 0xFFFF) + (1 << 30))
        scratch[SCRATCH_HASHES + MARKUP_HIGH] = context_hash(
            by * 16 + mode, (history & 0xFFFFFF) + (1 << 40))
        if parts & F_FIELD_ORDER1:
            scratch[SCRATCH_HASHES + MARKUP_ONE] = context_hash(
                by * 16 + mode, (history & 0xFF) + (1 << 31))
    if parts & F_SOURCE:  # in text: the word, its place, the language, the original's last word
        if mode == M_TEXT:
            scratch[SCRATCH_HASHES + MARKUP_SOURCE] = context_hash(
                (streams[s, S_M_VALUE] * 0x9E3779B1 + streams[s, S_M_SOURCE]) * 4
                + min(streams[s, S_M_TEXT_WORDS], 3), streams[s, S_WORD] + (1 << 50))
        else:  # elsewhere (little to say): the key and the mode
            scratch[SCRATCH_HASHES + MARKUP_SOURCE] = context_hash(key, (1 << 51) + mode)


@nb.njit(**JIT)
def _is_name(byte):
    """A byte of an element's or attribute's name (ASCII letters, digits,
    - _ . : and any byte of a UTF-8 sequence)."""
    return (97 <= (byte | 32) <= 122) or 48 <= byte <= 58 or byte == 45 or byte == 95 \
        or byte == 46 or byte >= 128


@nb.njit(**JIT)
def _element(streams, s, depth):
    """The name (hashed) of the element open at `depth` (1: the outermost;
    0 where none or deeper than the stack keeps)."""
    if depth < 1 or depth > MARKUP_STACK:
        return np.int64(0)
    return streams[s, S_M_STACK + depth - 1]


@nb.njit(**JIT)  # compiled apart (its arguments as int64: once), not copied at six places
def _begin(streams, recent, s, mode, key, field):
    """The next byte starts a field of `key` (`field`: whether one whose last
    place the table keeps, a value or a text) in `mode`."""
    streams[s, S_M_MODE] = mode
    streams[s, S_M_KEY] = key
    streams[s, S_FIELD_START] = streams[s, S_POSITION]
    streams[s, S_FIELD_HASH] = 0
    streams[s, S_ABOVE_START] = -1
    streams[s, S_ABOVE_END] = -1
    streams[s, S_ABOVE_HASH] = 0
    if field:
        at = RECENT + 4 * (key & (MARKUP_FIELDS - 1))
        if recent[s, at] == key:
            streams[s, S_ABOVE_START] = recent[s, at + 1]
            streams[s, S_ABOVE_END] = recent[s, at + 2]
            streams[s, S_ABOVE_HASH] = recent[s, at + 3]


@nb.njit(**JIT)
def _end(streams, recent, s):
    """The field ends with the byte just coded: the table keeps its place
    (from its start to before that byte, which it returns) and its bytes'
    hash for its key."""
    key = streams[s, S_M_KEY]
    at = RECENT + 4 * (key & (MARKUP_FIELDS - 1))
    base = streams[s, S_BASE]
    start = base + streams[s, S_FIELD_START]
    end = base + streams[s, S_POSITION] - 1
    recent[s, at] = key
    recent[s, at + 1] = start
    recent[s, at + 2] = end
    recent[s, at + 3] = streams[s, S_FIELD_HASH]
    return start, end


@nb.njit(**JIT)
def _text(streams, recent, s):
    """Text follows a tag: keyed by its element and the parent."""
    depth = streams[s, S_M_DEPTH]
    key = context_hash(_element(streams, s, depth) * 0x9E3779B1 + _element(streams, s, depth - 1),
                       M_TEXT)
    streams[s, S_M_TEXT_WORDS] = 0
    _begin(streams, recent, s, np.int64(M_TEXT), key, np.int64(1))


@nb.njit(**JIT)
def note_markup(streams, recent, s, byte, source):
    """Follow the markup after `byte` (before note_byte moves the words on;
    with `source`, F_SOURCE's words of the text too); the next byte's weight
    sets: by its field's key (S_FIELD, 64 ways) and by its mode and place
    (S_M_PLACE)."""
    mode = streams[s, S_M_MODE]
    token = streams[s, S_FIELD_HASH]
    depth = streams[s, S_M_DEPTH]
    if mode == M_TEXT:
        if source and not in_word(byte) and streams[s, S_WORD] != 0:  # a word of the text ends
            streams[s, S_M_TEXT_WORDS] += 1
        if byte == 60:  # <
            if source and streams[s, S_M_TEXT_WORDS] > 0 and streams[s, S_M_VALUE] == 0:
                # an original's last word: the one < ends, else the one before
                # (note_byte moved it to S_WORD2 as it ended, inside this text)
                last = streams[s, S_WORD]
                streams[s, S_M_SOURCE] = last if last != 0 else streams[s, S_WORD2]
            _end(streams, recent, s)
            key = context_hash(_element(streams, s, depth) * 0x9E3779B1 + streams[s, S_M_SIBLING],
                               M_NAME)
            _begin(streams, recent, s, np.int64(M_NAME), key, np.int64(0))
        else:
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
            streams[s, S_M_TEXTS] = (streams[s, S_M_TEXTS] << 8) | byte
    elif mode == M_NAME:
        if token == 0 and byte == 47:  # </
            key = context_hash(_element(streams, s, depth), M_CLOSE)
            _begin(streams, recent, s, np.int64(M_CLOSE), key, np.int64(0))
        elif token == 0 and (byte == 33 or byte == 63):  # <! or <?
            _begin(streams, recent, s, np.int64(M_SPECIAL), context_hash(byte, M_SPECIAL),
                   np.int64(0))
        elif _is_name(byte):
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
        else:  # the name ends: the element opens
            depth += 1
            streams[s, S_M_DEPTH] = depth
            if depth <= MARKUP_STACK:
                streams[s, S_M_STACK + depth - 1] = token
            streams[s, S_M_SIBLING] = 0
            streams[s, S_M_ATTRIBUTE] = 0
            streams[s, S_M_VALUE] = 0
            streams[s, S_M_LEFT_START] = -1
            _tag(streams, recent, s, byte, depth)
    elif mode == M_TAG:
        if token != 0 and not _is_name(byte):  # an attribute's name ends
            streams[s, S_M_ATTRIBUTE] = token
        if byte == 61:  # =: a value follows, quoted or not
            streams[s, S_M_QUOTE] = 0
            key = context_hash(_element(streams, s, depth) * 0x9E3779B1
                               + _element(streams, s, depth - 1),
                               streams[s, S_M_ATTRIBUTE] * 8 + M_VALUE)
            _begin(streams, recent, s, np.int64(M_VALUE), key, np.int64(1))
        elif _is_name(byte):
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
        else:
            _tag(streams, recent, s, byte, depth)
    elif mode == M_VALUE:
        quote = streams[s, S_M_QUOTE]
        if quote == 0:  # the first byte after =
            if byte == 34 or byte == 39:  # the value is quoted: it starts after the quote
                streams[s, S_M_QUOTE] = byte
                streams[s, S_FIELD_START] = streams[s, S_POSITION]
            elif byte == 32 or byte == 9 or byte == 10 or byte == 13:
                streams[s, S_FIELD_START] = streams[s, S_POSITION]
            else:  # a value without quotes, to the next space or >
                streams[s, S_M_QUOTE] = -1
                streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
        elif byte == quote or (quote < 0 and (byte == 32 or byte == 9 or byte == 10
                                              or byte == 13 or byte == 62)):
            start, end = _end(streams, recent, s)
            streams[s, S_M_LEFT_START] = start
            streams[s, S_M_LEFT_END] = end
            streams[s, S_M_VALUE] = token
            _tag(streams, recent, s, byte, depth)
        else:
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
    elif mode == M_CLOSE:
        if byte == 62:  # >: the element closes
            streams[s, S_M_SIBLING] = _element(streams, s, depth)
            streams[s, S_M_DEPTH] = max(depth - 1, 0)
            _text(streams, recent, s)
        else:
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
    else:  # M_SPECIAL: a comment, declaration or instruction, to its >
        if byte == 62:
            _text(streams, recent, s)
        else:
            streams[s, S_FIELD_HASH] = bytes_hash(token, byte)
    streams[s, S_FIELD] = (streams[s, S_M_KEY] >> 20) & 63
    streams[s, S_M_PLACE] = streams[s, S_M_MODE] * 8 + min(
        streams[s, S_POSITION] - streams[s, S_FIELD_START], 7)


@nb.njit(**JIT)
def _tag(streams, recent, s, byte, depth):
    """Inside an element's tag, after `byte` (not a name's, not an opening
    quote; S_HISTORY still ends with the byte before it): > ends the tag
    (/> closes the element too)."""
    if byte == 62:
        if (streams[s, S_HISTORY] & 255) == 47:  # />
            streams[s, S_M_SIBLING] = _element(streams, s, depth)
            streams[s, S_M_DEPTH] = max(depth - 1, 0)
        _text(streams, recent, s)
    else:  # between attributes: keyed by the element and the attribute before
        key = context_hash(_element(streams, s, depth), streams[s, S_M_ATTRIBUTE] * 8 + M_TAG)
        _begin(streams, recent, s, np.int64(M_TAG), key, np.int64(0))
