"""``%config NanohubMCP`` prints every setting by ``repr`` into the notebook's saved output: a state URL's
password is shown as ``***`` there (as in the server's logs), while the setting's value stays the URL."""

from __future__ import annotations

from nanohubmcp.jupyter.config import NanohubMCP


def test_the_repr_of_a_state_url_hides_its_password() -> None:
    cfg = NanohubMCP(state_url="redis://:redispass-QQQQ@127.0.0.1:6431/0")
    assert cfg.state_url == "redis://:redispass-QQQQ@127.0.0.1:6431/0"
    assert "redispass" not in repr(cfg.state_url)
    assert repr(cfg.state_url) == "'redis://:***@127.0.0.1:6431/0'"
    assert "redispass" not in repr(cfg.trait_values())


def test_a_url_without_a_password_and_none_are_shown_as_they_are() -> None:
    assert repr(NanohubMCP(state_url="redis://127.0.0.1:6379/0").state_url) == "'redis://127.0.0.1:6379/0'"
    assert NanohubMCP().state_url is None
