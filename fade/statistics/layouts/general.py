"""The fields every model's streams have (fade.statistics.contexts, runs, sse)."""

from __future__ import annotations

from fade.statistics.parts import MAX_CONTEXTS

# The last 8 bytes (newest lowest), the current word (hashed), the match's
# place and length, the stream's place, where it starts in the buffer, its
# length.
S_HISTORY, S_WORD, S_MATCH_PTR, S_MATCH_LEN, S_POSITION, S_BASE, S_LENGTH = range(7)
S_SLOTS = 7  # the current slot of each context follows: MAX_CONTEXTS fields
S_FOUND = S_SLOTS + MAX_CONTEXTS  # how many contexts were seen before, this byte
S_WORD2 = S_FOUND + 1  # the word before the current one (model 1)
S_WORD3 = S_FOUND + 2  # the word before that
S_LINE = S_FOUND + 3  # where the current line starts (model 2)
S_ABOVE = S_FOUND + 4  # where the line before it starts
S_WORDLEN = S_FOUND + 5  # letters in the current word (model 2)
S_RUN = S_FOUND + 6  # F_RUNS: each context's run entry index
S_RUN_BYTE = S_RUN + MAX_CONTEXTS  # its byte | count << 8 | flag << 16 (-1: none, or broken)
# F_SSE: where the last 32 bits were mispredicted (1: the coded bit had
# less than half the probability), the newest lowest.
S_MISSES = S_RUN_BYTE + MAX_CONTEXTS
FIELDS = S_MISSES + 1
