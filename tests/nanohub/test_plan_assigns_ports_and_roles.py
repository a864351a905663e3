"""plan_launch: which process listens where, and what is said when a port cannot be honoured."""

from __future__ import annotations

import pytest

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.plan import LaunchPlan, plan_launch

ENV = {"SESSION": "4242", "SESSIONDIR": "/s"}
JUPYTER_ENV = {**ENV, "JPY_PARENT_PID": "99"}
WEBER = "https://proxy.nanohub.org/weber/4242/c00kie/123/"


def read(path: str) -> str:
    return "hub_url https://nanohub.org\nfilexfer_port 38123\nfilexfer_cookie c00kie\n"


def plan(env: dict[str, str], **kwargs: object) -> LaunchPlan:
    kwargs.setdefault("host", None)
    kwargs.setdefault("port", None)
    return plan_launch(env, read_file=read, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("port", "expected"), [(None, 8000), (9123, 9123)])
def test_off_hub_the_app_takes_the_requested_port(port: int | None, expected: int) -> None:
    local = plan({}, port=port)
    assert (local.app_host, local.app_port, local.wrwroxy_argv, local.notices) == (
        "127.0.0.1",  # off the hub: this machine only, as the ecosystem does
        expected,
        None,
        (),
    )
    assert local.info.mode == "local"
    assert local.local_url == f"http://127.0.0.1:{expected}/"


def test_behind_wrwroxy_the_app_is_on_loopback_8001_and_wrwroxy_on_8000() -> None:
    tool = plan(ENV, wrwroxy_version="wrwroxy-0.10", debug=True)
    assert (tool.app_host, tool.app_port) == ("127.0.0.1", 8001)
    assert (tool.wrwroxy_host, tool.wrwroxy_port) == ("0.0.0.0", 8000)
    assert tool.wrwroxy_argv is not None
    assert "--forwardPort 8001 --stream-log" in tool.wrwroxy_argv[-1]
    assert tool.info.mode == "tool-wrwroxy"
    assert tool.info.path_prefix == ""
    assert tool.info.public_url == WEBER
    assert tool.notices == ()


def test_behind_wrwroxy_a_requested_port_is_honoured() -> None:
    tool = plan(ENV, port=9300, host="127.0.0.1", wrwroxy_version="wrwroxy-0.10")
    assert tool.app_port == 9300
    assert tool.wrwroxy_host == "127.0.0.1"
    assert tool.wrwroxy_argv is not None
    assert "--forwardPort 9300" in tool.wrwroxy_argv[-1]
    assert tool.notices == ()


def test_behind_wrwroxy_the_weber_port_is_refused_with_a_reason() -> None:
    tool = plan(ENV, port=8000, port_source="MCP_PORT", wrwroxy_version="wrwroxy-0.10")
    assert tool.app_port == 8001
    (notice,) = tool.notices
    assert notice.startswith("MCP_PORT 8000 cannot be honoured: wrwroxy listens on 8000")


def test_without_wrwroxy_the_app_serves_the_weber_port_under_the_prefix() -> None:
    tool = plan(ENV, port=9300)
    assert (tool.app_host, tool.app_port, tool.wrwroxy_argv) == ("0.0.0.0", 8000, None)
    assert tool.info.mode == "tool"
    assert tool.info.path_prefix == "/weber/4242/c00kie/123/"
    (notice,) = tool.notices
    assert notice.startswith(
        "--port 9300 cannot be honoured: without wrwroxy, weber forwards only to port 8000"
    )
    assert tool.local_url == "http://127.0.0.1:8000/weber/4242/c00kie/123/"
    assert plan(ENV, port=8000).notices == ()


def test_a_custom_weber_port_moves_every_default() -> None:
    tool = plan(ENV, weber_port=18000, wrwroxy_version="wrwroxy-1")
    assert (tool.wrwroxy_port, tool.app_port) == (18000, 18001)


@pytest.mark.parametrize(("port", "expected"), [(None, 8001), (8765, 8765)])
def test_in_jupyter_the_app_listens_on_loopback_behind_the_proxy_route(
    port: int | None, expected: int
) -> None:
    nb = plan(JUPYTER_ENV, port=port, wrwroxy_version="wrwroxy-1")
    assert (nb.app_host, nb.app_port, nb.wrwroxy_argv) == ("127.0.0.1", expected, None)
    assert nb.info.public_url == f"{WEBER}proxy/{expected}/"
    assert nb.info.path_prefix == ""


def test_ipv6_hosts_are_bracketed_in_local_urls() -> None:
    assert plan({}, host="::", port=9000).local_url == "http://[::1]:9000/"
    assert plan({}, host="::1", port=9000).local_url == "http://[::1]:9000/"


class Picks:
    """A ``pick_port`` handing out ``ports`` in turn (the system's answers, chosen by the test); records the
    hosts asked about."""

    def __init__(self, *ports: int) -> None:
        self.ports = iter(ports)
        self.asked: list[str] = []

    def __call__(self, host: str) -> int:
        self.asked.append(host)
        return next(self.ports)


def test_port_0_off_the_hub_is_a_free_port_on_the_app_s_host() -> None:
    pick = Picks(41234)
    local = plan({}, port=0, pick_port=pick)
    assert (local.app_host, local.app_port) == ("127.0.0.1", 41234)
    assert local.local_url == "http://127.0.0.1:41234/"
    assert pick.asked == ["127.0.0.1"]
    assert plan({}, port=0, host="::1", pick_port=Picks(41235)).local_url == "http://[::1]:41235/"


def test_port_0_asks_the_system_by_default() -> None:
    local = plan({}, port=0)
    assert 0 < local.app_port < 65536
    assert local.app_port != 8000


def test_port_0_in_jupyter_names_the_picked_port_in_the_proxy_route() -> None:
    nb = plan(JUPYTER_ENV, port=0, pick_port=Picks(41236))
    assert nb.app_port == 41236
    assert nb.info.public_url == f"{WEBER}proxy/41236/"


def test_port_0_behind_wrwroxy_is_a_free_loopback_port_never_the_weber_port() -> None:
    pick = Picks(8000, 41237)  # the system may hand out the weber port itself: wrwroxy needs it
    tool = plan(ENV, port=0, host="0.0.0.0", wrwroxy_version="wrwroxy-0.10", pick_port=pick)
    assert (tool.app_host, tool.app_port, tool.wrwroxy_port) == ("127.0.0.1", 41237, 8000)
    assert tool.wrwroxy_argv is not None
    assert "--forwardPort 41237" in tool.wrwroxy_argv[-1]
    assert tool.notices == ()
    assert pick.asked == ["127.0.0.1", "127.0.0.1"]


def test_port_0_without_wrwroxy_is_not_honoured_and_says_so() -> None:
    tool = plan(ENV, port=0, pick_port=Picks())  # nothing is picked: weber forwards only to 8000
    assert tool.app_port == 8000
    (notice,) = tool.notices
    assert notice.startswith("--port 0 (any free port) cannot be honoured: without wrwroxy, weber forwards only "
                             "to port 8000")


def test_port_0_on_a_host_that_is_not_this_machine_s_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"^cannot find a free port on 192\.0\.2\.1: "):
        plan({}, port=0, host="192.0.2.1")  # TEST-NET-1: no address of this machine
