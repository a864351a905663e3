"""``%config NanohubMCP.token = "tök€n"`` is refused as the setting is made, in one line saying which
characters a bearer token may hold (RFC 6750 § 2.1), and the old value stays: a notebook's server with that
token would start and answer every client 401, since no HTTP client can send it (fresh-user trial 26, F5)."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow


def test_the_setting_is_refused_and_unchanged(kernel: LiveKernel) -> None:
    kernel.run_ok("%config NanohubMCP.token = 'good-token_0123'")
    before = kernel.run_ok("%config NanohubMCP").text
    cell = kernel.run_ok("%config NanohubMCP.token = 'tök€n'")
    assert cell.stderr.startswith(
        "UsageError: the token in the c.NanohubMCP.token setting contains 'ö' (U+00F6, not ASCII: no HTTP client "
        "can send it) at position 2 (and 1 more such character); a bearer token may hold only visible ASCII "
        "characters (letters, digits, punctuation; no spaces), what a client sends in 'Authorization: Bearer "
        "<token>' (RFC 6750 § 2.1)")
    assert cell.stderr.rstrip().endswith("; the setting is unchanged")
    assert "tök€n" not in cell.stderr
    assert kernel.run_ok("%config NanohubMCP").text == before


def test_authorization_off_and_the_default_stay_allowed(kernel: LiveKernel) -> None:
    for value in ("''", "None"):
        assert kernel.run_ok(f"%config NanohubMCP.token = {value}").stderr == ""
