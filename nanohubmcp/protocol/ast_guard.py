"""Python source parsed on any thread: :func:`parse` and :func:`literal_eval`, one at a time where CPython needs it.

On CPython 3.11.0-3.11.7 and 3.12.0-3.12.1, building the ``ast`` objects of a parse (``ast.parse``,
``ast.literal_eval`` of a string, ``compile(..., ast.PyCF_ONLY_AST)``) keeps its recursion depth in state the
whole interpreter shares. When Python code runs in the middle of that build (a garbage collection's callback or
finalizer: the worker pool's collection timing, :func:`nanohubmcp.server.calls.slow_calls.count_collections`, is
one in every server) and another thread starts a parse meanwhile, the first one fails with ``SystemError: AST
constructor recursion depth mismatch (before=18, after=19)``: two Sim2L calls at once could fail so (a 500). That
is CPython issue gh-106905 (https://github.com/python/cpython/issues/106905), fixed by GH-113035, backported to
3.12 (GH-113472) and 3.11 (GH-113476) on 2023-12-25: 3.11.8, 3.12.2 and 3.13 are free of it.

Every parse of the package goes through this module. On the affected versions those parses take one process-wide
re-entrant lock (a finalizer that runs during a parse may parse again on the same thread); elsewhere they run as
they are. Parses by other libraries (IPython, pytest) do not take it. Compiling source straight to a code object
(``compile(text, name, "exec")``) and :func:`ast.literal_eval` of a node build no ``ast`` objects: not affected.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import threading
from typing import Any

__all__ = ["AST_LOCK", "SHARED_AST_DEPTH", "literal_eval", "parse"]

SHARED_AST_DEPTH: bool = sys.implementation.name == "cpython" and (
    (3, 11) <= sys.version_info[:3] < (3, 11, 8) or (3, 12) <= sys.version_info[:3] < (3, 12, 2))
"""True on the CPython versions whose ``ast`` builds share their recursion depth between threads (gh-106905)."""

AST_LOCK: contextlib.AbstractContextManager[Any] = threading.RLock() if SHARED_AST_DEPTH else contextlib.nullcontext()
"""Held around every parse of the package on the affected versions (re-entrant); a no-op elsewhere."""


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` (a module's statements: ``SyntaxError`` for what is no Python,
    ``ValueError`` for a null byte), under :data:`AST_LOCK`."""
    with AST_LOCK:
        return ast.parse(source, filename)


def literal_eval(node_or_string: str | ast.AST) -> Any:
    """:func:`ast.literal_eval` (same result and errors: ``ValueError`` for what is no literal, ``SyntaxError``,
    ``MemoryError``/``RecursionError`` for one too deep), under :data:`AST_LOCK` when given a string."""
    if isinstance(node_or_string, ast.AST):
        return ast.literal_eval(node_or_string)
    with AST_LOCK:
        return ast.literal_eval(node_or_string)
