"""Byte limits and a Sim2L's ``max_stored_runs`` follow the one rule for whole numbers (trial51 F3, F8).

Before: ``--max-unsent-bytes 1e31`` was refused ("more bytes than a server could hold", documented nowhere) while the
same number in digits, ``run(max_unsent_bytes=1e31)`` and ``10**400`` were taken; refusals quoted a float's digits
(``9999999999999999635896294965248``) for the ``1e31`` written; ``add_sim2l(max_stored_runs=5.0)`` was refused, naming
an internal ``max_runs``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support import command_server

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.transports.limit_option import byte_count
from nanohubmcp.transports.limits import check_limits

ROOT = Path(__file__).resolve().parents[2]
COOLING = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
APP = "from nanohubmcp import MCPServer\nserver = MCPServer('b')\n\n@server.tool()\ndef f() -> int:\n    return 1\n"


@pytest.mark.parametrize("text", ["1e31", "10000000000000000000000000000000", "1e400"])
def test_a_byte_limit_written_with_an_exponent_is_its_int(text: str) -> None:
    assert byte_count(text) == (int(text) if text.isdigit() else 10 ** int(text[2:]))


def test_a_byte_limit_of_more_digits_than_an_int_written_as_text_is_refused_saying_so() -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        byte_count("1e999999999")
    assert str(refused.value) == "must be a whole number of bytes of at most 4300 digits, not '1e999999999'"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_command_serves_with_1e31_unsent_bytes(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    with command_server("run", "app.py", "--port", "0", "--max-unsent-bytes", "1e31", "--max-buffered-bytes",
                        "1e31", log=tmp_path / "log", cwd=tmp_path) as served:
        assert served.url


@pytest.mark.parametrize(("limits", "said"), [
    ({"max_request_bytes": 1e30}, "max_request_bytes must be at most max_buffered_bytes (268435456), not 1e+30: a "
     "body of the largest size must fit; to go higher, raise max_buffered_bytes too"),
    ({"max_request_bytes": 1e30, "max_buffered_bytes": 1e29}, "max_buffered_bytes must be at least max_request_bytes "
     "(1e+30), not 1e+29: a body of the largest size must fit"),
    ({"max_unsent_bytes": "1e31"}, "max_unsent_bytes must be a number of bytes >= 1 MiB (1048576), not '1e31'; write "
     "it as a number: 1e31"),
])
def test_a_refusal_names_the_value_as_written(limits: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        check_limits(limits)
    assert str(refused.value) == said


def test_a_notebooks_refusal_names_the_limit_as_written() -> None:
    from traitlets import TraitError

    with pytest.raises(TraitError) as refused:
        NanohubMCP().max_request_bytes = 1e31
    assert "NanohubMCP.max_request_bytes = 1e+31 is above NanohubMCP.max_buffered_bytes (268435456)" in str(
        refused.value)


@pytest.mark.parametrize(("value", "kept"), [(5.0, 5), (Fraction(10, 2), 5), (1e3, 1000), (None, 1000), (7, 7)])
def test_max_stored_runs_takes_any_whole_number(tmp_path: Path, value: Any, kept: int) -> None:
    server = MCPServer("s", state_dir=str(tmp_path))
    tool = server.add_sim2l(COOLING, max_stored_runs=value)
    assert tool.extra["sim2l"].store.max_runs == kept


@pytest.mark.parametrize(("value", "hint"), [(5.5, "; write a whole number: 6"), (0, ""), (True, ""), ("5", "; write "
                                             "it as a number: 5")])
def test_max_stored_runs_is_refused_under_its_own_name(tmp_path: Path, value: Any, hint: str) -> None:
    server = MCPServer("s", state_dir=str(tmp_path))
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(COOLING, max_stored_runs=value)
    assert str(refused.value) == (f"Sim2L {COOLING}: max_stored_runs must be a number of runs >= 1, or None for the "
                                  f"default (1,000), not {value!r}{hint}")
