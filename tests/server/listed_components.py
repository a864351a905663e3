"""What the tests of registration's refusals share: a server with one tool, resource and prompt that must
still list in the official client after a refusal, and the small functions registered."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import client_session

Registering = Callable[[MCPServer], object]
"""Registers something on the server it is given (``lambda s: s.tool(title=b"x")(one)``)."""


def one(x: float = 1.0) -> float:
    """Give x back."""
    return x


def text() -> str:
    """Some text."""
    return "x"


def by_id(pid: str) -> str:
    """A text by id."""
    return pid


def kept_server() -> MCPServer:
    """A server holding the tool ``kept``, the resource ``kept_resource`` and the prompt ``kept_prompt``."""
    server = MCPServer("fields")
    server.tool(name="kept")(one)
    server.resource("data://kept", name="kept_resource", annotations={"audience": ["user"], "priority": 0.5})(text)
    server.prompt(name="kept_prompt")(text)
    return server


async def everything_still_lists(server: MCPServer) -> None:
    """The official client lists what :func:`kept_server` holds, and nothing else."""
    async with client_session(server) as session:
        assert [t.name for t in (await session.list_tools()).tools] == ["kept"]
        assert [r.name for r in (await session.list_resources()).resources] == ["kept_resource"]
        assert [t.uri_template for t in (await session.list_resource_templates()).resource_templates] == [
            "nanohubmcp://results/{id}{?part}"]  # the server's own: a kept result's parts
        assert [p.name for p in (await session.list_prompts()).prompts] == ["kept_prompt"]


async def refused_and_the_rest_lists(make: Registering, message: str) -> None:
    """``make`` on a :func:`kept_server` raises ``RegistrationError`` whose text holds ``message``, and the
    official client then lists the rest (:func:`everything_still_lists`)."""
    server = kept_server()
    with pytest.raises(RegistrationError, match=re.escape(message)):
        make(server)
    await everything_still_lists(server)
