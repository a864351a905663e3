"""A name checked against a pattern anchored with ``$`` let one trailing line break through (``$``
also matches before a final ``\\n``): a tool named ``"add\\n"`` registered and was listed with the line
break, an environment variable name ``"FOO\\n"`` reached ``submit``'s command line, a registry name
``"org.example/x\\n"`` reached the discovery documents. Each check now matches the whole name."""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError
from nanohubmcp.server.executors.submit_run import check_values
from nanohubmcp.transports.registry_name import registry_name


def add(a: int, b: int) -> int:
    return a + b


@pytest.mark.parametrize("name", ["add\n", "add\r\n", "\nadd"])
def test_a_tool_name_with_a_line_break_is_refused(name: str) -> None:
    server = MCPServer("anchors")
    with pytest.raises(RegistrationError, match="names are 1-128 ASCII letters"):
        server.tool(name=name)(add)


def test_a_tool_name_without_one_still_registers() -> None:
    server = MCPServer("anchors")
    server.tool(name="add.v2")(add)
    assert "add.v2" in server.core.registry.tools


def test_a_submit_environment_name_with_a_line_break_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="env must be a dict of variable names"):
        check_values({"env": {"FOO\n": "1"}}, "submit option")
    check_values({"env": {"FOO": "1"}, "walltime": "00:10:00"}, "submit option")
    with pytest.raises(ConfigurationError, match="walltime"):
        check_values({"walltime": "10\n"}, "submit option")


def test_a_registry_name_with_a_line_break_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="reverse-DNS with one slash"):
        registry_name("x", None, "org.example/server\n")
    assert registry_name("x", None, "org.example/server") == "org.example/server"
