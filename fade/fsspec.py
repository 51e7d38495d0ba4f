"""fade as an fsspec compression: `fsspec.open("data.csv.fade", "rt",
compression="infer")` (or `compression="fade"`) reads and writes fade
archives on any filesystem fsspec reaches, and pandas, dask and xarray read
through it.

    >>> import fade.fsspec, fsspec, pandas
    >>> with fsspec.open("data.csv.fade", "rt", compression="infer") as file:
    ...     table = pandas.read_csv(file)

Importing this module registers the name "fade" and the suffix ".fade";
`import fade` does the same where fsspec is already imported. (fsspec reads
no entry point for compressions, only for filesystems, fsspec issue #1187,
so an import is needed.) The file object is `fade.FadeFile`: over a file
that can seek, a seek into a frames archive decodes only the frames it
needs; writing makes one archive at the default level.
"""

from __future__ import annotations

import fsspec.compression

from fade.api import FadeFile

__all__ = ["register"]


def _open(file, mode: str = "rb", **options) -> FadeFile:
    """fsspec's callback: `file` (a binary file object) as a fade file."""
    return FadeFile(file, mode, **options)


def register() -> None:
    """Register the compression "fade" (suffix .fade) with fsspec; again is harmless."""
    fsspec.compression.register_compression("fade", _open, "fade", force=True)


register()
