"""Import jsonschema without building the RFC 3987 grammar until an ``iri`` format check needs it.

Where jsonschema's ``format-nongpl`` extra is installed (jupyter-events pulls it in, so every JupyterLab
and nanoHUB environment has it), ``jsonschema/_format.py`` runs ``from rfc3987_syntax import
is_valid_syntax`` at import, and ``rfc3987_syntax`` compiles ~40 Earley parsers of its Lark grammar at
import: about 0.9 s of the ~1 s ``import jsonschema`` takes (issue 28). Only the ``iri`` and
``iri-reference`` formats ever call it.

:func:`deferred_iri_grammar` wraps the first import of jsonschema (ours, or a library's we import, such
as nbformat's): for the importing thread alone, while it imports, ``rfc3987_syntax`` resolves to a
stand-in whose ``is_valid_syntax`` imports the real module at its first call and delegates to it. The
stand-in leaves ``sys.modules`` as soon as jsonschema has taken the function (and at the latest when the
block ends), so every later ``import rfc3987_syntax`` — the user's too — gets the real module; jsonschema
checks ``iri`` with the real library, with the same verdicts. Nothing is done when jsonschema is already
imported, when ``rfc3987_syntax`` is already imported or not installed, or when another thread imports
it meanwhile (that thread gets the real module, and so does jsonschema).

A thread importing ``rfc3987_syntax`` in the window between the stand-in's import and jsonschema's look-up of the
function (microseconds) is handed the stand-in (``sys.modules`` is every thread's): the first name it asks of it,
``__file__`` or ``__spec__`` too, makes it the real module (the real namespace, a plain module's type). What that
thread keeps is then another object than ``sys.modules`` holds (``importlib.reload`` of it fails; the names in it
are the real module's, the same objects).

What stays visible: ``jsonschema._format``'s private reference to the function is the stand-in's
(:func:`_deferred`'s function), which delegates; and in an environment where ``rfc3987_syntax`` is installed but
cannot be imported, the ``iri`` formats pass (as they do without us, where jsonschema then leaves them
out) instead of jsonschema's import failing.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader  # a PEP 451 loader by protocol: importlib.abc is not imported for it

NAME = "rfc3987_syntax"
DEFERRED = frozenset({"is_valid_syntax"})
"""The functions the stand-in hands out unresolved; any other name imports the real module at once."""


def load_jsonschema() -> None:
    """Import jsonschema (once; a dictionary look-up afterwards), its RFC 3987 grammar deferred."""
    if "jsonschema" not in sys.modules:
        with deferred_iri_grammar():
            import jsonschema  # noqa: F401


@contextmanager
def deferred_iri_grammar() -> Iterator[None]:
    """While the block runs, this thread's first import of ``rfc3987_syntax`` gets a stand-in whose
    ``is_valid_syntax`` imports the real module at its first call; a no-op when jsonschema or
    ``rfc3987_syntax`` is already imported, or ``rfc3987_syntax`` (or its ``lark``) is not installed."""
    if "jsonschema" in sys.modules or NAME in sys.modules or not _installed():
        yield
        return
    finder = _StandInFinder(threading.get_ident())
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        finder.active = False
        with suppress(ValueError):  # someone rebuilt sys.meta_path meanwhile
            sys.meta_path.remove(finder)
        finder.forget()


def _installed() -> bool:
    try:
        return importlib.util.find_spec(NAME) is not None and importlib.util.find_spec("lark") is not None
    except (ImportError, ValueError):
        return False


class _StandInFinder:
    """A meta path finder that answers ``rfc3987_syntax`` with :class:`_StandIn` once, for one thread only."""

    def __init__(self, thread: int) -> None:
        self.thread = thread
        self.active = True
        self.made: ModuleType | None = None

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
                  ) -> ModuleSpec | None:
        if name != NAME or not self.active or threading.get_ident() != self.thread:
            return None
        self.active = False  # once: the stand-in's own imports of the name get the real module
        return ModuleSpec(NAME, cast("Loader", self), origin="deferred by nanohubmcp")

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        self.made = _StandIn(NAME, self.thread)
        return self.made

    def exec_module(self, module: ModuleType) -> None:
        pass

    def forget(self) -> None:
        """Take the stand-in out of ``sys.modules`` if it is still there (the real module is imported next)."""
        if isinstance(self.made, _StandIn):
            self.made.leave()


class _StandIn(ModuleType):
    """``rfc3987_syntax`` as the importing code first sees it: it leaves ``sys.modules`` at the first
    name the importing thread asks of it; a name in :data:`DEFERRED` is then a :func:`_deferred` function, any
    other the real one's. Asked by another thread (one that imported the name in the window before that), or
    after it left, it becomes the real module: its namespace the real one's, its type a plain module."""

    def __init__(self, name: str, thread: int) -> None:
        super().__init__(name)
        vars(self)[_IMPORTING] = thread

    def __getattr__(self, name: str) -> Any:
        importing = vars(self).get(_IMPORTING) == threading.get_ident()
        if importing and name.startswith("__"):  # the import system's own look-ups (__path__, __file__...)
            raise AttributeError(name)
        self.leave()
        if importing and name in DEFERRED:
            return _deferred(name)
        return getattr(self._become_real(), name)

    def leave(self) -> None:
        """Out of ``sys.modules``; from now on every name asked of it, the import system's ones (``__spec__``,
        ``__loader__``...) too, is the real module's."""
        if sys.modules.get(NAME) is self:
            del sys.modules[NAME]
        if vars(self).get(_IMPORTING) is not None:
            vars(self)[_IMPORTING] = None
            for name in _IMPORT_SYSTEM_NAMES:
                vars(self).pop(name, None)

    def _become_real(self) -> ModuleType:
        real = importlib.import_module(NAME)
        if real is not self:
            vars(self).update(vars(real))
            vars(self).pop(_IMPORTING, None)
            self.__class__ = ModuleType  # type: ignore[assignment]  # (a module's class may be set so)
        return real


_IMPORTING = "__nanohubmcp_importing_thread__"
"""Where a stand-in keeps the thread importing it (None once it left ``sys.modules``)."""
_IMPORT_SYSTEM_NAMES = ("__spec__", "__loader__", "__package__", "__doc__", "__file__", "__path__", "__cached__")
"""What the import system set on the stand-in (its spec: ``origin="deferred by nanohubmcp"``); dropped when it
leaves, so that a thread holding it reads the real module's."""


def _deferred(name: str) -> Callable[..., Any]:
    """``rfc3987_syntax.<name>``, imported at the first call and called from then on.

    An ``ImportError`` of that import answers True, as jsonschema does for a format it has no check for
    (it leaves the ``iri`` formats out when ``rfc3987_syntax`` fails to import)."""
    target: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not target:
            try:
                target.append(getattr(importlib.import_module(NAME), name))
            except ImportError:
                return True
        return target[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{NAME}.{name}, imported at the first call (nanohubmcp.schema.iri_grammar)."
    return call
