"""An attribute assigned anew of an instance a cached tool holds as a parameter's default (``def f(x, _m=P)``)
or of a ``types.SimpleNamespace`` / ``argparse.Namespace`` it reads by global name (``CFG.k = 5.0``) is a
change of its key, as the same line on an instance of the user's class read by global name is.

Found by a fresh-user trial (trial36 Z14, Z17): a default counted by its pickle only when the key was made and
a namespace by its pickle alone, neither followed when its attributes were assigned: the old result was
answered as a hit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from support import serve

from nanohubmcp import MCPServer

CACHE = "io.nanohub/cache"


class Model:
    def __init__(self) -> None:
        self.k = 2.0

    def predict(self, x: float) -> float:
        return x * self.k


DEFAULT = Model()
CFG = SimpleNamespace(k=2.0)
ARGS = argparse.Namespace(k=2.0)


def with_default(x: float, _m: Any = DEFAULT) -> float:
    """x through the default model."""
    return _m.predict(x)


def with_keyword_default(x: float, *, _m: Any = DEFAULT) -> float:
    """x through the default model, a keyword-only default."""
    return _m.predict(x)


def with_namespace(x: float) -> float:
    """x times the config's k."""
    return x * CFG.k


def with_arguments(x: float) -> float:
    """x times the parsed arguments' k."""
    return x * ARGS.k


def answer(server: MCPServer, tool: str) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": 2.0})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def test_a_default_instances_attribute_assigned_anew_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("defaults", state_dir=str(tmp_path))
    server.tool(cache=True)(with_default)
    server.tool(cache=True)(with_keyword_default)
    with serve(server):
        assert answer(server, "with_default") == (4.0, {"hit": False})
        assert answer(server, "with_keyword_default") == (4.0, {"hit": False})
        DEFAULT.k = 5.0
        assert answer(server, "with_default") == (10.0, {"hit": False})
        assert answer(server, "with_keyword_default") == (10.0, {"hit": False})
        assert answer(server, "with_default") == (10.0, {"hit": True})


def test_a_namespaces_attribute_assigned_anew_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("namespaces", state_dir=str(tmp_path))
    server.tool(cache=True)(with_namespace)
    server.tool(cache=True)(with_arguments)
    with serve(server):
        for tool, namespace in (("with_namespace", CFG), ("with_arguments", ARGS)):
            assert answer(server, tool) == (4.0, {"hit": False})
            assert answer(server, tool) == (4.0, {"hit": True})
            namespace.k = 5.0
            assert answer(server, tool) == (10.0, {"hit": False}), tool
            namespace.extra = 1  # a name set for the first time: a change too
            assert answer(server, tool) == (10.0, {"hit": False})
            assert answer(server, tool) == (10.0, {"hit": True})
