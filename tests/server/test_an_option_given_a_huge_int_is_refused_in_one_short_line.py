"""Every option of ``MCPServer(...)``, ``make_app(...)``, ``start(...)`` and ``run(...)``, given an int of
over 4,300 digits (``-10**5000``) or a value of another type, is refused with a ConfigurationError of one
short line (review r22 N1).

Python will not write such an int as text: a refusal that wrote ``{value!r}`` raised ``ValueError:
Exceeds the limit (4300 digits) for integer string conversion`` from its own message
(``MCPServer('x', tool_timeout=-10**5000)``, ``job_ttl_seconds=10**5000``, ``max_jobs``, ``port``,
``workers``...), and ``-10**400`` was written out whole, 401 digits. An int where ``state_url``,
``public_url`` or ``host`` takes a string failed with AttributeError. The refusal names the value cut to
a bound instead.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError

HUGE = 10**5000


def _options(method: Callable[..., object]) -> list[str]:
    kinds = (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    return [name for name, parameter in inspect.signature(method).parameters.items()
            if name != "self" and parameter.kind not in kinds]


def _refusal(call: Callable[[], object]) -> str | None:
    """The refusal's text, or None when the value was taken."""
    try:
        made = call()
    except ConfigurationError as exc:
        return str(exc)
    if isinstance(made, MCPServer):
        made.stop()
    return None


def _short(text: str | None, option: str) -> None:
    assert text is not None, f"{option}: taken"
    assert len(text) < 600, (option, text)
    assert "\n" not in text, (option, text)
    assert "0" * 300 not in text, (option, text)  # not written out whole


def _short_refusals(make: Callable[[object], object], option: str) -> None:
    for value in (-HUGE, HUGE, -(10**400)):
        text = _refusal(lambda value=value: make(value))
        if text is not None:
            _short(text, option)


@pytest.mark.parametrize("option", _options(MCPServer.__init__))
def test_a_server_option(option: str) -> None:
    def make(value: object) -> object:
        return MCPServer(value) if option == "name" else MCPServer("huge", **{option: value})  # type: ignore[arg-type]

    _short_refusals(make, option)


@pytest.mark.parametrize("option", _options(MCPServer.make_app))
def test_an_app_option(option: str) -> None:
    server = MCPServer("huge")
    _short_refusals(lambda value: server.make_app(**{option: value}), option)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", [name for name in _options(MCPServer.start) if name not in ("loop",)])
def test_a_start_option(option: str) -> None:
    def start(value: object) -> object:
        server = MCPServer("huge")
        try:
            server.start(**{option: value, **({"port": 0} if option != "port" else {})})  # type: ignore[arg-type]
        finally:
            server.stop()
        return None

    _short_refusals(start, option)


@pytest.mark.parametrize("option", ["workers", "transport", "proxy_headers", "port"])
def test_a_run_option_is_refused_before_serving(option: str) -> None:
    for value in (-HUGE, HUGE):
        text = _refusal(lambda value=value: MCPServer("huge").run(**{option: value}))  # type: ignore[arg-type]
        _short(text, option)


@pytest.mark.parametrize("option", ["state_url", "public_url", "host"])
def test_an_int_where_a_string_is_taken_is_refused(option: str) -> None:
    def make(value: object) -> object:
        if option == "state_url":
            return MCPServer("ints", state_url=value)  # type: ignore[arg-type]
        server = MCPServer("ints")
        try:
            server.start(port=0, **{option: value})  # type: ignore[arg-type]
        finally:
            server.stop()
        return None

    text = _refusal(lambda: make(5))
    _short(text, option)
    assert option in (text or ""), text


@pytest.mark.parametrize(("executor", "option"), [("slurm", "time"), ("slurm", "cpus_per_task"),
                                                  ("slurm", "poll_interval"), ("submit", "walltime"),
                                                  ("submit", "cores"), ("submit", "poll_interval")])
def test_an_executor_option(executor: str, option: str) -> None:
    for value in (-HUGE, float("inf"), float("nan")):
        text = _refusal(lambda value=value: MCPServer("huge", job_executor=executor,
                                                      executor_options={executor: {option: value}}))
        _short(text, option)
        assert option in (text or ""), text


@pytest.mark.parametrize("option", ["port", "max_jobs", "max_request_bytes", "tool_timeout"])
def test_a_notebook_setting(option: str) -> None:
    from traitlets import TraitError

    from nanohubmcp.jupyter.config import NanohubMCP

    settings = NanohubMCP()
    with pytest.raises(TraitError) as refused:
        setattr(settings, option, -HUGE)
    _short(str(refused.value), option)
    assert option in str(refused.value), refused.value
