"""Colour images coded as green and differences (F_GREEN), where that pays.

A photo that went through JPEG (or any codec that keeps colour at a lower
resolution than brightness) has three planes that move together: its red
and blue less its green are smooth, and carry far less than the planes do.
The image model predicts each plane from the planes before in the pixel
(fade.statistics.image), but its contexts and its bit-by-bit counts see the
byte itself, which moves with the brightness. Coded as green, then red less
green and blue less green (modulo 256, plus 128: the middle byte of a
pixel and the other two less it, so BMP's blue, green, red order gives the
same), such a photo takes 5-8% fewer bytes; a photo whose colours are
sharp takes 0.4-1.4% more, and a drawing with flat colours 15% more.

So the encoder measures it (fade.kinds.colour_choice): it codes a band of
rows from the middle of the image (a 64th of its rows, 8 at least, at
most 128 KiB) both ways with the default level's image models (whatever
the level: level fast's said too little on one photo in 18; the default's image
models without their second final mixer: fade.statistics.models.BAND,
so that the choice stays as it was), and takes
the green model where that is at least GREEN_GAIN smaller; then codes it
green with the two differences swapped (F_SWAP: the pixel's last byte's
first), and takes that where it is SWAP_GAIN of the green band or less
(in photos that went through JPEG, the difference that carries more said
first helps the other). The archive records the choice as the
model's number; `to_green` and `from_green` change and restore the pixels
of a 3-byte-a-pixel image whose layout its header (or F_PIXELS's made
header) gives; other bytes, and the header, stay as they are.
"""

from __future__ import annotations

from fade.lazy import numpy as np

from fade.statistics.parts import F_GREEN, F_SWAP
from fade.statistics.pixels import Layout, coded_layout

TRIAL_SHARE = 64  # the band measured: this share of the image's rows...
TRIAL_ROWS = 8  # ... at least this many...
TRIAL_BYTES = 1 << 17  # ... of at most this many bytes
GREEN_GAIN = 0.985  # the band coded green must be this much of the band as it is, or less
SWAP_GAIN = 0.999  # ... and with the differences swapped, this much of the band coded green


def green_layout(data: bytes | np.ndarray) -> Layout | None:
    """The layout of the colour image `data` begins with, where F_GREEN
    changes its pixels: the image models' (`coded_layout`), of three bytes
    a pixel; else None."""
    layout = coded_layout(data)
    return layout if layout is not None and layout.pixel == 3 else None


def to_green(data: np.ndarray, parts: int) -> np.ndarray:
    """`data` with its pixels as green, red less green and blue less green,
    where `parts` has F_GREEN and `green_layout` finds an image."""
    return _converted(data, parts, True)


def from_green(data: np.ndarray, parts: int) -> np.ndarray:
    """The bytes `to_green` took."""
    return _converted(data, parts, False)


def _converted(data: np.ndarray, parts: int, forward: bool) -> np.ndarray:
    layout = green_layout(data) if parts & F_GREEN else None
    if layout is None:
        return data
    out = data.copy()
    body = len(data) - layout.start
    rows = min(layout.height, body // layout.stride)
    width = layout.row // 3
    whole = out[layout.start:layout.start + rows * layout.stride].reshape(rows, layout.stride)
    swap = bool(parts & F_SWAP)
    _convert(whole[:, :3 * width], forward, swap)
    if rows < layout.height:  # a last row cut short: its whole pixels
        at = layout.start + rows * layout.stride
        count = min(len(data) - at, layout.row) // 3
        _convert(out[at:at + 3 * count].reshape(1, 3 * count), forward, swap)
    return out


def _convert(pixels: np.ndarray, forward: bool, swap: bool) -> None:
    """Change (or restore) in place rows of pixels, three bytes each; with
    `swap`, the last byte's difference before the first's."""
    one, two = (2, 0) if swap else (0, 2)  # (the bytes whose differences come second, third)
    first, middle, last = (pixels[:, k::3].astype(np.int16) for k in range(3))
    if forward:
        changed = (first, middle, last)
        pixels[:, 0::3] = middle
        pixels[:, 1::3] = (changed[one] - middle + 128) & 255
        pixels[:, 2::3] = (changed[two] - middle + 128) & 255
    else:  # first is the green, middle and last the differences
        pixels[:, 1::3] = first
        pixels[:, one::3] = (middle + first - 128) & 255
        pixels[:, two::3] = (last + first - 128) & 255
