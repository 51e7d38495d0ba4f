"""x86 machine code: addresses instead of distances, and the instructions.

Two things make x86 code predictable that a byte's neighbours do not show:
where the byte falls in its instruction, and what a distance points at.
`x86_contexts` and `note_x86` parse the bytes as x86-64 instructions as
they come (by the opcode tables of Intel's manual: prefixes, opcode maps,
ModRM, SIB, displacement, immediate) and hash contexts from the place in
the instruction, its opcode and the instructions before (F_X86);
`_e8e9` and `_rip_relative` make calls' and jumps' distances (F_E8E9)
and RIP-relative displacements (F_X86) the addresses they point at before
coding, and back after decoding (fade.statistics.steps calls them).

A call (E8) or jump (E9) in x86 code is followed by a 32-bit distance to
its target, counted from the next instruction: the same function called
from two places has two distances, so the bytes after E8 never repeat.
Written as the target's address instead (the distance plus the place), the
calls to one function become the same bytes, which the contexts then learn
(xz's BCJ filter and paq8's exe model do the same). `_e8e9` turns the
distances into addresses before coding, and back after decoding. An E8 or
E9 byte takes the four bytes after it as its operand where the operand's
top byte is 00 or FF (a distance within 2^24 either way, as code has it)
and no E8 or E9 left alone lies in the 3 bytes before it; its low three
bytes get its place added (or taken away) modulo 2^24, and the scan goes
on after the operand. Nothing the decision reads ever changes: not the E8
and E9 bytes, not an operand's top byte, and not the top byte of an E8 or
E9 left alone (without the second rule, an operand that starts up to 3
bytes after one could change it, and the change would not reverse: the
first version did so).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import ALLOCATING, JIT, bytes_hash, context_hash
from fade.statistics.parts import (X86_BEFORE, X86_LAST, X86_PLACE, X86_RECENT, X86_SEQUENCE,
                                   X86_STEP, X86_TARGET, X86_THREE, X86_WHOLE)
from fade.statistics.state import RECENT, SCRATCH_HASHES, S_FIELDS, S_HISTORY, S_POSITION
from fade.statistics.layouts.x86 import (
    S_X86_BYTES, S_X86_IMMEDIATE, S_X86_LEFT, S_X86_MODRM, S_X86_MODRMS, S_X86_OPCODE,
    S_X86_OPCODES, S_X86_PREFIXES, S_X86_STEP, X86_PLACES, X86_STEPS)


@nb.njit(**ALLOCATING)
def _e8e9(data, forward, big):
    out = data.copy()
    rejected = np.int64(-8)  # the last E8 or E9 looked at and left
    i = 0
    while i + 5 <= out.shape[0]:
        if out[i] == 0xE8 or out[i] == 0xE9:
            if (out[i + 4] == 0 or out[i + 4] == 0xFF) and i - rejected > 3:
                value = _number(out, i + 1, 3, big and not forward)
                value = (value + i if forward else value - i) & 0xFFFFFF
                _write(out, i + 1, 3, value, big and forward)
                i += 5
                continue
            rejected = i
        i += 1
    return out


@nb.njit(**JIT)
def _number(out, at, size, big):
    """The `size`-byte number at out[at:], little-endian or (`big`) big-endian."""
    value = np.int64(0)
    for k in range(size):
        value |= np.int64(out[at + k]) << (8 * (size - 1 - k) if big else 8 * k)
    return value


@nb.njit(**JIT)
def _write(out, at, size, value, big):
    """Write `value` as `_number` reads it."""
    for k in range(size):
        out[at + k] = (value >> (8 * (size - 1 - k) if big else 8 * k)) & 255


@nb.njit(**ALLOCATING)
def _rip_relative(data, forward):
    out = data.copy()
    streams = np.zeros((1, S_FIELDS), dtype=np.int64)
    for i in range(out.shape[0]):
        if (streams[0, S_X86_STEP] == DISPLACEMENT and streams[0, S_X86_LEFT] == 4
                and (streams[0, S_X86_MODRM] & 0xC7) == 5 and i + 4 <= out.shape[0]):
            end = i + 4 + streams[0, S_X86_IMMEDIATE]  # the next instruction's place
            value = _number(out, i, 4, not forward)
            value = (value + end if forward else value - end) & 0xFFFFFFFF
            _write(out, i, 4, value, forward)
        note_x86(streams, 0, np.int64(out[i]))
    return out


# The instruction contexts (F_X86). What follows each opcode, by opcode map
# (the one-byte map, then 0F, 0F 38 and 0F 3A), in 64-bit mode: whether a
# ModRM byte comes (_MODRM) and the kind of immediate after it (the low
# bits), or that the byte is a prefix or opens another map or a VEX or EVEX
# prefix. The facts are the Intel manual's opcode tables (volume 2,
# appendix A), written as ranges.
_MODRM, _PREFIX, _ESCAPE, _VEX = 16, 32, 64, 128
# Immediates: none, 1 byte, 2, 2 or 4 (z: 2 with 66), 2 + 1 (ENTER), an
# address (8 bytes, 4 with 67), 2, 4 or 8 (v: 8 with REX.W), F6's and F7's
# groups (an immediate for TEST only: reg 0 or 1), and jumps' 1 and 4 bytes.
(_NONE, _IB, _IW, _IZ, _ENTER, _ADDRESS, _IV, _GROUP_B, _GROUP_Z, _REL8,
 _REL32) = range(11)
# The steps: what the next byte of an instruction is.
(START, OPCODE2, OPCODE38, OPCODE3A, MODRM, SIB, DISPLACEMENT, IMMEDIATE,
 VEX) = range(X86_STEPS)


def _opcode_formats() -> np.ndarray:
    one = [_NONE] * 256
    for row in range(0, 0x40, 8):  # the ALU rows: ModRM forms, then AL/eAX, imm
        one[row:row + 4] = [_MODRM] * 4
        one[row + 4], one[row + 5] = _IB, _IZ
    for prefix in (0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0, 0xF2, 0xF3,
                   *range(0x40, 0x50)):  # segments, sizes, LOCK, REP, REX
        one[prefix] = _PREFIX
    one[0x0F] = _ESCAPE
    one[0x62] = one[0xC4] = one[0xC5] = _VEX  # EVEX and VEX (no BOUND, LES, LDS in 64-bit)
    one[0x63] = _MODRM
    one[0x68], one[0x69], one[0x6A], one[0x6B] = _IZ, _MODRM | _IZ, _IB, _MODRM | _IB
    one[0x70:0x80] = [_REL8] * 16
    one[0x80:0x84] = [_MODRM | _IB, _MODRM | _IZ, _MODRM | _IB, _MODRM | _IB]
    one[0x84:0x90] = [_MODRM] * 12
    one[0xA0:0xA4] = [_ADDRESS] * 4
    one[0xA8], one[0xA9] = _IB, _IZ
    one[0xB0:0xB8] = [_IB] * 8
    one[0xB8:0xC0] = [_IV] * 8
    one[0xC0], one[0xC1], one[0xC2] = _MODRM | _IB, _MODRM | _IB, _IW
    one[0xC6], one[0xC7], one[0xC8], one[0xCA], one[0xCD] = (
        _MODRM | _IB, _MODRM | _IZ, _ENTER, _IW, _IB)
    one[0xD0:0xD4] = [_MODRM] * 4
    one[0xD4], one[0xD5] = _IB, _IB
    one[0xD8:0xE0] = [_MODRM] * 8  # x87
    one[0xE0:0xE4] = [_REL8] * 4
    one[0xE4:0xE8] = [_IB] * 4
    one[0xE8], one[0xE9], one[0xEB] = _REL32, _REL32, _REL8
    one[0xF6], one[0xF7] = _MODRM | _GROUP_B, _MODRM | _GROUP_Z
    one[0xFE], one[0xFF] = _MODRM, _MODRM
    two = [_MODRM] * 256
    for opcode in (0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0E, *range(0x30, 0x38),
                   0x77, 0xA0, 0xA1, 0xA2, 0xA8, 0xA9, 0xAA, *range(0xC8, 0xD0)):
        two[opcode] = _NONE
    for opcode in (0x0F, 0x70, 0x71, 0x72, 0x73, 0xA4, 0xAC, 0xBA, 0xC2, 0xC4, 0xC5, 0xC6):
        two[opcode] = _MODRM | _IB
    two[0x80:0x90] = [_REL32] * 16
    two[0x38] = two[0x3A] = _ESCAPE
    return np.array(one + two + [_MODRM] * 256 + [_MODRM | _IB] * 256, dtype=np.int64)


_FORMATS = _opcode_formats()
# Prefixes as flags of S_X86_PREFIXES: operand size (66), address size (67),
# REX.W, REP (F2, F3), any other (segment, LOCK, REX without W), and VEX or
# EVEX.
_O16, _A32, _REXW, _REP, _OTHER, _VEXED = 1, 2, 4, 8, 16, 32


@nb.njit(**JIT)
def _place(streams, s):
    """Stream s's next byte's place in its instruction: its step and the
    bytes left in its field, with the opcode and the ModRM's mode and r/m
    (where an opcode comes: its prefixes and map so far); and its step with
    the bytes left and REX.W alone (below 512)."""
    step = streams[s, S_X86_STEP]
    left = min(streams[s, S_X86_LEFT], 8)
    place = (((step * 16 + left) << 25) | (streams[s, S_X86_OPCODE] << 9)
             | (streams[s, S_X86_MODRM] & 0x1C7))
    if step <= OPCODE3A:  # an opcode comes: its prefixes and map so far
        place = ((step * 16) << 25) | (streams[s, S_X86_PREFIXES] << 9)
    return place, (step * 16 + left) * 2 + (1 if streams[s, S_X86_PREFIXES] & _REXW else 0)


@nb.njit(**JIT)
def x86_contexts(scratch, streams, s):
    """Hash stream s's instruction contexts for its next byte into the scratch."""
    step = streams[s, S_X86_STEP]
    left = min(streams[s, S_X86_LEFT], 8)
    place = _place(streams, s)[0]
    scratch[SCRATCH_HASHES + X86_PLACE] = context_hash(place, 91)
    scratch[SCRATCH_HASHES + X86_SEQUENCE] = context_hash(
        ((streams[s, S_X86_BYTES] * 16 + step) * 16 + left) * 65536
        + (streams[s, S_X86_OPCODES] & 0xFFF), 92)
    scratch[SCRATCH_HASHES + X86_BEFORE] = context_hash(
        context_hash(((streams[s, S_X86_OPCODES] & 0xFFFFFF) << 9)
                     | (streams[s, S_X86_MODRMS] & 511), 96) ^ place, 93)
    scratch[SCRATCH_HASHES + X86_WHOLE] = context_hash(
        context_hash(streams[s, S_X86_OPCODES], 95) ^ place, 94)


@nb.njit(**JIT)
def x86_more_contexts(scratch, streams, recent, s):
    """F_X86MORE: hash stream s's five more instruction contexts for its
    next byte into the scratch (`recent`: the bytes seen at each place,
    `note_x86_more`'s)."""
    place, step_seen = _place(streams, s)
    at_place, at_step = _seen_slots(place, step_seen)
    scratch[SCRATCH_HASHES + X86_RECENT] = context_hash(
        context_hash(place, 151) + (recent[s, at_place] & 0xFFFF), 152)
    scratch[SCRATCH_HASHES + X86_STEP] = context_hash(
        (step_seen << 24) | (recent[s, at_step] & 255), 153)
    step = streams[s, S_X86_STEP]
    # (the place mod 16: padding runs to a 16-byte boundary, as functions start)
    scratch[SCRATCH_HASHES + X86_LAST] = context_hash(
        ((streams[s, S_POSITION] & 15) << 20) | ((streams[s, S_HISTORY] & 255) << 12)
        | (step_seen << 1) | (1 if step <= OPCODE3A else 0), 155)
    three = context_hash(((streams[s, S_X86_OPCODES] & 0xFFFFFFFFF) << 27)
                         | streams[s, S_X86_MODRMS], 156)
    scratch[SCRATCH_HASHES + X86_THREE] = context_hash(three ^ place, 157)
    # A call's or jump's target, written as an address (big-endian, its low
    # three bytes, then the top one: `e8e9`), against the place of the
    # call: the place's byte at the same weight, or the difference of the
    # target's bytes so far from the place's; else the place in the instruction.
    target = place
    left = streams[s, S_X86_LEFT]
    opcode = streams[s, S_X86_OPCODE] & 1023
    if step == IMMEDIATE and (opcode == 0xE8 or opcode == 0xE9) and 1 <= left <= 4:
        at = streams[s, S_POSITION] - 5 + left  # the E8's or E9's place
        history = streams[s, S_HISTORY]
        if left == 4:
            target = (4 << 24) | ((at >> 16) & 255)
        elif left == 3:
            target = (3 << 24) | ((((history & 255) - (at >> 16)) & 255) << 8) | ((at >> 8) & 255)
        elif left == 2:
            target = (2 << 24) | ((((history & 0xFFFF) - (at >> 8)) & 0xFFFF) << 8) | (at & 255)
        else:
            target = (1 << 24) | ((((history >> 8) & 0xFFFF) - (at >> 8)) & 0xFFFF)
        target |= opcode << 28
    scratch[SCRATCH_HASHES + X86_TARGET] = context_hash(target, 158)


@nb.njit(**JIT)
def note_x86_more(streams, recent, s, byte):
    """F_X86MORE, before `note_x86`: `byte` is the last seen at its place
    and at its step (x86_more_contexts)."""
    place, step_seen = _place(streams, s)
    at_place, at_step = _seen_slots(place, step_seen)
    recent[s, at_place] = ((recent[s, at_place] << 8) | byte) & 0xFFFFFF
    recent[s, at_step] = ((recent[s, at_step] << 8) | byte) & 0xFFFFFF


@nb.njit(**JIT)
def _seen_slots(place, step_seen):
    """F_X86MORE's two entries of Tables.recent for a byte at `place` and
    `step_seen` (`_place`): the last bytes seen at that place (hashed),
    then at that step."""
    return (RECENT + (context_hash(place, 150) & (X86_PLACES - 1)),
            RECENT + X86_PLACES + step_seen)


@nb.njit(**JIT)
def x86_set(streams, s):
    """F_X86's weight set for stream s's next byte (times 8, before the bit
    position): its step and the bytes left in its field."""
    return streams[s, S_X86_STEP] * 8 + min(streams[s, S_X86_LEFT], 7)


@nb.njit(**JIT)
def x86_opcode_set(streams, s):
    """F_X86's second weight set for stream s's next byte: its opcode (map
    and byte) and step."""
    return (streams[s, S_X86_OPCODE] & 1023) * X86_STEPS + streams[s, S_X86_STEP]


@nb.njit(**JIT)
def note_x86(streams, s, byte):
    """After `byte`: where the next byte falls in its instruction. Any bytes
    parse (data between functions too): a wrong guess ends with the
    instruction it made up, and the parse finds the code again."""
    step = streams[s, S_X86_STEP]
    streams[s, S_X86_BYTES] = bytes_hash(streams[s, S_X86_BYTES], byte)
    if step == START or step == OPCODE2 or step == OPCODE38 or step == OPCODE3A:
        if step == START and _FORMATS[byte] & _PREFIX:
            flag = _OTHER
            if byte == 0x66:
                flag = _O16
            elif byte == 0x67:
                flag = _A32
            elif byte == 0xF2 or byte == 0xF3:
                flag = _REP
            elif 0x48 <= byte <= 0x4F:
                flag = _REXW
            streams[s, S_X86_PREFIXES] |= flag
            return
        table = 0 if step == START else step  # START, OPCODE2 (1), 38 (2), 3A (3)
        if step == START and byte == 0x0F:
            streams[s, S_X86_STEP] = OPCODE2
            return
        if step == OPCODE2 and (byte == 0x38 or byte == 0x3A):
            streams[s, S_X86_STEP] = OPCODE38 if byte == 0x38 else OPCODE3A
            return
        if step == START and _FORMATS[byte] & _VEX:
            # VEX (C5: one byte, map 0F; C4: two, the map in the first's low
            # bits) or EVEX (62: three, the same): counted down, then the opcode.
            streams[s, S_X86_STEP] = VEX
            streams[s, S_X86_LEFT] = 1 if byte == 0xC5 else (2 if byte == 0xC4 else 3)
            streams[s, S_X86_IMMEDIATE] = 1 if byte == 0xC5 else 0  # the map, once known
            streams[s, S_X86_PREFIXES] |= _VEXED
            return
        _opcode(streams, s, table, byte)
        return
    if step == VEX:
        left = streams[s, S_X86_LEFT]
        if streams[s, S_X86_IMMEDIATE] == 0:  # C4's or 62's first byte: the map
            streams[s, S_X86_IMMEDIATE] = min(max(byte & 3, 1), 3)
        streams[s, S_X86_LEFT] = left - 1
        if left == 1:  # the opcode comes next, in its map
            streams[s, S_X86_STEP] = OPCODE2 + streams[s, S_X86_IMMEDIATE] - 1
            streams[s, S_X86_IMMEDIATE] = 0
        return
    if step == MODRM:
        streams[s, S_X86_MODRM] = byte + 256  # (0: none yet)
        mod = byte >> 6
        rm = byte & 7
        if streams[s, S_X86_IMMEDIATE] < 0:  # F6 or F7: TEST (reg 0 or 1) has one
            size = -streams[s, S_X86_IMMEDIATE]
            streams[s, S_X86_IMMEDIATE] = size if ((byte >> 3) & 7) < 2 else 0
        if mod != 3 and rm == 4:
            streams[s, S_X86_STEP] = SIB
            return
        _displacement(streams, s, _displacement_size(mod, rm))
        return
    if step == SIB:  # base 5 in mode 0: no base, a 4-byte displacement
        _displacement(streams, s, _displacement_size((streams[s, S_X86_MODRM] >> 6) & 3, byte & 7))
        return
    left = streams[s, S_X86_LEFT] - 1  # DISPLACEMENT or IMMEDIATE
    streams[s, S_X86_LEFT] = left
    if left <= 0:  # the immediate after a displacement, if any, else the end
        _displacement(streams, s, 0)


@nb.njit(**JIT)
def _opcode(streams, s, table, byte):
    """The opcode `byte` of map `table` (0: one byte, 1: 0F, 2: 0F 38, 3: 0F 3A)."""
    form = _FORMATS[table * 256 + byte]
    prefixes = streams[s, S_X86_PREFIXES]
    streams[s, S_X86_OPCODE] = (prefixes << 10) | (table << 8) | byte
    kind = form & 15
    z = 2 if prefixes & _O16 else 4
    size = 0
    if kind == _IB or kind == _REL8:
        size = 1
    elif kind == _IW:
        size = 2
    elif kind == _IZ:
        size = z
    elif kind == _REL32:
        size = 4
    elif kind == _ENTER:
        size = 3
    elif kind == _ADDRESS:
        size = 4 if prefixes & _A32 else 8
    elif kind == _IV:
        size = 8 if prefixes & _REXW else z
    elif kind == _GROUP_B:
        size = -1
    elif kind == _GROUP_Z:
        size = -z
    if form & _MODRM:
        streams[s, S_X86_STEP] = MODRM
        streams[s, S_X86_IMMEDIATE] = size
    elif size > 0:
        streams[s, S_X86_STEP] = IMMEDIATE
        streams[s, S_X86_LEFT] = size
    else:
        _end_instruction(streams, s)


@nb.njit(**JIT)
def _displacement_size(mod, rm):
    """The displacement's bytes after a ModRM of mode `mod` (and r/m or SIB
    base `rm`): 1 in mode 1, 4 in mode 2 and in mode 0 with 5, else none."""
    return 1 if mod == 1 else (4 if mod == 2 or (mod == 0 and rm == 5) else 0)


@nb.njit(**JIT)
def _displacement(streams, s, size):
    """After the ModRM (and SIB): a displacement of `size` bytes, then the
    immediate, if any."""
    if size > 0:
        streams[s, S_X86_STEP] = DISPLACEMENT
        streams[s, S_X86_LEFT] = size
    elif streams[s, S_X86_IMMEDIATE] > 0:
        streams[s, S_X86_STEP] = IMMEDIATE
        streams[s, S_X86_LEFT] = streams[s, S_X86_IMMEDIATE]
        streams[s, S_X86_IMMEDIATE] = 0
    else:
        _end_instruction(streams, s)


@nb.njit(**JIT)
def _end_instruction(streams, s):
    """The instruction is whole: it becomes the one before."""
    opcode = streams[s, S_X86_OPCODE]  # map and byte, 66 and REX.W: 12 bits
    opcode = (opcode & 1023) | (((opcode >> 10) & _O16) << 10) | (((opcode >> 10) & _REXW) << 9)
    streams[s, S_X86_OPCODES] = ((streams[s, S_X86_OPCODES] << 12) | opcode) & 0xFFFFFFFFFFFF
    streams[s, S_X86_MODRMS] = (((streams[s, S_X86_MODRMS] << 9) | streams[s, S_X86_MODRM])
                                & 0x7FFFFFF)
    streams[s, S_X86_BYTES] = 0
    streams[s, S_X86_STEP] = START
    streams[s, S_X86_LEFT] = 0
    streams[s, S_X86_PREFIXES] = 0
    streams[s, S_X86_MODRM] = 0
    streams[s, S_X86_IMMEDIATE] = 0
