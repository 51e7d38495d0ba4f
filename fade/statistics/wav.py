"""Where a WAV file's samples lie: its RIFF header read (no numba).

Apart from fade.statistics.audio, which codes the samples, so that the
screen (fade.kinds) can tell a WAV file without loading numba, as
fade.statistics.pixels reads images' headers for it.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from fade.lazy import numpy as np

MAX_CHANNELS = 8
_PCM, _EXTENSIBLE = 1, 0xFFFE
# WAVE_FORMAT_EXTENSIBLE's sub-format for PCM: its GUID's last 14 bytes
_PCM_GUID_TAIL = bytes.fromhex("000000001000800000aa00389b71")


class Layout(NamedTuple):
    """Where a WAV file's whole samples lie: `start` and `size` in bytes,
    `width` bytes a sample (2 or 3)."""

    channels: int
    start: int
    size: int
    width: int = 2


def wav_layout(data: bytes | np.ndarray) -> Layout | None:
    """The samples of `data` if it begins as a RIFF WAVE file of 16- or
    24-bit PCM, 1 to MAX_CHANNELS channels (tag 1, or WAVE_FORMAT_EXTENSIBLE
    with the PCM sub-format), the data chunk cut to the bytes present and to
    whole samples of every channel; else None."""
    head = bytes(data[:4096])
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    position, channels, width = 12, 0, 0
    while position + 8 <= len(head):
        chunk, size = head[position:position + 4], struct.unpack_from("<I", head, position + 4)[0]
        body = position + 8
        if chunk == b"fmt " and size >= 16 and body + 16 <= len(head):
            tag, count, _, _, align, bits = struct.unpack_from("<HHIIHH", head, body)
            if tag == _EXTENSIBLE and (size < 40 or body + 40 > len(head) or
                                       head[body + 26:body + 40] != _PCM_GUID_TAIL):
                return None
            if tag not in (_PCM, _EXTENSIBLE) or bits not in (16, 24) or \
                    not 1 <= count <= MAX_CHANNELS or align != bits // 8 * count:
                return None
            channels, width = count, bits // 8
        elif chunk == b"data":
            if not channels:
                return None
            size = min(size, len(data) - body)
            size -= size % (width * channels)
            return Layout(channels, body, size, width) if size > 0 else None
        position = body + size + (size & 1)
    return None
