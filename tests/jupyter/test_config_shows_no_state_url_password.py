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


def test_a_password_in_the_query_is_hidden_too() -> None:
    # A fresh-user trial: redis-py takes ?password= as the password; it was shown (and exported) in clear.
    from nanohubmcp.state import redact

    assert redact("redis://h:6379/0?password=s3cret&db=1") == "redis://h:6379/0?password=***&db=1"
    assert redact("redis://u:pw@h:6379/0?Password=x") == "redis://u:***@h:6379/0?Password=***"
    assert redact("redis://h:6379/0?socket_timeout=5") == "redis://h:6379/0?socket_timeout=5"
    assert "s3cret" not in repr(NanohubMCP(state_url="redis://h:6379/0?password=s3cret").state_url)
