"""Which packages an install holds; everything else is in pyproject.toml."""

from setuptools import find_packages, setup

# fade and every package under it, found rather than listed (a listed set once
# left fade.floats out of the wheel), plus the command line: it lives in the
# repository's top-level cli/ folder and installs inside fade as fade.cli, so
# fade is the only top-level package an install adds. (pyproject.toml's
# find cannot rename a folder into another package; this needs setup().)
setup(packages=[*find_packages(include=["fade", "fade.*"]), "fade.cli"],
      package_dir={"fade.cli": "cli"})
