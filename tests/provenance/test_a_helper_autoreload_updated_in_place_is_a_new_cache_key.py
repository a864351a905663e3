"""A cached tool's key follows a helper whose code was replaced in place (found with W1: IPython's
``%autoreload`` gives a reloaded module's functions their new code on the same function objects,
``f.__code__ = new.__code__``, so a notebook's ``from mylib import g`` stays bound to the same object;
the key compared the bindings' identities only and answered the old code's result as a hit).

IPython's own ``update_function`` does the replacing, as ``%autoreload`` does after an edit.
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest

autoreload = pytest.importorskip("IPython.extensions.autoreload")

CACHE = "io.nanohub/cache"


def test_a_helper_given_new_code_in_place_is_a_new_key_and_its_old_code_again_a_hit(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    namespace = types.ModuleType("cells").__dict__
    exec("def g(x):\n    return x * 2\n\n\ndef tool(x: float) -> float:\n    '''g of x.'''\n    return g(x)\n",
         namespace)
    old_code = namespace["g"].__code__
    edited: dict[str, object] = {}
    exec("def g(x):\n    return x * 10\n", edited)
    server = MCPServer("autoreloaded", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(namespace["tool"])
    server.start(port=0)
    try:
        def call() -> tuple[str, bool]:
            result = server.call("tool", {"x": 1})
            return result["content"][0]["text"], result["_meta"][CACHE]["hit"]

        assert [call(), call()] == [("2.0", False), ("2.0", True)]
        autoreload.update_function(namespace["g"], edited["g"])  # what %autoreload does after an edit
        assert [call(), call()] == [("10.0", False), ("10.0", True)]
        namespace["g"].__code__ = old_code  # the edit undone: the old code's entry
        assert call() == ("2.0", True)
    finally:
        server.stop()
