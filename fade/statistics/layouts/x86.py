"""F_X86's and F_X86MORE's state (fade.statistics.x86)."""

from __future__ import annotations

from fade.statistics.layouts import first

# What the next byte is in its instruction (a step), the bytes left in its
# field, the immediate's bytes still to come after the ModRM (minus its
# size: by the ModRM's reg field; in a VEX prefix, its opcode map) and the
# prefixes seen; the instruction: its opcode (prefixes << 10 | map << 8 |
# opcode), ModRM (256 + the byte; 0: none yet) and bytes so far (hashed);
# the last four opcodes (12 bits each: map, byte, 66 and REX.W; newest
# lowest) and the last three ModRMs (9 bits each).
S_X86 = first(__name__)
S_X86_STEP, S_X86_LEFT, S_X86_IMMEDIATE, S_X86_PREFIXES = S_X86, S_X86 + 1, S_X86 + 2, S_X86 + 3
S_X86_OPCODE, S_X86_MODRM, S_X86_BYTES = S_X86 + 4, S_X86 + 5, S_X86 + 6
S_X86_OPCODES, S_X86_MODRMS = S_X86 + 7, S_X86 + 8
FIELDS = S_X86_MODRMS + 1 - S_X86
# Weight sets by the place in the instruction (fade.statistics.x86's
# steps), the bytes left in its field (0-7) and the bit position ...
X86_STEPS = 9
X86_PLACE_SETS = X86_STEPS * 8 * 8
# ... then (F_LAYERS) by the opcode (map and byte) and the step.
SETS = X86_PLACE_SETS + 1024 * X86_STEPS
# F_X86MORE, per stream in Tables.recent after F_RECORD's: the last bytes
# seen at each place in an instruction (hashed to X86_PLACES entries), then
# at each step (with the bytes left in its field and REX.W: X86_STEPS_SEEN
# entries).
X86_PLACES = 1 << 10
X86_STEPS_SEEN = 512
