"""fade as a numcodecs codec, for zarr v2 arrays and whatever else codes
chunks through numcodecs: `fade.numcodecs.Fade`.

    >>> import numcodecs, zarr
    >>> zarr.open_array("x.zarr", mode="w", shape=a.shape, dtype=a.dtype,
    ...                 zarr_format=2, compressor=numcodecs.get_codec({"id": "fade"}))[:] = a

Installed with fade, the codec is found by its id through the
`numcodecs.codecs` entry point (pyproject.toml), so an array written with it
opens without importing fade first. Each chunk is one fade archive, with its
own checksum (`fade.compress`, `fade.decompress`).

The config: `level` ("fast", "default" or "max") and `network`. With
`network` false (the default), no chunk is coded by the network: at "max" the
level's statistics alone, so every chunk decodes on any CPU, as the other
levels' archives do. `network=True` lets "max" run its network where it pays,
and those chunks decode only with the same torch build and CPU class (or GPU
model) as made them (the README, "What decodes where").

Arrays are coded as their bytes, not by fade's float path (`float_mode`):
on real float arrays the bytes were 2.5x smaller (docs/results.md, "In the
data libraries").
"""

from __future__ import annotations

from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray, ndarray_copy

from fade.errors import FadeError

__all__ = ["Fade", "settings_of"]


def settings_of(level: str, network: bool):
    """The `fade.Settings` a chunk is compressed with (shared with fade.zarr)."""
    from fade.config import LEVELS
    from fade.single import Settings

    if level not in LEVELS:
        raise FadeError(f"unknown level {level!r} (choose from {', '.join(LEVELS)})")
    if not isinstance(network, bool):
        raise FadeError(f"network must be true or false, not {network!r}")
    return Settings(level=level, method="auto" if network else "statistics") \
        if LEVELS[level].runs_network(False) else Settings(level=level)


class Fade(Codec):
    """A numcodecs codec that compresses each chunk with fade (`level`: "fast",
    "default" or "max"; `network`: whether "max" may run its network)."""

    codec_id = "fade"

    def __init__(self, level: str = "default", network: bool = False):
        self._settings = settings_of(level, network)
        self.level = level
        self.network = network

    def encode(self, buf) -> bytes:
        from fade.single import compress

        data = ensure_contiguous_ndarray(buf).tobytes()
        return compress(data, self._settings)

    def decode(self, buf, out=None):
        from fade.members import decompress

        archive = ensure_contiguous_ndarray(buf).tobytes()
        data = decompress(archive)
        if out is not None:
            out = ensure_contiguous_ndarray(out)
            if out.nbytes != len(data):
                raise FadeError(f"the chunk holds {len(data):,} bytes, the output "
                                f"{out.nbytes:,}")
        return ndarray_copy(data, out)
