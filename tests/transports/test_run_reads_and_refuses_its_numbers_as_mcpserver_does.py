"""``run()``'s numbers read and refuse as ``MCPServer(...)``'s do (review r26 LOW-1, NIT-2, NIT-6; trial 50 F10):

- a str port is read as ``--port``'s text is (``"0.0"``: 0.4.x scripts pass ``os.environ["MCP_PORT"]``), in ASCII
  digits only (``int()`` took full-width ones);
- a byte limit that is no whole number is refused naming what it takes, as ``MCPServer``'s byte limits are (it said
  "a whole number of bytes", without its least);
- ``workers=1e30`` is refused naming the value given (it named the int ``1000000000000000019884624838656``).
Each server is a real one, started on a free port.
"""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.transports.limit_option import most_workers


def test_a_str_port_is_read_as_the_flags_text_is() -> None:
    server = MCPServer("text-port").start(port="0.0")  # type: ignore[arg-type]
    try:
        assert type(server.port) is int
        assert server.port > 0
    finally:
        server.stop()


def test_a_str_port_in_full_width_digits_is_refused_saying_what_to_write() -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("wide-port").start(port="\uff10")  # type: ignore[arg-type]
    assert str(refused.value) == ("port must be a whole number between 0 and 65535 (0: any free port), not "
                                  "'\uff10'; write it in ASCII digits: 0")


def test_a_byte_limit_of_run_is_refused_in_mcpservers_shape() -> None:
    with pytest.raises(ConfigurationError) as run_refused:
        MCPServer("limits").start(port=0, max_request_bytes=5.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError) as built_refused:
        MCPServer("limits", max_kept_bytes=5.5)  # type: ignore[arg-type]
    assert str(run_refused.value) == ("max_request_bytes must be a number of bytes >= 1024, not 5.5; write a whole "
                                      "number: 6")
    assert str(built_refused.value) == "max_kept_bytes must be a number of bytes >= 1, not 5.5; write a whole number: 6"


def test_a_worker_count_past_the_bound_is_refused_naming_the_value_given() -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("many").run(port=0, workers=1e30)  # type: ignore[arg-type]
    assert str(refused.value) == (f"workers must be a number of processes from 1 to {most_workers()} (8 per CPU, "
                                  "never fewer than 64), not 1e+30")
