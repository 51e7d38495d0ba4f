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
    """A module imported on its first attribute read (then kept)."""

    def __init__(self, name: str, optional: bool = True, on_a_thread: bool = False):
        self._name = name
        self._optional = optional  # a missing one is the user's one-line error
        self._on_a_thread = on_a_thread  # imported on a thread of its own (`_imported`)

    def _module(self) -> ModuleType:
        try:
            module = _imported(self._name) if self._on_a_thread else \
                importlib.import_module(self._name)
        except ImportError as error:  # one line for the user, not an internal error
            if not self._optional:
                raise
            raise FadeError(f"{self._name} cannot be imported here ({error}): the network and "
                            "learned archives need it (`fade info` names the build an archive "
                            "needs); levels fast and default do not") from None
        self.__dict__["_loaded"] = module
        return module

    def __getattr__(self, attribute: str):
        loaded = self.__dict__.get("_loaded")
        return getattr(loaded if loaded is not None else self._module(), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def _imported(name: str) -> ModuleType:
    """importlib.import_module(name), run on a thread of its own: a first
    read can come deep in a call (a decode's memory check), and CPython
    3.11 grows a thread's frame stack in 16 KiB chunks, freeing one each
    time the stack falls back below it; numpy's nested imports at that
    depth made 1,600 mmap and munmap pairs (35 ms of system time) where a
    fresh thread's shallow stack makes none."""
    import threading

    found: list = []

    def load() -> None:
        try:
            found.append(importlib.import_module(name))
        except BaseException as error:  # raised again in the caller's thread
            found.append(error)
    loader = threading.Thread(target=load, name=f"fade-import-{name}")
    loader.start()
    loader.join()
    if isinstance(found[0], BaseException):
        raise found[0]
    return found[0]


torch = LazyModule("torch")
# numpy (about 65 ms of a process's start) loads where bytes are screened,
# modelled or laid out, not for an input too small for any model
numpy = LazyModule("numpy", optional=False, on_a_thread=True)
functional = LazyModule("torch.nn.functional")
