"""Modules that load when first used, not when fade is imported.

torch takes about 1.1 s of a fresh process's 1.5 s start (`python -X
importtime -m fade --help`), yet level fast, statistics, compact and float
archives, `fade info` and every error before a model is built never touch
it. `torch` here stands in for the module: its first attribute read imports
it (after fade.environment has set what torch reads when it loads) and
hands every read on to it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from fade.errors import FadeError


class LazyModule:
    """A module imported on its first attribute read."""

    def __init__(self, name: str):
        self._name = name

    def _module(self) -> ModuleType:
        try:
            return importlib.import_module(self._name)
        except ImportError as error:  # one line for the user, not an internal error
            raise FadeError(f"{self._name} cannot be imported here ({error}): the network and "
                            "learned archives need it (`fade info` names the build an archive "
                            "needs); levels fast and default do not") from None

    def __getattr__(self, attribute: str):
        return getattr(self._module(), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


torch = LazyModule("torch")
functional = LazyModule("torch.nn.functional")
