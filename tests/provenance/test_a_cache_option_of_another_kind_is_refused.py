"""``cache=`` takes True, False, ``"private"`` or ``"shared"``: anything else (``1``, ``0``, ``1.0``,
``"yes"``) is refused when the tool is registered, with a message naming the tool and the value."""

from __future__ import annotations

import httpx2
import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


@pytest.mark.parametrize("cache", [1, 0, 1.0, "yes", "True", ["shared"]])
def test_a_cache_value_of_another_kind_is_refused_at_registration(cache: object) -> None:
    """trial14 F12: ``cache=1`` registered as ``cache=True`` (1 == True) while ``cache="yes"`` was
    refused, and ``cache_ttl=True`` is refused too: the check compared by ``==``, not by kind."""
    server = MCPServer("cache-kinds")
    with pytest.raises(RegistrationError, match=r"tool 'f': cache must be True, False, 'private' or 'shared', not "):

        @server.tool(cache=cache)  # type: ignore[arg-type]
        def f(x: int) -> int:
            """Echo."""
            return x


@pytest.mark.parametrize("cache", [True, False, None, "private", "shared"])
def test_the_documented_cache_values_register(cache: object) -> None:
    server = MCPServer("cache-kinds")

    @server.tool(cache=cache)  # type: ignore[arg-type]
    def f(x: int) -> int:
        """Echo."""
        return x

    with serve(server) as url:
        answer = httpx2.post(url + "tools/f", json={"x": 2}, timeout=10)
        assert answer.status_code == 200, answer.text
        assert str(answer.json()["result"]) == "2"
