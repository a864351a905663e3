"""Read the import-name -> distributions table provenance maps a tool's modules by (:mod:`.code_facts`).

:func:`read_table` is the read itself: ``importlib.metadata.packages_distributions()``, each name's distributions
sorted, plus ``"top.second"`` keys for the names several distributions share (:func:`namespaces`), over a second on
a busy machine. :mod:`.code_facts` runs it in a child process (:func:`start_child`, :func:`child_table`): this
file run as a script (``python -I distributions_read.py``, only the standard library), given the parent's
``sys.path`` on stdin, prints the table as JSON. The parent's interpreter lock is then never held for the read (the
event loop answers calls meanwhile at full speed), and an exit kills the child at once (:func:`stop_child`) where
it waited for a thread reading metadata in-process (a daemon one can crash the interpreter's finalization). The
child reads the same ``sys.path`` with the same interpreter, so its table is the in-process read's, to the byte.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from typing import IO, Any

MAX_BYTES = 64 * 1024 * 1024
"""The most a child's table may print (this package's ``.venv``, 280 distributions: ~40 KB)."""


def read_table() -> dict[str, list[str]]:
    """``{import name: sorted distribution names}``, with ``"top.second"`` keys for the names several share.

    Raises:
        Exception: what a broken distribution's metadata raises."""
    from importlib import metadata  # here: importing it costs a served script's start a tenth of a second

    table = {name: sorted(set(dists)) for name, dists in metadata.packages_distributions().items()}
    table.update(namespaces(metadata, {name: dists for name, dists in table.items() if len(dists) > 1}))
    return table


def namespaces(metadata: Any, shared: dict[str, list[str]]) -> dict[str, list[str]]:
    """``{"top.second": distributions}`` of the import names several distributions share (``shared``:
    a namespace package, or a package others add modules to), from those distributions' files."""
    found: dict[str, set[str]] = {}
    for name in sorted({dist for dists in shared.values() for dist in dists}):
        try:
            files = metadata.distribution(name).files or ()
        except metadata.PackageNotFoundError:
            continue
        for path in files:
            parts = path.parts
            if len(parts) > 1 and parts[0] in shared and parts[1] != "__pycache__":
                second = parts[1].partition(".")[0] if len(parts) == 2 else parts[1]
                if second and second != "__init__":
                    found.setdefault(f"{parts[0]}.{second}", set()).add(name)
    return {key: sorted(names) for key, names in found.items()}


def start_child() -> Any:
    """Start the child that reads the table (a ``subprocess.Popen``; its stdout a pipe, given this process's
    ``sys.path`` and working folder).

    Raises:
        OSError: no child can be started (no ``sys.executable``, an embedded interpreter, no process left),
            or this file is not on disk (a zipped install): read in-process instead."""
    here = os.path.abspath(__file__)
    if not sys.executable or not os.path.isfile(here) or not here.endswith(".py"):
        raise OSError("no interpreter or script to read the distributions table in a child process")
    child = subprocess.Popen([sys.executable, "-I", here], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    assert child.stdin is not None
    try:
        child.stdin.write(json.dumps(sys.path).encode())
        child.stdin.close()
    except OSError:  # the child died at once: its output is empty, the caller reads in-process
        pass
    return child


def child_table(child: Any, timeout: float) -> dict[str, list[str]] | None:
    """The table ``child`` (:func:`start_child`) printed, or None: it failed, or printed no table or more than
    :data:`MAX_BYTES` (then killed).

    Raises:
        TimeoutError: it did not end within ``timeout`` s (killed)."""
    stdout: IO[bytes] = child.stdout
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or size > MAX_BYTES:
                stop_child(child)
                stdout.close()
                if left <= 0:
                    raise TimeoutError(f"the distributions table was not read in {timeout} s")
                return None
            if not selector.select(left):
                continue
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    stdout.close()
    if child.wait() != 0:
        return None
    try:
        table = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return table if isinstance(table, dict) else None


def stop_child(child: Any) -> None:
    """Kill ``child`` if it is still reading (this process exits: nothing waits for its table)."""
    if child.poll() is None:
        child.kill()
        child.wait()


def _main() -> int:
    sys.path[:] = json.loads(sys.stdin.read())
    try:
        table = read_table()
    except Exception:
        return 1
    sys.stdout.write(json.dumps(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
