"""tqdm bars in a tool become that call's progress, with no change to the tool's code.

How it hooks in, using only what tqdm offers for it: every tqdm bar takes its class's write
lock (``tqdm.get_lock()``) when it is created, each time it redraws, and when it closes; tqdm
lets a program replace that lock (``tqdm.set_lock``, meant for sharing one lock between
threads or processes). :func:`watch` installs :class:`_ReportingLock`, which passes every
acquire and release to the lock it replaces and, when a bar lets go of it:

- claims each bar it has not seen before for the call running in the creating thread
  (:data:`.progress.CURRENT`; bars made outside calls, or under a lock of their own, are left
  alone), and
- for a claimed bar whose count moved, reports ``bar.n`` / ``bar.total`` to its call.

So each redraw of a bar (tqdm rate-limits them: ``mininterval``, 0.1 s by default) is one
``notifications/progress``, and closing the bar sends its final count. One bar leads per
call: the first one made; bars nested inside it are not reported, and a bar made after the
leader closed continues from where it left off, so the values keep increasing (MCP
2025-11-25, Basic § Utilities § Progress).

tqdm is never imported here. When the program has not imported it yet (a tool that imports
tqdm itself, the usual notebook style), :func:`watch` asks the import system to install the
hook right after ``tqdm.std`` loads, so the first bar of that very call reports too. Works
alike for ``tqdm``, ``tqdm.auto``, ``tqdm.notebook`` and ``tqdm.asyncio``: all take the lock of
``tqdm.std.tqdm`` unless they hold one of their own. A subclass holds tqdm's default lock of
its own when its first bar was made before the hook (tqdm's ``get_lock`` stores it on the
class whose bar asked); the hook wraps those too. Bars of a class given another lock
(``tqdm.contrib.concurrent`` does, while its map runs) are not seen.
"""

from __future__ import annotations

import importlib.util
import sys
import weakref
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from ..wire.fork_safe import ForkSafeLock
from .progress import CallProgress, current

if TYPE_CHECKING:
    # importlib.abc imports importlib.resources (a tenth of a served script's imports): the
    # loader below is one by protocol (PEP 451: create_module, exec_module), not by base class.
    from importlib.abc import Loader

__all__ = ["watch"]

_install_lock = ForkSafeLock()
_installed: list[Any] = []  # the tqdm base class, once hooked


def watch() -> None:
    """Hook tqdm now if the program has imported it, else as soon as it does (cheap once done)."""
    if _installed:
        return
    std = sys.modules.get("tqdm.std")
    base = getattr(std, "tqdm", None)
    if base is None or not hasattr(base, "set_lock"):
        if std is None and not _import_watcher.waiting:
            _import_watcher.wait()
        return
    with _install_lock:
        if not _installed:
            lock = _ReportingLock(base.get_lock(), base)
            base.set_lock(lock)
            default = getattr(std, "TqdmDefaultWriteLock", None)
            for cls in _subclasses(base):  # made a bar before the hook: tqdm gave them a lock of their own
                own = vars(cls).get("_lock")
                if default is not None and isinstance(own, default):
                    cls.set_lock(lock.twin(own))
            _installed.append(base)


def _subclasses(cls: Any) -> list[Any]:
    found: list[Any] = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


class _WatchingLoader:
    """``tqdm.std``'s own loader, then :func:`watch` once the module has run (other calls pass through)."""

    def __init__(self, inner: Loader) -> None:
        self._inner = inner

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        watch()

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... of the real loader
        return getattr(self._inner, name)


class _ImportWatcher:
    """A one-shot entry of ``sys.meta_path``: runs :func:`watch` right after ``tqdm.std`` loads.

    It finds the module's spec the usual way and answers the same spec with a loader that runs
    the real one, then :func:`watch`; every other import passes through untouched (PEP 451
    finders). Nothing of the import system is changed in place.
    """

    def __init__(self) -> None:
        self.waiting = False

    def wait(self) -> None:
        with _install_lock:
            if not self.waiting:
                self.waiting = True
                sys.meta_path.insert(0, self)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "tqdm.std":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or spec.origin is None or not hasattr(spec.loader, "exec_module"):
            return spec  # nothing to wrap: the next call's watch() hooks the module once loaded
        return importlib.util.spec_from_file_location(
            fullname,
            spec.origin,
            loader=_WatchingLoader(spec.loader),
            submodule_search_locations=spec.submodule_search_locations,
        )


_import_watcher = _ImportWatcher()


def _identity(value: object) -> Any:
    return value


class _Bar(Protocol):
    """What is read of a tqdm bar (``tqdm.std.tqdm``; tqdm is never imported here)."""

    n: float
    total: float | None
    disable: bool


class _Lock(Protocol):
    """A write lock tqdm holds while a bar changes (``TqdmDefaultWriteLock``)."""

    def acquire(self, *args: Any, **kwargs: Any) -> Any: ...

    def release(self) -> None: ...


class _Feed:
    """The bars one call made, and which of them speaks for it."""

    __slots__ = ("base", "lead", "tracker")

    def __init__(self, tracker: CallProgress) -> None:
        self.tracker = tracker
        self.lead: weakref.ref[_Bar] | None = None
        self.base = 0.0  # progress carried over from bars that led before

    def step(self, bar: _Bar) -> tuple[CallProgress, float, float | None, str] | None:
        """The report ``bar``'s new count makes, or None (not the leading bar)."""
        lead = self.lead() if self.lead is not None else None
        if lead is None or (lead is not bar and lead.disable):  # no leader yet, or it is gone/closed
            if self.lead is not None:
                self.base = self.tracker.last or self.base
            self.lead = weakref.ref(bar)
        elif lead is not bar:
            return None
        n, total = bar.n, bar.total
        desc = (getattr(bar, "desc", "") or "").rstrip(": ")
        count = f"{n:g}/{total:g}" if total else f"{n:g}"
        message = f"{desc}: {count}" if desc else count
        return self.tracker, self.base + n, (self.base + total) if total else None, message


class _ReportingLock:
    """tqdm's write lock, passed through, telling calls about their bars on each release."""

    def __init__(self, inner: _Lock, base: type) -> None:
        self._inner = inner
        self._base = base
        self._seen: weakref.WeakSet[Any] = weakref.WeakSet()
        self._claimed: weakref.WeakKeyDictionary[Any, tuple[_Feed, float | None]] = weakref.WeakKeyDictionary()
        self._feeds: weakref.WeakKeyDictionary[CallProgress, _Feed] = weakref.WeakKeyDictionary()

    def twin(self, inner: _Lock) -> _ReportingLock:
        """The same bookkeeping around another lock (a subclass's own), so all bars count alike."""
        twin = _ReportingLock(inner, self._base)
        twin._seen, twin._claimed, twin._feeds = self._seen, self._claimed, self._feeds
        return twin

    def acquire(self, *args: Any, **kwargs: Any) -> Any:
        return self._inner.acquire(*args, **kwargs)

    def release(self) -> None:
        try:
            reports = self._collect()
        finally:
            self._inner.release()
        for tracker, progress, total, message in reports:
            tracker.report(progress, total, message, source="tqdm")

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def __getattr__(self, name: str) -> Any:  # e.g. TqdmDefaultWriteLock.locks
        return getattr(self._inner, name)

    def __reduce__(self) -> Any:  # sent to worker processes as the lock it wraps
        return _identity, (self._inner,)

    def _collect(self) -> list[tuple[CallProgress, float, float | None, str]]:
        """Claim new bars for the running call; the reports of claimed bars that moved.

        Runs while tqdm's lock is held, so bars cannot change underneath it.
        """
        for bar in list(getattr(self._base, "_instances", ())):
            if bar in self._seen:
                continue
            self._seen.add(bar)
            tracker = current()
            # Only a bar still being made (no count yet) is this thread's own: its creator holds the
            # lock from adding it to tqdm's instances until this release. A bar first seen later
            # was made under another lock, by a thread that may serve another call (or none).
            if tracker is not None and not tracker.finished and not hasattr(bar, "n"):
                feed = self._feeds.get(tracker)
                if feed is None:
                    feed = self._feeds[tracker] = _Feed(tracker)
                self._claimed[bar] = (feed, None)
        reports = []
        for bar, (feed, shown) in list(self._claimed.items()):
            if feed.tracker.finished:
                del self._claimed[bar]
                continue
            n = getattr(bar, "n", None)
            if n is None or n == shown or getattr(bar, "disable", None) is None:
                continue
            self._claimed[bar] = (feed, n)
            report = feed.step(bar)
            if report is not None:
                reports.append(report)
        return reports
