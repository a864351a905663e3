"""The server's limits are ``NanohubMCP`` settings (``max_result_bytes``, ``max_stuck_calls``,
``max_kept_bytes``, ...; ``max_request_bytes``, ... of the HTTP server): each reaches the kernel's
``MCPServer`` (or its ``start``) under its own name, a change of ``max_result_bytes`` applies to the next
call, one of the others rebuilds or restarts the server, and a value
``MCPServer`` would refuse is refused by the setting in words naming it, what it takes and its default.
Before, a notebook could not set them at all (``%config`` warned "not recognized")."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from traitlets import TraitError

from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.session import KernelSession
from nanohubmcp.jupyter.trait_groups import (
    LIMIT_TRAITS,
    REBUILD_TRAITS,
    RESTART_TRAITS,
    RESULT_TRAITS,
    SERVE_LIMIT_TRAITS,
)

SET = {"max_result_bytes": 1000, "max_event_bytes": 2_000_000, "max_stuck_calls": 0, "max_kept_bytes": 2_000_000,
       "max_kept_bytes_per_owner": 500_000, "max_job_result_bytes": 3000, "max_jobs": 7,
       "max_jobs_per_owner": 2, "cache_max_bytes": 4000}


def limits_of(session: KernelSession) -> dict[str, object]:
    core = session.server.core
    return {"max_result_bytes": core.result_options.max_result_bytes,
            "max_event_bytes": core.result_options.max_event_bytes, "max_stuck_calls": core.executor.max_stuck,
            "max_kept_bytes": core.result_store.max_bytes,
            "max_kept_bytes_per_owner": core.result_store.max_bytes_per_owner,
            "max_job_result_bytes": core.job_service.jobs.max_result_bytes,
            "max_jobs": core.job_service.jobs.max_jobs, "max_jobs_per_owner": core.job_service.jobs.max_jobs_per_owner,
            "cache_max_bytes": core.result_cache.max_bytes}


def test_every_limit_setting_reaches_the_server(tmp_path: Path) -> None:
    assert sorted(SET) == sorted(LIMIT_TRAITS)
    session = KernelSession(NanohubMCP(state_dir=str(tmp_path), **SET), notify=lambda text: None)
    try:
        assert limits_of(session) == SET
    finally:
        session.close()


def test_max_result_and_event_bytes_apply_to_the_next_call_and_the_others_rebuild_the_server(tmp_path: Path) -> None:
    config = NanohubMCP(state_dir=str(tmp_path))
    session = KernelSession(config, notify=lambda text: None)
    try:
        first = session.server
        config.max_result_bytes = None
        config.max_event_bytes = None
        assert session.server is first
        assert session.server.core.result_options.max_result_bytes is None
        assert session.server.core.result_options.max_event_bytes is None
        config.max_jobs = 3
        assert session.server is not first
        assert session.server.core.job_service.jobs.max_jobs == 3
        assert session.server.core.result_options.max_result_bytes is None  # kept by the rebuild
        assert session.server.core.result_options.max_event_bytes is None
    finally:
        session.close()
    assert {"max_result_bytes", "max_event_bytes"} <= set(RESULT_TRAITS)
    assert set(LIMIT_TRAITS) - {"max_result_bytes", "max_event_bytes"} <= set(REBUILD_TRAITS)


def test_the_defaults_are_the_servers_and_each_help_names_its_default() -> None:
    import inspect

    from nanohubmcp import MCPServer

    keywords = {**inspect.signature(MCPServer).parameters, **inspect.signature(MCPServer.run).parameters}
    for name in (*LIMIT_TRAITS, *SERVE_LIMIT_TRAITS):
        trait = NanohubMCP.class_traits()[name]
        assert trait.default_value == keywords[name].default, name
        assert f"Default {trait.default_value}" in trait.help, name


@pytest.mark.parametrize(
    ("setting", "value", "why"),
    [
        ("max_result_bytes", 0, "NanohubMCP.max_result_bytes must be a number of bytes >= 1, or None for no limit, "
                                "not 0 (default 268435456)"),
        ("max_stuck_calls", -1, "NanohubMCP.max_stuck_calls must be a number of calls >= 0, not -1 (default 64)"),
        ("max_kept_bytes", None, "NanohubMCP.max_kept_bytes must be a number of bytes >= 1, not the NoneType None "
                                 "(default 536870912)"),
        ("max_jobs", True, "NanohubMCP.max_jobs must be a number of jobs >= 1, not the bool True (default 10000)"),
        ("cache_max_bytes", "1 GB", "NanohubMCP.cache_max_bytes must be a number of bytes >= 1, not the str '1 GB' "
                                    "(default 268435456)"),
        ("max_job_result_bytes", 1.5, "NanohubMCP.max_job_result_bytes must be a number of bytes >= 1, not the "
                                      "float 1.5 (default 16777216)"),
    ],
)
def test_a_value_the_server_would_refuse_is_refused_by_the_setting(setting: str, value: object, why: str) -> None:
    config = NanohubMCP()
    with pytest.raises(TraitError) as refused:
        setattr(config, setting, value)
    assert str(refused.value).startswith(why)
    assert getattr(config, setting) == NanohubMCP.class_traits()[setting].default_value


def test_an_integral_float_and_the_zero_that_means_none_abandoned_are_taken() -> None:
    config = NanohubMCP(max_kept_bytes=1e9, max_stuck_calls=0)
    assert config.max_kept_bytes == 1_000_000_000
    assert type(config.max_kept_bytes) is int
    assert config.max_stuck_calls == 0


def post(url: str, size: int) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * size}}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json",
                                                              "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_the_http_limits_reach_the_serving_server_and_a_change_restarts_it(tmp_path: Path) -> None:
    notes: list[str] = []
    config = NanohubMCP(port=0, state_dir=str(tmp_path), token="", max_request_bytes=4096,
                        max_buffered_bytes=8192, max_unsent_bytes=2 * 1024 * 1024)
    session = KernelSession(config, notify=notes.append)
    try:
        session.start()
        url = session.mcp_url
        assert url is not None
        assert post(url, 100) == 200
        assert post(url, 5000) == 413
        transport = session.server._serving._runner.config  # type: ignore[union-attr]
        assert (transport.max_buffered_bytes, transport.max_unsent_bytes) == (8192, 2 * 1024 * 1024)

        config.max_request_bytes = 8192  # restarts the server with it
        assert session.running
        assert post(str(session.mcp_url), 5000) == 200

        with pytest.raises(TraitError, match="max_buffered_bytes must be at least max_request_bytes"):
            config.max_request_bytes = 16384  # over max_buffered_bytes: refused, the server keeps serving
        assert config.max_request_bytes == 8192
        assert session.running
        assert post(str(session.mcp_url), 5000) == 200
    finally:
        session.close()
    assert set(SERVE_LIMIT_TRAITS) <= set(RESTART_TRAITS)
