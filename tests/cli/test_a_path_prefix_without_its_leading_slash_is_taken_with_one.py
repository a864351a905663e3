"""``--path-prefix nope`` (or ``$MCP_PATH_PREFIX=nope``) is ``/nope``, as ``--public-url`` gets its trailing
slash: the option's value is normalised where it is read, and its help says so (trial26 F16: it was taken as
``/nope`` further down, silently, with nothing saying a prefix is normalised)."""

from __future__ import annotations

import pytest

from nanohubmcp.cli.parser import build_parser, parse_arguments


@pytest.mark.parametrize(("given", "taken"), [("nope", "/nope"), ("tools/", "/tools/"), ("/calc", "/calc"),
                                              ("/", "/")])
def test_the_leading_slash_is_added(given: str, taken: str) -> None:
    assert parse_arguments(["run", "app.py", "--path-prefix", given]).path_prefix == taken


def test_the_variable_is_taken_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_PATH_PREFIX", "nope")
    assert parse_arguments(["run", "app.py"]).path_prefix == "/nope"


def test_the_help_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    assert "(tools is taken as /tools;" in " ".join(capsys.readouterr().out.split())
