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

import importlib as _importlib
import importlib.util as _importlib_util
import sys as _sys

from fade import environment  # first: before anything imports torch

environment.apply()

from fade.version import __version__  # noqa: E402
from fade import tarballs  # noqa: E402  (os and shutil only)

tarballs.register()  # shutil.make_archive(base, "fadetar", root), unpack_archive("x.tar.fade")
if "fsspec" in _sys.modules:  # fsspec.open(..., compression="fade"); otherwise import fade.fsspec
    import fade.fsspec  # noqa: E402, F401

# The library's names, each imported from its module when first used (PEP
# 562): `import fade` costs no more than Python's start and these lines (no
# numpy, no numba, no torch), and a name costs what its module needs.
_NAMES = {
    "PRESETS": "fade.config", "ModelConfig": "fade.config",
    "default_batch_size": "fade.config",
    "ChecksumMismatchError": "fade.errors", "CorruptArchiveError": "fade.errors",
    "FadeError": "fade.errors", "FormatError": "fade.errors",
    "CompactHeader": "fade.format.headers", "Header": "fade.format.headers",
    "compress_stream": "fade.frames", "read_header": "fade.frames",
    "Settings": "fade.single", "compress": "fade.single",
    "decompress": "fade.members", "decompress_stream": "fade.members",  # (one after another, too)
    "FadeFile": "fade.api", "open": "fade.api",
    "FadeCompressor": "fade.incremental", "FadeDecompressor": "fade.incremental",
}

__all__ = ["__version__", *sorted(_NAMES)]


def __getattr__(name: str):
    """A library name from its module, or one of fade's modules (`fade.kinds`
    after `import fade`, as when the package imported them all)."""
    if name in _NAMES:
        value = getattr(_importlib.import_module(_NAMES[name]), name)
    elif name.isidentifier() and not name.startswith("__") and \
            _importlib_util.find_spec(f"fade.{name}") is not None:
        value = _importlib.import_module(f"fade.{name}")
    else:
        raise AttributeError(f"module 'fade' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))


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
    import os
    import sys

    here = os.path.dirname(os.path.realpath(__file__))
    folder = os.path.join(os.path.dirname(here), "cli")
    if os.path.isdir(os.path.join(here, "cli")) or \
            not os.path.isfile(os.path.join(folder, "__init__.py")):
        return

    class SourceCliFinder:
        """Finds fade.cli (and nothing else) in the checkout's cli/ folder."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "fade.cli":
                return None
            return importlib.util.spec_from_file_location(
                name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])

    sys.meta_path.append(SourceCliFinder())


_cli_from_source_checkout()
