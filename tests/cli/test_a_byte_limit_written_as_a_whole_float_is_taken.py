"""A byte limit written as a float holding a whole number (``1.5e6``, ``16e6``, ``4096.0``) is taken as that
int by ``run()`` as by ``%config`` and the export, and by ``--max-*-bytes*``; one with a fraction is refused as
no whole number. Found by a fresh-user trial (trial35 Y17): ``run(max_request_bytes=1.5e6)`` was refused as
"must be a whole number of bytes, not 1500000.0" while the export made ``4096.0`` the int, and
``run(max_request_bytes=2**70)`` was refused naming ``max_buffered_bytes``, which the user had not set."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import ConfigurationError, MCPServer
from nanohubmcp.cli import main as nanohubmcp
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.transports.config import TransportConfig

APP = 'raise SystemExit("imported")\n'


@pytest.mark.parametrize(("value", "taken"), [(1.5e6, 1_500_000), (16e6, 16_000_000), (4096.0, 4096)])
def test_run_takes_the_int_a_whole_float_holds_as_the_notebook_does(value: float, taken: int) -> None:
    config = TransportConfig(max_request_bytes=value, max_unsent_bytes=value * 1024)  # type: ignore[arg-type]
    assert config.max_request_bytes == taken
    assert type(config.max_request_bytes) is int
    assert config.max_unsent_bytes == taken * 1024
    assert type(config.max_unsent_bytes) is int
    settings = NanohubMCP()
    settings.max_request_bytes = value  # %config NanohubMCP.max_request_bytes = ...
    assert settings.max_request_bytes == taken
    MCPServer("x").make_app(max_request_bytes=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "hint"), [(1500000.5, "; write a whole number: 1500001"), (float("nan"), ""),
                                           (float("inf"), ""), ("16e6", "; write it as a number: 16000000"),
                                           (True, "")])
def test_a_value_that_is_no_whole_number_is_refused_as_such(value: object, hint: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        TransportConfig(max_request_bytes=value)  # type: ignore[arg-type]
    assert str(refused.value) == f"max_request_bytes must be a number of bytes >= 1024, not {value!r}{hint}"


def test_a_request_limit_above_the_default_buffer_names_the_request_limit() -> None:
    with pytest.raises(ConfigurationError) as refused:
        TransportConfig(max_request_bytes=2**70)
    assert str(refused.value) == (
        f"max_request_bytes must be at most max_buffered_bytes (268435456), not {2**70}: a body of the largest "
        "size must fit; to go higher, raise max_buffered_bytes too")
    assert TransportConfig(max_request_bytes=2**30, max_buffered_bytes=2**31).max_request_bytes == 2**30


@pytest.mark.parametrize(("options", "message"), [
    (["--max-request-bytes", "1.5e6", "--max-buffered-bytes", "1e3"],
     "--max-buffered-bytes must be at least --max-request-bytes (1500000), not 1000"),
    (["--max-request-bytes", "3e8"],
     "--max-request-bytes must be at most --max-buffered-bytes (268435456), not 300000000: a body of the largest "
     "size must fit; to go higher, raise --max-buffered-bytes too"),
    (["--max-request-bytes", "1500000.5"],
     "argument --max-request-bytes: must be a whole number of bytes, not '1500000.5'; write a whole number: 1500001"),
    (["--max-request-bytes", "1e999999999"],
     "argument --max-request-bytes: must be a whole number of bytes of at most 4300 digits, not '1e999999999'"),
])
def test_the_command_line_reads_the_same_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str,
) -> None:
    (tmp_path / "app.py").write_text(APP)
    with pytest.raises(SystemExit) as done:
        nanohubmcp(["run", str(tmp_path / "app.py"), "--port", "0", *options])
    assert done.value.code == 2
    said = capsys.readouterr().err
    assert f"nanohubmcp run: error: {message}" in said, said
    assert "imported" not in said
