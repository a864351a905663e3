"""``nanohubmcp sim2l``, ``rappture`` and ``hub-tools`` take every serving option of ``nanohubmcp run`` (all but
its APP), meaning and checking each as ``run`` does, and refuse a bad one in the same words, before reading
any tool: exit status 2 with the command's usage.

Found by a fresh-user trial: ``nanohubmcp rappture`` had no ``--workers``/``--state-url`` ("unrecognized
arguments"); a user wanting workers had to write an app file calling ``server.add_rappture_tool(...)``.
"""

from __future__ import annotations

import argparse

import pytest

from nanohubmcp.cli import main
from nanohubmcp.cli.parser import build_parser
from nanohubmcp.transports.limit_option import most_workers, workers_take

TOOL_COMMANDS = ["sim2l", "rappture", "hub-tools"]


def commands() -> dict[str, argparse.ArgumentParser]:
    found = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def options(command: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {action.dest: action for action in command._actions if action.option_strings and action.dest != "help"}


def described(action: argparse.Action) -> tuple[object, ...]:
    return (action.option_strings, type(action), action.default, action.type, action.choices, action.metavar,
            action.help)


@pytest.mark.parametrize("name", TOOL_COMMANDS)
def test_each_tool_command_takes_runs_options_as_run_defines_them(name: str) -> None:
    parsers = commands()
    runs = options(parsers["run"])
    theirs = options(parsers[name])
    assert set(runs) <= set(theirs), f"{name} lacks {sorted(set(runs) - set(theirs))}"
    for dest, action in runs.items():
        assert described(theirs[dest]) == described(action), dest


# Each names a tool that does not exist: a refusal after reading it would be exit status 1 ("no such file").
# run refuses each alike (tests/cli/test_bad_command_line_input_exits_2_as_argparse_does.py), its --workers line
# naming an app's state_url= too.
TARGETS = {"sim2l": ["missing.ipynb"], "rappture": ["missing/tool.xml"], "hub-tools": ["fermi", "--root", "missing"]}
WORKERS = ("--workers 2 needs a shared state store, or each process would answer the others' sessions with 404: "
           "give --state-url redis://HOST:6379/0 (or set NANOHUBMCP_STATE_URL)")
STDIO_WORKERS = ("--workers 2 serves HTTP only: over stdio one process serves its one client; leave --workers out, "
                 "or serve with --transport http")


@pytest.mark.parametrize("name", TOOL_COMMANDS)
@pytest.mark.parametrize(("given", "message"), [
    (["--workers", "2"], WORKERS),
    (["--workers", "0"], f"argument --workers: must be {workers_take(most_workers())}, not '0'"),
    # trial50 F4: with a shared store it served stdio as one process, saying nothing; without, it asked for one
    (["--transport", "stdio", "--workers", "2", "--state-url", "redis://127.0.0.1:1/0"], STDIO_WORKERS),
    (["--transport", "stdio", "--workers", "2"], STDIO_WORKERS),
    (["--state-url", "carrier://pigeon"], "--state-url: state_url 'carrier://pigeon': unknown scheme 'carrier'; use "
     "memory://, sqlite:///DIR, redis://HOST:PORT/DB, rediss://… (TLS) or unix:///PATH.sock"),
    (["--max-unsent-bytes", "100"], "--max-unsent-bytes must be at least 1 MiB (1048576), not 100"),
], ids=["workers-unshared", "workers-0", "workers-stdio-shared", "workers-stdio", "state-url", "limit"])
def test_a_bad_serving_option_is_refused_as_run_refuses_it_before_any_tool_is_read(
    name: str, given: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NANOHUBMCP_STATE_URL", raising=False)
    with pytest.raises(SystemExit) as refused:
        main([name, *TARGETS[name], *given])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: nanohubmcp {name} "), err
    assert err.endswith(f"nanohubmcp {name}: error: {message}\n"), err
    assert "loading papermill" not in err  # refused before the notebooks are read
