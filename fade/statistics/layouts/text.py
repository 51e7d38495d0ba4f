"""F_TEXT3's state (fade.statistics.text)."""

from __future__ import annotations

from fade.statistics.layouts import first

# The last bytes' groups with runs of one group of letters or digits kept
# as one (8 bits each, the newest lowest), the seven before those, and
# whether the last byte continued a run; the brackets and quotes open
# (fade.statistics.text.nest_state); the bytes since they last changed; the
# last bytes' classes (vowel, consonant, space, ..., 3 bits each), and the
# same with runs of one class kept as one.
FIELDS = 7
S_T3_GROUPS, S_T3_OLDER, S_T3_RUN, S_T3_NEST, S_T3_SINCE, S_T3_CLASSES, S_T3_RUNS = range(
    first(__name__), first(__name__) + FIELDS)
