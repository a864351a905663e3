"""Cold start: with Jupyter's optional format checkers installed, ``import jsonschema`` costs
seconds, so a server of simple generated schemas must start without it (regression: every
example took about 2 s to start), and its first bad call must be told why without it (trial10 F3b,
trial11 F16: 0.8-2.5 s). A schema with keywords beyond those signatures produce (a hand-written
``pattern``, ``$ref``...) still gets jsonschema.
"""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from nanohubmcp import MCPServer
server = MCPServer("cold")

@server.tool()
def add(a: float, b: float = 1.0, note: str | None = None) -> float:
    return a + b

tool = server.core.registry.tools.get("add")
tool.validator.validate({"a": 1, "b": 2, "note": None})
print("jsonschema" in sys.modules)
try:
    tool.validator.validate({"a": "x", "note": 5, "extra": 1})
except Exception as exc:
    print(type(exc).__name__, "jsonschema" in sys.modules)
    print(str(exc))
"""


def test_generated_schemas_need_no_jsonschema_even_when_a_call_fails() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True)
    lines = out.stdout.splitlines()
    assert lines[:2] == ["False", "InvalidArguments False"]
    assert lines[2:] == [  # jsonschema's messages, as before (test_simple_errors_agree_with_jsonschema)
        "Invalid arguments for tool 'add': arguments: Additional properties are not allowed (\"extra\" was unexpected)",
        'Invalid arguments for tool \'add\': arguments.a: "x" is not of type "number"',
        'Invalid arguments for tool \'add\': arguments.note: 5 is not of type "string", "null"',
    ]


PATTERN_SCRIPT = """
import sys
from nanohubmcp import MCPServer
server = MCPServer("cold-pattern")

@server.tool(input_schema={"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]+$"}}})
def look_up(code: str) -> str:
    return code

print("jsonschema" in sys.modules)
"""


def test_a_hand_written_schema_beyond_the_simple_keywords_still_uses_jsonschema() -> None:
    out = subprocess.run([sys.executable, "-c", PATTERN_SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"]  # checked at registration


SECRET_SCRIPT = """
import sys
from nanohubmcp import MCPServer, Secret
server = MCPServer("cold-secret")

@server.tool()
def login(user: str, key: Secret = "") -> str:
    return user

server.core.registry.tools.get("login").validator.validate({"user": "a", "key": "s3cret"})
print("jsonschema" in sys.modules)
"""


def test_a_tool_with_a_secret_argument_is_called_without_jsonschema() -> None:
    """Found by a fresh-user trial: the first call of a tool taking a ``Secret`` took 2.4-5 s (0.3 s
    for others): the secret's ``format: password`` kept its schema off the fast path, so the first
    call imported jsonschema (and its RFC 3987 grammar) just to accept valid arguments."""
    out = subprocess.run([sys.executable, "-c", SECRET_SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "False"


def test_a_hand_written_schema_is_checked_at_registration() -> None:
    import pytest

    from nanohubmcp import MCPServer
    from nanohubmcp.errors import RegistrationError

    server = MCPServer("strict")
    with pytest.raises(RegistrationError, match="invalid input schema"):
        server.add_tool(lambda **kw: 1, name="bad", input_schema={"type": "object", "properties": {"a": {"type": 3}}})


RAPPTURE_SCRIPT = """
import sys
from nanohubmcp import MCPServer
server = MCPServer("cold-rappture")
server.add_rappture_tool({rappture!r})
server.core.registry.tools.get("fermi").validator.validate({{"temperature": "300K"}})
print("jsonschema" in sys.modules)
"""


def test_a_rappture_tool_registers_and_validates_without_jsonschema() -> None:
    """Found by a fresh-user trial: ``nanohubmcp rappture`` took 8-10 s to listen on a busy machine
    (1 s for a plain app): its generated schema was checked at registration like a hand-written
    one, importing jsonschema (and its RFC 3987 grammar). (A Sim2L notebook's schema is generated
    the same way, but reading the notebook with nbformat imports jsonschema anyway.)"""
    from pathlib import Path

    import pytest

    pytest.importorskip("pint")
    fermi = Path(__file__).resolve().parents[2] / "examples" / "rappture" / "fermi"
    out = subprocess.run(
        [sys.executable, "-c", RAPPTURE_SCRIPT.format(rappture=str(fermi))], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "False"
