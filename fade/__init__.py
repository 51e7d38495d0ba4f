"""fade: learned lossless compression with the FADE dual-stream predictor.

The library: `compress(data) -> archive bytes` (fade.single), `decompress(archive) -> data`
(any archive: fade.frames); `compress_stream` and `decompress_stream` code files of any
size frame by frame (fade.frames).
It never imports click or tqdm; progress is reported through a callback.
"""

from fade import environment  # first: before anything imports torch

environment.apply()

from fade.version import __version__  # noqa: E402

from fade.config import PRESETS, ModelConfig, default_batch_size  # noqa: E402
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError, FormatError  # noqa: E402
from fade.format.headers import CompactHeader, Header  # noqa: E402
from fade.frames import compress_stream, decompress, decompress_stream, read_header  # noqa: E402
from fade.single import compress  # noqa: E402

__all__ = [
    "__version__",
    "ChecksumMismatchError", "CompactHeader", "CorruptArchiveError", "FadeError", "FormatError",
    "Header", "ModelConfig", "PRESETS", "compress", "compress_stream", "decompress",
    "decompress_stream", "default_batch_size", "read_header",
]
