"""F_MARKUP's and F_SOURCE's state (fade.statistics.markup; with F_TABLE,
whose field fields it uses as its own)."""

from __future__ import annotations

from fade.statistics.layouts import first

# Where the next byte is (text, a name, a tag, a value...), the field's
# key, the open elements (how many; the names of the outermost
# MARKUP_STACK), the element closed last among the current one's children,
# the attribute named last, the last value given in the tag, and the quote
# that ends the value; the last 8 bytes of text (the tags between skipped);
# where the value before in this tag starts and ends (-1: none); the
# weight set's place.
S_MARKUP = first(__name__)
S_M_MODE, S_M_KEY, S_M_DEPTH, S_M_SIBLING = S_MARKUP, S_MARKUP + 1, S_MARKUP + 2, S_MARKUP + 3
S_M_ATTRIBUTE, S_M_VALUE, S_M_QUOTE = S_MARKUP + 4, S_MARKUP + 5, S_MARKUP + 6
S_M_TEXTS, S_M_LEFT_START, S_M_LEFT_END = S_MARKUP + 7, S_MARKUP + 8, S_MARKUP + 9
S_M_PLACE = S_MARKUP + 10
MARKUP_STACK = 16
S_M_STACK = S_MARKUP + 11
# F_SOURCE: the last word (hashed) of the last text whose tag gave no
# value, and how many words the current text has had.
S_M_SOURCE = S_M_STACK + MARKUP_STACK
S_M_TEXT_WORDS = S_M_SOURCE + 1
FIELDS = S_M_TEXT_WORDS + 1 - S_MARKUP
# Per stream in Tables.recent, after F_RECORD's: per key (its low bits), the
# last field of that key: the key, where it starts and ends, its bytes' hash.
MARKUP_FIELDS = 1 << 12
