"""F_WORDS' state (fade.statistics.words)."""

from __future__ import annotations

from fade.statistics.layouts import first

# The line's first word and how many words the line has had; the bytes
# since the last word ended (the gap, its last four) and the gap before the
# current word; the kinds of the last 16 bytes (2 bits each,
# fade.statistics.contexts.byte_kind); the brackets and quotes open (8 bits
# each, the innermost lowest); the digits of the current number and of the
# one before (hashed).
S_WORDS = first(__name__)
S_W_LINE, S_W_COUNT, S_W_GAP, S_W_GAP_BEFORE = S_WORDS, S_WORDS + 1, S_WORDS + 2, S_WORDS + 3
S_W_KINDS, S_W_OPEN, S_W_NUMBER, S_W_NUMBER_BEFORE = (S_WORDS + 4, S_WORDS + 5, S_WORDS + 6,
                                                      S_WORDS + 7)
FIELDS = S_W_NUMBER_BEFORE + 1 - S_WORDS
