"""Which packages an install holds, and the statistics compiled for this
machine at install; everything else is in pyproject.toml."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def compiled_extensions() -> list[Extension]:
    """An extension module per composition of the statistics' models and
    one of the kinds' steps (fade.statistics.ahead), named for these
    sources and this CPU: none where the CPU's features cannot be read
    (numba compiles at run time there, as it does wherever a module is
    missing)."""
    sys.path.insert(0, str(ROOT))
    try:
        from fade.statistics.ahead import compositions
        from fade.statistics.compose import compiled_name
        names = [compiled_name(composition) for composition in [None, *compositions()]]
    finally:
        sys.path.remove(str(ROOT))
    return [Extension(f"fade.statistics.compiled.{name}", sources=[], optional=True)
            for name in names if name is not None]


class BuildCompiled(build_ext):
    """The statistics' models compiled by numba's ahead-of-time compiler,
    all in one run of fade.statistics.ahead (a process per model, as many
    at once as there are cores). Where that fails (no C compiler, a numba
    without pycc), the install goes on without them, with a warning."""

    def build_extensions(self) -> None:
        if not self.extensions:
            return
        folder = Path(self.get_ext_fullpath(self.extensions[0].name)).parent
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        try:
            subprocess.run([sys.executable, "-m", "fade.statistics.ahead", str(folder)],
                           cwd=ROOT, env=environment, check=True)
        except (OSError, subprocess.CalledProcessError) as error:
            self.warn(f"fade's statistics were not compiled at install ({error}): "
                      "each model compiles at its first use instead")
        if self.editable_mode or self.inplace:  # (the checkout's modules of earlier sources)
            current = {Path(self.get_ext_filename(ext.name)).name for ext in self.extensions}
            for module in (ROOT / "fade" / "statistics" / "compiled").glob("*.so"):
                if module.name not in current:
                    module.unlink()


# fade and every package under it, found rather than listed (a listed set once
# left fade.floats out of the wheel), plus the command line: it lives in the
# repository's top-level cli/ folder and installs inside fade as fade.cli, so
# fade is the only top-level package an install adds. (pyproject.toml's
# find cannot rename a folder into another package; this needs setup().)
setup(packages=[*find_packages(include=["fade", "fade.*"]), "fade.cli"],
      package_dir={"fade.cli": "cli"},
      ext_modules=compiled_extensions(),
      cmdclass={"build_ext": BuildCompiled})
