"""fade as a zarr v3 codec: `fade.zarr.FadeCodec`, a bytes-to-bytes codec
named "fade" in an array's metadata.

    >>> import zarr
    >>> from fade.zarr import FadeCodec
    >>> zarr.create_array("x.zarr", data=a, compressors=FadeCodec(level="fast"))

Installed with fade, the codec is found by its name through the
`zarr.codecs` entry point (pyproject.toml), so an array written with it
opens without importing fade first. Its configuration, `level` and
`network`, is that of fade.numcodecs.Fade (read there), and each chunk is
one fade archive with its own checksum. Chunks are coded in zarr's worker
threads.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from zarr.abc.codec import BytesBytesCodec
from zarr.core.common import parse_named_configuration

from fade.numcodecs import settings_of

__all__ = ["FadeCodec"]


@dataclass(frozen=True)
class FadeCodec(BytesBytesCodec):
    """Compresses each chunk with fade (`level`: "fast", "default" or "max";
    `network`: whether "max" may run its network)."""

    is_fixed_size = False

    level: str = "default"
    network: bool = False

    def __post_init__(self) -> None:
        settings_of(self.level, self.network)  # refuses a wrong level here, not at the first chunk

    @classmethod
    def from_dict(cls, data: dict) -> "FadeCodec":
        _, configuration = parse_named_configuration(data, "fade", require_configuration=False)
        return cls(**(configuration or {}))

    def to_dict(self) -> dict:
        return {"name": "fade", "configuration": {"level": self.level, "network": self.network}}

    def _encode_sync(self, chunk_bytes, chunk_spec):
        from fade.single import compress

        archive = compress(chunk_bytes.as_numpy_array().tobytes(),
                           settings_of(self.level, self.network))
        return chunk_spec.prototype.buffer.from_bytes(archive)

    def _decode_sync(self, chunk_bytes, chunk_spec):
        from fade.members import decompress

        data = decompress(chunk_bytes.as_numpy_array().tobytes())
        return chunk_spec.prototype.buffer.from_bytes(data)

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return await asyncio.to_thread(self._encode_sync, chunk_bytes, chunk_spec)

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return await asyncio.to_thread(self._decode_sync, chunk_bytes, chunk_spec)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec) -> int:
        raise NotImplementedError  # an archive's size is known only once it is coded
