"""A credential in a URL is hidden by one rule wherever it is printed (review r36 F7, F6, N2, N3).

F7: ``http://bob:pass/word@host:8000/mcp`` (a password holding an unescaped ``/``, ``#`` or ``?``) ends the
authority where a URL parser looks for the user information, so the bridge's refusal found no password
and echoed the URL whole; what precedes the last ``@`` of a URL that does not parse is now never shown
(the bridge's refusal, a state URL's message).
F6/N3: three rules said which names are credentials (the bridge's query rule: an exact list; a state URL's:
``pass|secret|token``; the headers': ``auth``, ``key``...): ``?api-key=``, ``?access_key=``, ``?auth=``,
``?passwd=``, ``?X-Amz-Signature=``, ``?jwt=`` and a fragment's ``#access_token=`` were printed in clear by
the bridge and the access log. One rule (``redaction.is_secret_name``) now serves all.
N2: the text rule backtracked quadratically over a run of punctuation after ``?token=``.

Review r37 F5: the rule read ``token`` as any substring and ``key``/``session`` as any word, so the access log hid
``max_tokens=512``, ``token_count=3`` and ``key_column=B``, and still printed Jupyter's ``_xsrf`` and an OAuth
``client_assertion`` (a JWT): a name's last word now says what it holds (``session`` alone stays hidden).
Review r38 F4: judged by its last word alone, ``api_keys``, ``tokens``, ``pass_phrase``, ``auth_code`` and
``api_key_value`` were written in the access log (hidden before r37 F5's fix): any credential word of a name
(singular or plural, two words read as one) now hides it, unless its last word says what it holds
(``token_count``, ``key_column``) or counts them (``max_tokens``, ``prompt_tokens``).
F14: ``hide_userinfo`` tried its scheme pattern from every word of the text, quadratic in a ``a.a.a…`` text such as a
server's long reason phrase (32 KB: 4.3 s in the bridge). N1: a password starting with digits then ``#`` or ``/``
(``redis://u:123#ss@host:6379/0``) read as a port, and nothing was hidden.
"""

from __future__ import annotations

import http.client
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from stdio_support import bridge_command
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.state.url import redact as shown_state_url
from nanohubmcp.transports.access_log import redacted_uri
from nanohubmcp.transports.redaction import hide_query_secrets, is_secret_name, redact, secrets_of

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Zq8secretvalue"
CREDENTIAL_NAMES = ("token", "api-key", "api_key", "apiKey", "access_key", "AWSAccessKeyId", "auth", "passwd", "pass",
                    "password", "pwd", "sig", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "jwt",
                    "code", "client_secret", "Jupyter_Token", "session_id", "JSESSIONID", "key", "_xsrf",
                    "client_assertion", "assertion", "csrftoken", "X-XSRF-TOKEN", "Mcp-Session-Id", "session",
                    "api_key_2", "PHPSESSID",
                    # review r38 F4: plurals, a credential split in two words, a trailing qualifier, codes
                    "api_keys", "access_tokens", "secrets", "passwords", "tokens", "pass_phrase", "pass_word",
                    "api_key_value", "token_value", "token_b64", "password_hash", "private_key_pem", "sig_v4",
                    "X-Api-Key-Header", "cookie_value", "key_value", "password_plain", "session_state", "key2",
                    "auth_code", "device_code", "code_verifier", "otp", "pin", "passkey", "hmac", "bearer",
                    "sso_ticket", "_oauth2_proxy", "secret_key_id", "X-Hub-Signature-256", "sessionToken",
                    "new_password")
PLAIN_NAMES = ("page", "keyword", "author", "error_code", "x", "passage", "format", "max_tokens", "token_count",
               "key_column", "tokenizer", "token_type", "client_id", "user_id",
               # review r38 F4: a credential word counted, or followed by what the name holds
               "prompt_tokens", "completion_tokens", "max_new_tokens", "max-keys", "password_file", "token_id",
               "status_code", "pin_memory", "authority", "nonce", "state")


@pytest.mark.parametrize("password", ["pass/word12", "s3cr#et", "s3?cret", "pw1/pw2#pw3?pw4"])
def test_the_bridge_refusal_never_echoes_a_password_holding_a_delimiter(password: str) -> None:
    url = f"http://bob:{password}@127.0.0.1:8000/mcp"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(bridge_command(url), input="", capture_output=True, text=True, timeout=60, env=env,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert "http://***@127.0.0.1:8000/mcp" in done.stderr
    for piece in (password, *password.replace("#", "/").replace("?", "/").split("/")):
        assert piece not in done.stderr.replace("127.0.0.1:8000/mcp", "")


def test_a_state_url_that_does_not_parse_hides_what_precedes_its_last_at() -> None:
    assert shown_state_url("redis://bob:s3cr/et@h:6379/0") == "redis://***@h:6379/0"
    assert shown_state_url("redis://bob:s3cr#et@h:6379/0") == "redis://***@h:6379/0"
    assert shown_state_url("redis://bob:pw@h:6379/0") == "redis://bob:***@h:6379/0"


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_a_credential_name_is_one_everywhere(name: str) -> None:
    assert is_secret_name(name)
    url = f"http://h:8888/mcp?{name}={SECRET}&page=2"
    for text in (f"HTTP 404 from {url}: no", f"GET {url} failed"):
        assert SECRET not in redact(text, secrets_of(url))
        assert SECRET not in hide_query_secrets(text)
    assert SECRET not in redacted_uri(f"/mcp?{name}={SECRET}&page=2")
    assert SECRET not in shown_state_url(f"redis://h:6379/0?{name}={SECRET}")
    assert redact(f"header {SECRET}", secrets_of("http://h/mcp", {name: SECRET})) == "header ***"


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_a_plain_name_stays_readable(name: str) -> None:
    assert not is_secret_name(name)
    assert redacted_uri(f"/mcp?{name}=v1") == f"/mcp?{name}=v1"
    assert hide_query_secrets(f"from http://h/mcp?{name}=v1: no") == f"from http://h/mcp?{name}=v1: no"
    assert shown_state_url(f"redis://h:6379/0?{name}=v1") == f"redis://h:6379/0?{name}=v1"


def test_a_fragment_parameter_is_hidden() -> None:
    url = f"http://h:8888/mcp#access_token={SECRET}&state=s1"
    assert redact(f"GET {url} failed", secrets_of(url)) == "GET http://h:8888/mcp#access_token=***&state=s1 failed"
    assert hide_query_secrets(f"see {url}.") == "see http://h:8888/mcp#access_token=***&state=s1."
    assert redacted_uri(f"/mcp?a=1#access_token={SECRET}") == "/mcp?a=1#access_token=<redacted>"
    assert redacted_uri(f"/mcp#access_token={SECRET}") == "/mcp#access_token=<redacted>"


def _access_line(caplog: pytest.LogCaptureFixture, target: str) -> str:
    """The access log's line for one GET of ``target`` on a real server."""
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.access")
    with serve(MCPServer("logged")) as url:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        conn.request("GET", target)
        conn.getresponse().read()
        conn.close()
        deadline = time.monotonic() + 10
        while not (lines := [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.access"]):
            assert time.monotonic() < deadline, "no access line"
            time.sleep(0.01)
    return lines[0]


def test_the_access_log_hides_the_new_names(caplog: pytest.LogCaptureFixture) -> None:
    target = f"/health?api-key={SECRET}&X-Amz-Signature={SECRET}&page=2&max_tokens=512&_xsrf={SECRET}"
    line = _access_line(caplog, target)
    assert SECRET not in line
    assert "/health?api-key=<redacted>&X-Amz-Signature=<redacted>&page=2&max_tokens=512&_xsrf=<redacted>" in line


def test_the_access_log_hides_plural_split_and_qualified_names(caplog: pytest.LogCaptureFixture) -> None:
    """Review r38 F4: these five were written in the access log (a credential a misconfigured client sends in
    its query); ``max_tokens`` and ``prompt_tokens`` stay readable."""
    query = "&".join(f"{name}={SECRET}" for name in ("api_keys", "pass_phrase", "auth_code", "tokens",
                                                     "api_key_value")) + "&max_tokens=512&prompt_tokens=9"
    line = _access_line(caplog, f"/health?{query}")
    assert SECRET not in line
    assert ("/health?api_keys=<redacted>&pass_phrase=<redacted>&auth_code=<redacted>&tokens=<redacted>"
            "&api_key_value=<redacted>&max_tokens=512&prompt_tokens=9") in line


def test_a_long_run_of_punctuation_is_read_in_linear_time() -> None:
    """Before, 16,000 dots after ``?token=`` took 2.9 s (quadratic): 100,000 took minutes. A child process
    bounded generously (30 s) tells the two apart without timing anything tight."""
    code = ("from nanohubmcp.transports.redaction import hide_query_secrets, redact, secrets_of\n"
            "text = 'GET http://h/mcp?token=' + '.' * 100_000 + 'x failed'\n"
            "assert hide_query_secrets(text).startswith('GET http://h/mcp?token=***')\n"
            "assert redact(text, secrets_of('http://h/mcp?token=abc')).startswith('GET http://h/mcp?token=***')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("100,000 characters took more than 30 s to redact")
    assert done.returncode == 0, done.stderr


def test_a_long_dotted_text_has_its_user_information_hidden_in_linear_time() -> None:
    """Before, ``hide_userinfo('a.' * 8000)`` took 1.5 s, four times more for each doubling: 100,000 of them
    (200 KB) would take most of an hour. A child process bounded generously (30 s) tells the two apart."""
    code = ("from nanohubmcp.transports.redaction import hide_userinfo, redact, secrets_of\n"
            "text = 'HTTP 400 ' + 'a.' * 100_000 + ' from http://bob:pw1@h:8000/mcp'\n"
            "assert hide_userinfo(text).endswith(' from http://bob:***@h:8000/mcp')\n"
            "assert redact(text, secrets_of('http://h:8000/mcp')).endswith(' from http://bob:***@h:8000/mcp')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("200,000 characters took more than 30 s to redact")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("url", "shown"), [
    ("redis://u:123#ss@host:6379/0", "redis://***@host:6379/0"),
    ("redis://:123/ss@host:6379/0", "redis://***@host:6379/0"),
    ("http://bob:8000/s3cret@host/mcp", "http://***@host/mcp"),
])
def test_a_password_that_reads_as_a_port_is_hidden(url: str, shown: str) -> None:
    assert shown_state_url(url) == shown
    assert redact(f"GET {url} failed", secrets_of(url)) == f"GET {shown} failed"


@pytest.mark.parametrize("url", ["http://h:8000/mcp?mail=a@b.example", "http://h:8000/@user/mcp",
                                 "redis://h:6379/0", "http://h/a@b/mcp"])
def test_an_at_sign_past_the_authority_is_shown(url: str) -> None:
    assert redact(f"GET {url} failed", secrets_of(url)) == f"GET {url} failed"
