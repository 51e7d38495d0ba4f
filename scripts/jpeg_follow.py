"""fade.statistics.jpeg on JPEG files: does the parser decode each file's
blocks? It follows each file as a coder would, bit by bit. A sequential
file's scans are then written again from the blocks it decoded and the
file's own Huffman tables, and compared with the file's (a block decoded
wrong, or at a wrong place, comes out as other bytes). A progressive
file's blocks, kept whole in the parser's store, are compared with those
of the same photo written sequentially by jpegtran (libjpeg-turbo's, where
it is installed), itself checked as above.

    python scripts/jpeg_follow.py [--jpegtran OPTIONS] FILE...

One row a file: its size, the blocks decoded, and "same" (every scan
written again byte for byte, or every block as its sequential copy's),
"differs" (with the scan), or what the parser did not follow (an
arithmetic-coded frame, 12 bits). `--jpegtran "-progressive -restart 1B"`:
each file written again by jpegtran with those options first (its
coefficients unchanged), and that checked against the file. tests/test_jpeg.py
runs the same checks on the test corpus' JPEGs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's fade
from fade.statistics import jpeg  # noqa: E402
from fade.statistics.layouts import jpeg as fields  # noqa: E402


def segments(data: bytes):
    """(marker, payload, entropy-coded bytes after it) of each marker
    segment of a JPEG (the bytes: up to the next marker that is not a restart)."""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF and data[pos + 1] != 0xD9:
        length = data[pos + 2] << 8 | data[pos + 3]
        payload, pos = data[pos + 4:pos + 2 + length], pos + 2 + length
        end = pos
        if data[pos - length - 1] == 0xDA:
            while not (data[end] == 0xFF and data[end + 1] not in (0, *range(0xD0, 0xD8))):
                end += 1
        yield data[pos - length - 1], payload, data[pos:end]
        pos = end


def codes(payload: bytes) -> dict[tuple[int, int], dict[int, tuple[int, int]]]:
    """A DHT segment's tables: (class, number) -> {value: (code, length)}."""
    tables, at = {}, 0
    while at < len(payload):
        counts, values = payload[at + 1:at + 17], iter(payload[at + 17:])
        table, code = {}, 0
        for length, count in enumerate(counts, 1):
            for _ in range(count):
                table[next(values)] = (code, length)
                code += 1
            code <<= 1
        tables[(payload[at] >> 4, payload[at] & 15)] = table
        at += 17 + sum(counts)
    return tables


class _Writer:
    """Bits into bytes, the first highest, a zero stuffed after each 0xFF."""

    def __init__(self):
        self.out, self.bits, self.count = bytearray(), 0, 0

    def put(self, value: int, length: int) -> None:
        for shift in range(length - 1, -1, -1):
            self.bits, self.count = self.bits << 1 | (value >> shift) & 1, self.count + 1
            if self.count == 8:
                self.out += b"\xff\x00" if self.bits == 0xFF else bytes([self.bits])
                self.bits = self.count = 0

    def pad(self) -> None:
        if self.count:
            self.put((1 << (8 - self.count)) - 1, 8 - self.count)


def _put_value(writer: _Writer, table: dict, prefix: int, value: int) -> None:
    size = abs(value).bit_length()
    writer.put(*table[prefix << 4 | size])
    writer.put(value if value >= 0 else value + (1 << size) - 1, size)


def encode(blocks: np.ndarray, layout: list[tuple[int, dict, dict]], restart: int) -> bytes:
    """The entropy-coded bytes of a sequential scan of `blocks` (zig-zag
    order, one after another as decoded): `layout` the MCU's blocks (the
    frame component, its DC and AC codes), a restart marker every `restart`
    MCUs (0: none)."""
    writer, last_dc, marker = _Writer(), {}, 0
    for mcu in range(len(blocks) // len(layout)):
        if restart and mcu and mcu % restart == 0:
            writer.pad()
            writer.out += bytes([0xFF, 0xD0 + marker])
            marker, last_dc = (marker + 1) & 7, {}
        for (component, dc, ac), block in zip(layout, blocks[mcu * len(layout):]):
            _put_value(writer, dc, 0, int(block[0]) - last_dc.get(component, 0))
            last_dc[component] = int(block[0])
            last = max(np.flatnonzero(block[1:]) + 1, default=0)
            run = 0
            for value in block[1:last + 1]:
                if value == 0:
                    run += 1
                    continue
                for _ in range(run // 16):
                    writer.put(*ac[0xF0])
                _put_value(writer, ac, run % 16, int(value))
                run = 0
            if last < 63:
                writer.put(*ac[0])
    writer.pad()
    return bytes(writer.out)


def followed(data: bytes, ring_bits: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """The parser's state after all of `data`, and the blocks it decoded
    (at most 2^ring_bits: the parser's ring of blocks)."""
    state = jpeg.new_state(ring_bits)
    jpeg.follow(state, np.frombuffer(data, dtype=np.uint8))
    decoded = int(state[fields.J_DECODED])
    if decoded > 1 << ring_bits:
        raise ValueError(f"{decoded} blocks: more than the ring's {1 << ring_bits}")
    return state, state[fields.J_RING_AT:fields.J_RING_AT + 64 * decoded].reshape(decoded, 64)


def scan_check(data: bytes, blocks: np.ndarray) -> int:
    """Write each scan of `data` again from `blocks` and compare; how many scans."""
    tables, restart, scans, frame, start = {}, 0, 0, b"", 0
    for marker, payload, coded in segments(data):
        if marker == 0xC4:
            tables.update(codes(payload))
        elif marker in (0xC0, 0xC1):
            frame = payload
        elif marker == 0xDD:
            restart = payload[0] << 8 | payload[1]
        elif marker == 0xDA:
            ids = [frame[6 + 3 * c] for c in range(frame[5])]
            height, width = frame[1] << 8 | frame[2], frame[3] << 8 | frame[4]
            across = [frame[7 + 3 * c] >> 4 for c in range(frame[5])]
            down = [frame[7 + 3 * c] & 15 for c in range(frame[5])]
            layout = []
            for s in range(payload[0]):
                component = ids.index(payload[1 + 2 * s])
                layout += [(component, tables[(0, payload[2 + 2 * s] >> 4)],
                            tables[(1, payload[2 + 2 * s] & 15)])] * \
                    (across[component] * down[component] if payload[0] > 1 else 1)
            if payload[0] > 1:  # interleaved: MCUs over the frame
                mcus = -(-width // (8 * max(across))) * -(-height // (8 * max(down)))
            else:  # one component: its own blocks over its own size
                mcus = -(-width * across[component] // (8 * max(across))) * \
                    -(-height * down[component] // (8 * max(down)))
            count = mcus * len(layout)
            assert encode(blocks[start:start + count], layout, restart) == coded
            start += count
            scans += 1
    return scans


def stored(data: bytes, store_blocks: int = 1 << 20) -> list[np.ndarray]:
    """The blocks of `data`'s (last) frame as the parser's store holds them
    after all of it: for each component, its rows of blocks across (zig-zag
    order), those of the MCUs' padding left out; none where nothing was kept."""
    state = jpeg.new_state(4, store_blocks)
    jpeg.follow(state, np.frombuffer(data, dtype=np.uint8))
    count = int(state[fields.J_STORE_BLOCKS])
    start = fields.J_RING_AT + 64 * 16
    # each word holds four coefficients, the first in its lowest 16 bits
    words = state[start:start + fields.STORE_WORDS * count].astype("<i8")
    blocks = words.view("<i2").reshape(count, 64)
    components = []
    for c in range(int(state[fields.J_COMPONENTS]) if count else 0):
        field = fields.J_COMPONENT_AT + fields.COMPONENT_FIELDS * c
        h, v = int(state[field + 1]), int(state[field + 2])
        across, down = int(state[fields.J_MCUS_X]) * h, int(state[fields.J_MCUS_Y]) * v
        rows = -(-int(state[fields.J_HEIGHT]) * v // (8 * int(state[fields.J_VMAX])))
        first = int(state[fields.J_OFFSET_AT + c])
        components.append(blocks[first:first + across * down].reshape(down, across, 64)
                          [:rows, :int(state[field + 4])])
    return components


def same_blocks(data: bytes, other: bytes) -> bool:
    """Whether two JPEGs' blocks are the same (the first's components, each
    as the second's: a gray copy of a colour photo has its first)."""
    return _same(stored(data), stored(other))


def _same(mine: list[np.ndarray], theirs: list[np.ndarray]) -> bool:
    """`same_blocks` of two JPEGs' `stored` blocks: none kept, or fewer
    components kept of the second, is not the same."""
    return bool(mine) and len(theirs) >= len(mine) and \
        all(np.array_equal(a, b) for a, b in zip(mine, theirs))


def jpegtran(data: bytes, options: list[str]) -> bytes:
    """`data` written again by jpegtran (its status 2: it warned of damage)."""
    done = subprocess.run(["jpegtran", *options], input=data, capture_output=True)
    if done.returncode not in (0, 2) or not done.stdout:
        raise ValueError(f"jpegtran failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def verdict(data: bytes) -> tuple[int, str]:
    """The blocks followed in `data`, and what the check says of them."""
    try:
        state, blocks = followed(data, 19)
    except ValueError as error:
        return 0, str(error)
    if int(state[fields.J_PROGRESSIVE]):
        mine = stored(data)
        count = sum(blocks.shape[0] * blocks.shape[1] for blocks in mine)
        if shutil.which("jpegtran") is None:
            return count, "progressive, not checked (no jpegtran)"
        same = _same(mine, stored(jpegtran(data, [])))
        return count, "same (as its sequential copy)" if same else \
            "differs from its sequential copy"
    if int(state[fields.J_FRAME]) == 0 or len(blocks) == 0:
        markers = {data[k + 1] for k in range(len(data) - 1) if data[k] == 0xFF}
        kinds = sorted(f"{m:02X}" for m in markers & {0xC3, 0xC9, 0xCA, 0xCB})
        return len(blocks), f"not followed (frame {', '.join(kinds) or 'none found'})"
    try:
        return len(blocks), f"same ({scan_check(data, blocks)})"
    except (AssertionError, KeyError, IndexError, ValueError) as error:
        return len(blocks), f"differs ({type(error).__name__})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jpegtran", default=None, help="written again by jpegtran first")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    print("| file | bytes | blocks | check |")
    print("|---|---:|---:|---|")
    for name in args.files:
        data = name.read_bytes()
        if args.jpegtran is not None:
            try:
                copy = jpegtran(data, args.jpegtran.split())
            except ValueError as error:
                print(f"| {name.name} | {len(data):,} | | {error} |", flush=True)
                continue
            count, result = verdict(copy)
            if not result.startswith("same") or not same_blocks(copy, data):
                result = f"{result}; not the blocks of the file itself"
            data = copy
        else:
            count, result = verdict(data)
        print(f"| {name.name} | {len(data):,} | {count:,} | {result} |", flush=True)


if __name__ == "__main__":
    main()
