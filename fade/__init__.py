"""fade: learned lossless compression with the FADE dual-stream predictor.

The library: `compress(data) -> archive bytes` (fade.single), with its
choices in one frozen `Settings` object (or keywords that build one), `decompress(archive)
-> data` (any archive, and archives one after another: fade.members);
`compress_stream` (fade.frames) and `decompress_stream` (fade.members) code
files of any size frame by frame; `open`, `FadeFile`, `FadeCompressor` and
`FadeDecompressor` are the file object (fade.api) and the incremental coders
(fade.incremental). `import fade` adds the format "fadetar" (.tar.fade) to
shutil's (fade.tarballs); fade.numcodecs, fade.zarr and fade.fsspec are the
codecs of those libraries.
It never imports click or tqdm; progress is reported through a callback.
"""

import sys as _sys

from fade import environment  # first: before anything imports torch

environment.apply()

from fade.version import __version__  # noqa: E402

from fade.config import PRESETS, ModelConfig, default_batch_size  # noqa: E402
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError, FormatError  # noqa: E402
from fade.format.headers import CompactHeader, Header  # noqa: E402
from fade.frames import compress_stream, read_header  # noqa: E402
from fade.single import Settings, compress  # noqa: E402
from fade.members import decompress, decompress_stream  # noqa: E402  (one after another, too)
from fade.api import FadeFile, open  # noqa: E402
from fade.incremental import FadeCompressor, FadeDecompressor  # noqa: E402
from fade import tarballs  # noqa: E402

tarballs.register()  # shutil.make_archive(base, "fadetar", root), unpack_archive("x.tar.fade")
if "fsspec" in _sys.modules:  # fsspec.open(..., compression="fade"); otherwise import fade.fsspec
    import fade.fsspec  # noqa: E402, F401

__all__ = [
    "__version__",
    "ChecksumMismatchError", "CompactHeader", "CorruptArchiveError", "FadeCompressor",
    "FadeDecompressor", "FadeError", "FadeFile", "FormatError", "Header", "ModelConfig",
    "PRESETS", "Settings", "compress", "compress_stream", "decompress", "decompress_stream",
    "default_batch_size", "open", "read_header",
]


def _cli_from_source_checkout() -> None:
    """Let `import fade.cli` find the repository's cli/ folder when fade runs
    from a source checkout with nothing installed (PYTHONPATH=the checkout).

    The command line lives in cli/ at the top of the repository, and an
    install (a wheel, or `pip install -e .`) maps it into this package as
    fade.cli (setup.py's package_dir), so a wheel holds fade/cli/ and this
    does nothing there. A checkout has no fade/cli/: a finder placed after
    Python's own answers for the name fade.cli with ../cli (its modules,
    fade.cli.main and the rest, are then found through its __path__)."""
    import importlib.util
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    folder = here.parent / "cli"
    if (here / "cli").is_dir() or not (folder / "__init__.py").is_file():
        return

    class SourceCliFinder:
        """Finds fade.cli (and nothing else) in the checkout's cli/ folder."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "fade.cli":
                return None
            return importlib.util.spec_from_file_location(
                name, folder / "__init__.py", submodule_search_locations=[str(folder)])

    sys.meta_path.append(SourceCliFinder())


_cli_from_source_checkout()
