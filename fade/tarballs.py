"""Folders as tar archives coded by fade, for shutil: after `import fade`,

    >>> shutil.make_archive("backup", "fadetar", "project")   # -> backup.tar.fade
    >>> shutil.unpack_archive("backup.tar.fade", "restored")

The tar is streamed through `fade.FadeFile` (frames as they fill: bounded
memory, whatever the folder's size), at the default level, and can be read
back by `fade -d` as a plain .tar too. `register` (called by `import fade`)
adds the archive format and the unpack format "fadetar" (suffix .tar.fade)
to shutil's tables.

The archive is written beside its final name and renamed there only once it
is whole, so an error or Ctrl-C leaves nothing half-written; as shutil's own
formats do, an archive of the same name is replaced. Unpacking uses
tarfile's "data" filter unless shutil is given another (`filter=`), so an
archive cannot write outside the folder it is unpacked into.
"""

from __future__ import annotations

import os
import shutil

FORMAT = "fadetar"
SUFFIX = ".tar.fade"

__all__ = ["FORMAT", "SUFFIX", "make_tarball", "register", "unpack_tarball"]


def _owner(tarinfo, owner: str | None, group: str | None):
    """`tarinfo` with the owner and group asked for by name (shutil's owner=, group=)."""
    if owner is not None:
        import pwd

        tarinfo.uname = owner
        tarinfo.uid = pwd.getpwnam(owner).pw_uid
    if group is not None:
        import grp

        tarinfo.gname = group
        tarinfo.gid = grp.getgrnam(group).gr_gid
    return tarinfo


def make_tarball(base_name: str, base_dir: str, dry_run: bool = False, owner: str | None = None,
                 group: str | None = None, logger=None, root_dir: str | None = None,
                 level: str = "default") -> str:
    """Write `base_name`.tar.fade holding `base_dir` (under `root_dir`, or the
    current folder, where shutil has moved); returns the archive's name."""
    import tarfile
    import tempfile

    from fade.api import FadeFile

    name = os.fspath(base_name) + SUFFIX
    if logger is not None:
        logger.info("creating %s", name)
    if dry_run:
        return name
    folder = os.path.dirname(name)
    if folder:
        os.makedirs(folder, exist_ok=True)
    source = base_dir if root_dir is None else os.path.join(root_dir, base_dir)
    descriptor, partial = tempfile.mkstemp(prefix=os.path.basename(name) + ".",
                                           suffix=".part", dir=folder or ".")
    try:
        with os.fdopen(descriptor, "wb") as raw, FadeFile(raw, "wb", level=level) as file, \
                tarfile.open(fileobj=file, mode="w|") as tar:
            tar.add(source, arcname=base_dir,
                    filter=lambda tarinfo: _owner(tarinfo, owner, group))
        os.replace(partial, name)
    except BaseException:
        os.unlink(partial)
        raise
    return os.path.abspath(name) if root_dir is not None else name


def unpack_tarball(filename: str, extract_dir: str, *, filter=None) -> None:
    """Unpack the .tar.fade `filename` into `extract_dir` (tarfile's "data"
    filter unless `filter` names another)."""
    import tarfile

    from fade.api import FadeFile

    options = {}
    if hasattr(tarfile, "data_filter"):  # Python 3.10.12, 3.11.4 and later
        options["filter"] = "data" if filter is None else filter
    elif filter is not None:
        raise ValueError("this Python's tarfile has no extraction filters")
    try:
        with FadeFile(filename) as file, tarfile.open(fileobj=file, mode="r|") as tar:
            tar.extractall(extract_dir, **options)
    except tarfile.ReadError as error:
        raise shutil.ReadError(f"{filename} holds no tar archive: {error}") from error


def register() -> None:
    """Add "fadetar" to shutil's archive and unpack formats (again is harmless)."""
    if FORMAT not in {name for name, _ in shutil.get_archive_formats()}:
        shutil.register_archive_format(FORMAT, make_tarball,
                                       description="tar file coded by fade")
    if FORMAT not in {name for name, _, _ in shutil.get_unpack_formats()}:
        shutil.register_unpack_format(FORMAT, [SUFFIX], unpack_tarball,
                                      description="tar file coded by fade")
