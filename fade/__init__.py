"""fade: learned lossless compression with the FADE dual-stream predictor.

The library: `compress(data) -> archive bytes`, `decompress(archive) -> data`
(archives one after another decode to their originals concatenated);
`compress_stream` and `decompress_stream` code files of any size frame by
frame (fade.frames); `open`, `FadeFile`, `FadeCompressor` and
`FadeDecompressor` are the file object and incremental coders (fade.api).
It never imports click or tqdm; progress is reported through a callback.
"""

__version__ = "0.10.0"

from fade import environment  # noqa: E402  (first: before anything imports torch)

environment.apply()

from fade.archive import CompactHeader, Header  # noqa: E402
from fade.codec import compress, read_header  # noqa: E402
from fade.config import PRESETS, ModelConfig, default_batch_size  # noqa: E402
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError, FormatError  # noqa: E402
from fade.frames import compress_stream, decompress_stream  # noqa: E402
from fade.members import decompress  # noqa: E402  (archives one after another, too)
from fade.api import FadeCompressor, FadeDecompressor, FadeFile, open  # noqa: E402

__all__ = [
    "ChecksumMismatchError", "CompactHeader", "CorruptArchiveError", "FadeCompressor",
    "FadeDecompressor", "FadeError", "FadeFile", "FormatError", "Header", "ModelConfig",
    "PRESETS", "compress", "compress_stream", "decompress", "decompress_stream",
    "default_batch_size", "open", "read_header",
]
