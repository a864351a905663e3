"""detect_proxy: session variables and resources file -> public URL, prefix and mode."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub import ProxyInfo, detect_proxy, override
from nanohubmcp.nanohub.proxy import read_resources

SESSION_ENV = {"SESSION": "4242", "SESSIONDIR": "/sessions/4242"}
GOOD = "hub_url https://nanohub.org\nfilexfer_port 38123\nfilexfer_cookie c00kie\n"
WEBER = "https://proxy.nanohub.org/weber/4242/c00kie/123/"


def reader(text: str):
    def read(path: str) -> str:
        assert path == "/sessions/4242/resources"
        return text

    return read


def detect(text: str = GOOD, env: dict[str, str] | None = None, **kwargs) -> ProxyInfo:
    return detect_proxy(
        SESSION_ENV if env is None else env, port=kwargs.pop("port", 8000), read_file=reader(text), **kwargs
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(GOOD, id="plain"),
        pytest.param(
            'hub_url "https://nanohub.org"\nfilexfer_port 38123\nfilexfer_cookie "c00kie"\n',
            id="double-quotes",
        ),
        pytest.param(
            "hub_url 'https://nanohub.org'\nfilexfer_port '38123'\nfilexfer_cookie c00kie\n",
            id="single-quotes",
        ),
        pytest.param(GOOD.replace("\n", "\r\n"), id="crlf"),
        pytest.param(GOOD.replace("\n", "\r"), id="cr-only"),
        pytest.param(
            "hub_url https://nanohub.org/\nfilexfer_port 38123\nfilexfer_cookie c00kie", id="trailing-slash"
        ),
        pytest.param(
            '# written by the middleware\n\nsessionid 4242\napplication_name "My tool"\n'
            "hub_url\thttps://nanohub.org\n   filexfer_port    38123  \n"
            "filexfer_cookie c00kie\nsession_token xyz\n",
            id="comments-blank-lines-extra-keys-tabs-spaces",
        ),
        pytest.param(
            "hub_url nanohub.org\nfilexfer_port 38123\nfilexfer_cookie c00kie\n", id="hub-url-without-scheme"
        ),
        pytest.param(
            "hub_url https://NanoHUB.org:443/\nfilexfer_port 38123\nfilexfer_cookie c00kie\n",
            id="host-port-case",
        ),
        pytest.param("filexfer_cookie old\n" + GOOD, id="repeated-key-last-wins"),
    ],
)
def test_a_tool_session_is_published_under_its_weber_path(text: str) -> None:
    info = detect(text)
    assert info.on_hub
    assert info.mode == "tool"
    assert info.public_url == WEBER
    assert info.path_prefix == "/weber/4242/c00kie/123/"
    assert info.public_origin == "https://proxy.nanohub.org"
    assert info.session == "4242"
    assert info.hub_url is not None
    assert "4242" in info.reason


@pytest.mark.parametrize(
    ("filexfer_port", "segment"),
    [(38123, "123"), (38000, "0"), (999, "999"), (41007, "7"), (8000, "0")],
)
def test_the_filexfer_port_is_taken_modulo_1000(filexfer_port: int, segment: str) -> None:
    info = detect(f"hub_url https://nanohub.org\nfilexfer_port {filexfer_port}\nfilexfer_cookie c\n")
    assert info.path_prefix == f"/weber/4242/c/{segment}/"


def test_the_proxy_host_comes_from_hub_url_never_a_fixed_hub() -> None:
    info = detect("hub_url https://hub.example.edu/\nfilexfer_port 38123\nfilexfer_cookie c00kie\n")
    assert info.public_url == "https://proxy.hub.example.edu/weber/4242/c00kie/123/"
    assert info.public_origin == "https://proxy.hub.example.edu"


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({}, "SESSION"),
        ({"SESSION": "", "SESSIONDIR": "/sessions/4242"}, "SESSION"),
        ({"SESSIONDIR": "/sessions/4242"}, "SESSION"),
        ({"SESSION": "4242"}, "SESSIONDIR"),
        ({"SESSION_ID": "4242", "SESSION_DIR": "  "}, "SESSIONDIR"),
    ],
)
def test_off_hub_the_reason_names_the_missing_variable(env: dict[str, str], variable: str) -> None:
    info = detect_proxy(env, port=8000, read_file=reader(GOOD))
    assert info == dataclasses.replace(info, on_hub=False, mode="local", public_url=None, path_prefix="")
    assert info.public_origin is None
    assert variable in info.reason
    assert "\n" not in info.reason


def test_the_alternative_variable_names_are_accepted() -> None:
    info = detect(env={"SESSION_ID": "4242", "SESSION_DIR": "/sessions/4242"})
    assert info.public_url == WEBER


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("filexfer_port 38123\nfilexfer_cookie c00kie\n", "hub_url"),
        ("hub_url https://nanohub.org\nfilexfer_cookie c00kie\n", "filexfer_port"),
        ("hub_url https://nanohub.org\nfilexfer_port 38123\n", "filexfer_cookie"),
        ('hub_url ""\nfilexfer_port 38123\nfilexfer_cookie c00kie\n', "hub_url"),
        ("hub_url https://nanohub.org\nfilexfer_port\nfilexfer_cookie c00kie\n", "filexfer_port"),
        ("", "hub_url, filexfer_port, filexfer_cookie"),
    ],
)
def test_missing_keys_fall_back_to_local_and_are_named(text: str, missing: str) -> None:
    info = detect(text)
    assert not info.on_hub
    assert info.mode == "local"
    assert info.public_url is None
    assert f"has no {missing}" in info.reason
    assert info.session == "4242"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hub_url https://nanohub.org\nfilexfer_port 38x\nfilexfer_cookie c\n", "not an integer"),
        ("hub_url https://\nfilexfer_port 38123\nfilexfer_cookie c\n", "names no host"),
        ("hub_url https://nanohub.org\nfilexfer_port 38123\nfilexfer_cookie a/b\n", "not allowed"),
    ],
)
def test_malformed_values_fall_back_to_local_with_a_reason(text: str, words: str) -> None:
    info = detect(text)
    assert info.mode == "local"
    assert words in info.reason


def test_an_unreadable_resources_file_is_reported(tmp_path: Path) -> None:
    info = detect_proxy({"SESSION": "4242", "SESSIONDIR": str(tmp_path)}, port=8000)
    assert info.mode == "local"
    assert "cannot read" in info.reason
    assert str(tmp_path / "resources") in info.reason


def test_the_real_file_is_read_by_default(tmp_path: Path) -> None:
    (tmp_path / "resources").write_bytes(GOOD.replace("\n", "\r\n").encode())
    info = detect_proxy({"SESSION": "4242", "SESSIONDIR": str(tmp_path)}, port=8000)
    assert info.public_url == WEBER


def test_behind_wrwroxy_the_app_serves_at_the_root_but_advertises_the_weber_url() -> None:
    info = detect(wrwroxy=True)
    assert info.mode == "tool-wrwroxy"
    assert info.path_prefix == ""
    assert info.public_url == WEBER


@pytest.mark.parametrize("marker", ["JPY_PARENT_PID", "JPY_SESSION_NAME"])
def test_a_jupyter_kernel_is_reached_through_the_server_proxy_route(marker: str) -> None:
    info = detect(env={**SESSION_ENV, marker: "123"}, port=8765)
    assert info.mode == "jupyter"
    assert info.public_url == WEBER + "proxy/8765/"
    assert info.path_prefix == ""
    assert info.public_origin == "https://proxy.nanohub.org"


def test_the_kind_argument_overrides_the_guess() -> None:
    assert detect(kind="jupyter", port=9000).public_url == WEBER + "proxy/9000/"
    assert detect(env={**SESSION_ENV, "JPY_PARENT_PID": "1"}, kind="tool").mode == "tool"
    assert detect(env={}, kind="jupyter").mode == "local"


@pytest.mark.parametrize(
    ("kwargs", "words"), [({"kind": "notebook"}, "kind"), ({"port": 0}, "port"), ({"port": 70000}, "port")]
)
def test_arguments_that_can_never_work_raise(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigurationError, match=words):
        detect(**kwargs)


def test_os_environ_is_the_default_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SESSION", "SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    assert detect_proxy(port=8000).mode == "local"


def test_override_replaces_the_public_url_and_prefix_for_other_hubs() -> None:
    local = detect(env={})
    changed = override(local, public_url="https://Gateway.example.org:8443/u/me", path_prefix="u/me")
    assert changed.public_url == "https://gateway.example.org:8443/u/me/"
    assert changed.public_origin == "https://gateway.example.org:8443"
    assert changed.path_prefix == "/u/me/"
    assert "set by configuration" in changed.reason
    assert override(local) is local
    assert override(detect(), path_prefix="/").path_prefix == ""


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://Proxy.Example.org:443/weber/1/", "https://proxy.example.org"),
        ("http://proxy.example.org:80/weber/1/", "http://proxy.example.org"),
        ("http://proxy.example.org:443/weber/1/", "http://proxy.example.org:443"),
        ("http://[::1]:8888/weber/1/", "http://[::1]:8888"),
    ],
)
def test_override_writes_the_origin_as_a_browser_sends_it(url: str, origin: str) -> None:
    changed = override(detect(), public_url=url)
    assert changed.public_origin == origin
    assert changed.public_url == origin + "/weber/1/"


@pytest.mark.parametrize(
    "url", ["ftp://x.org/", "/relative/", "https://x.org/?q=1", "https://x.org/#f", "https://x.org:bad/"]
)
def test_override_refuses_unusable_urls(url: str) -> None:
    with pytest.raises(ConfigurationError, match="public_url"):
        override(detect(), public_url=url)


def test_read_resources_keeps_values_with_spaces_and_drops_one_pair_of_quotes() -> None:
    parsed = read_resources("application_name \"My 'great' tool\"\nflag\nquoted '\"x\"'\r\n")
    assert parsed == {"application_name": "My 'great' tool", "flag": "", "quoted": '"x"'}
