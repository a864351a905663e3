"""Two tools whose code is two numpy ufuncs (``np.sin``, ``np.cos``, reached through a wrapper's
``__wrapped__``) record two code hashes, each naming its ufunc and numpy's version (review r20, L7).

A callable object's code was hashed as its class's: every ufunc is one ``numpy.ufunc``, a C type with no
source, so ``np.sin`` and ``np.cos`` tools recorded the same hash in provenance (and the result cache's key,
which holds it, could not tell their code apart by it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.code_facts import code_hash, code_of

np = pytest.importorskip("numpy")


def elementwise(ufunc: Any) -> Callable[[float], float]:
    """A tool made from a ufunc, as a decorator factory makes one: ``functools.wraps`` names it after the
    ufunc and keeps it as ``__wrapped__``; the signature is the tool's own (a ufunc's is positional-only)."""

    @functools.wraps(ufunc)
    def call(x: float) -> float:
        return float(ufunc(x))

    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=float)], return_annotation=float
    )
    return call


def registered() -> MCPServer:
    server = MCPServer("ufuncs", provenance=False)
    server.tool(name="sine", description="sin(x)")(elementwise(np.sin))
    server.tool(name="cosine", description="cos(x)")(elementwise(np.cos))
    return server


def test_each_ufunc_tool_has_a_code_hash_of_its_own_the_same_in_another_server() -> None:
    first, again = registered(), registered()
    sine, cosine = (first.core.registry.tools.get(name) for name in ("sine", "cosine"))
    assert code_hash(sine) != code_hash(cosine)
    assert code_hash(sine) == code_hash(again.core.registry.tools.get("sine"))  # a name: the same in every process


def test_the_record_names_the_ufunc_and_numpys_version() -> None:
    record = code_of(registered().core.registry.tools.get("cosine"))
    assert (record["module"], record["qualname"]) == ("numpy", "cos")
    assert record["packages"].get("numpy") == np.__version__
