"""The state URL: which store keeps what several server processes share.

One setting picks the store (highest first): the ``state_url=`` argument, the
``NANOHUBMCP_STATE_URL`` environment variable, ``c.NanohubMCP.state_url``, else none:

- none, ``""`` or ``memory://``: one process; sessions and streams in its memory, jobs in the
  SQLite file of the state directory (today's default, nothing to install or start);
- ``sqlite:///path/to/dir``: the same, with the job store's SQLite file in that directory;
- ``redis://[:password@]host[:port][/db]``, ``rediss://…`` (TLS) or ``unix:///path.sock``:
  sessions, stream event logs, pending server→client requests, subscriptions and the
  stateless era's ``requestState`` key live in Redis, so many processes (on many machines)
  serve one endpoint. Needs the ``redis`` extra (``pip install 'nanohub-mcp[redis]'``).

A password in the URL is never printed: :func:`redact` is what logs and errors show.
"""

from __future__ import annotations

import os
import urllib.parse

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from ..protocol.tuple_records import TupleRecord

REDIS_ENCODING_ERRORS = "surrogatepass"
"""How the Redis clients write text as UTF-8 and read it back: a lone surrogate (valid JSON a client may
send: in a URI it subscribes to, echoed in a result) as the three bytes UTF-8's pattern gives it, read
back as itself; strict UTF-8 has no form for it (the command failed: a 500)."""

ENV_VAR = "NANOHUBMCP_STATE_URL"
MEMORY = "memory"
SQLITE = "sqlite"
REDIS = "redis"
_KINDS = {"memory": MEMORY, "sqlite": SQLITE, "redis": REDIS, "rediss": REDIS, "unix": REDIS}


class StateURL(TupleRecord, tuple[str, str, "str | None"]):
    """A parsed state URL, ``(kind, url, path)`` (immutable; a tuple written out: a frozen dataclass cost ~3 M
    instructions more to make when a server's first module loads, a ``NamedTuple`` ~0.8 M).

    Attributes:
        kind: ``"memory"``, ``"sqlite"`` or ``"redis"``.
        url: the URL as given (may hold a password: never log it, log :attr:`shown`).
        path: for ``sqlite``, the directory of the job store (None: the state directory).
    """

    __slots__ = ()
    _fields = ("kind", "url", "path")

    def __new__(cls, kind: str, url: str, path: str | None = None) -> StateURL:
        return tuple.__new__(cls, (kind, url, path))

    @property
    def kind(self) -> str:
        return self[0]

    @property
    def url(self) -> str:
        return self[1]

    @property
    def path(self) -> str | None:
        return self[2]

    @property
    def shown(self) -> str:
        """The URL with any password replaced by ``***``."""
        return redact(self.url)

    def __repr__(self) -> str:
        return f"StateURL(kind={self.kind!r}, url={self.shown!r}, path={self.path!r})"  # (never the password)

    @property
    def shared(self) -> bool:
        """True when several processes share the state (Redis)."""
        return self.kind == REDIS


def _redacted_query(query: str) -> str:
    """``query`` with the value of each parameter that names a credential (``redaction.is_secret_name``:
    redis-py reads ``?password=`` as the password, as it reads ``user:password@``) shown as ``***``."""
    from ..protocol.credentials import is_secret_name  # (printing a state URL only)

    items = []
    for item in query.split("&"):
        name, eq, _ = item.partition("=")
        items.append(f"{name}=***" if eq and is_secret_name(urllib.parse.unquote_plus(name)) else item)
    return "&".join(items)


def redact(url: str) -> str:
    """``url`` with the password (and a bare user that may be a token) replaced by ``***``, in
    ``user:password@`` and in a query or fragment parameter such as ``?password=``; of a URL whose port is
    no number, or whose password may have read as the port (``protocol.credentials.userinfo_cut_short``:
    ``redis://u:123#ss@host:6379/0``), everything between ``://`` and its last ``@`` (a password holding an
    unescaped ``/``, ``?`` or ``#`` ends the authority early: ``redis://bob:pa/ss@host:6379`` →
    ``redis://***@host:6379``)."""
    from ..protocol.credentials import hide_query_secrets, hide_userinfo_unparsed, userinfo_cut_short

    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    try:
        port = parts.port
    except ValueError:  # not a number in 0-65535: what looks like the port may be part of a password
        return hide_query_secrets(hide_userinfo_unparsed(url))
    if userinfo_cut_short(url):  # redis://u:123#ss@host:6379/0: "123" read as the port of host "u"
        return hide_query_secrets(hide_userinfo_unparsed(url))
    redacted = parts._replace(query=_redacted_query(parts.query), fragment=_redacted_query(parts.fragment))
    if redacted != parts:
        parts = redacted
        url = urllib.parse.urlunsplit(parts)
    if parts.password is None and not parts.username:
        return url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address keeps its brackets (review r39 R39-7: the URL shown could not be read back)
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    user = parts.username or ""
    netloc = f"{user}:***@{host}" if parts.password is not None else f"***@{host}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def parse(url: str | None) -> StateURL:
    """Parse a state URL (None or ``""``: memory).

    Raises:
        ConfigurationError: an unknown scheme; a URL urllib cannot split (a malformed host); a Redis
            URL without a host, with a port that is not a number in 0-65535, or with a database that is
            not a number; a SQLite URL with a host, a query or a fragment, or naming no directory, the
            root, a ``.``/``..`` segment or a directory not after three slashes (``sqlite:tmp``).
    """
    if url is not None and not isinstance(url, str):
        raise ConfigurationError(f"state_url must be a URL string (or None), not {shown_value(url)}")
    if url is None or not url.strip():
        return StateURL(MEMORY, "")
    url = url.strip()
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    kind = _KINDS.get(scheme)
    if kind is None:
        raise ConfigurationError(
            f"state_url {redact(url)!r}: unknown scheme {scheme!r}; use memory://, sqlite:///DIR, "
            "redis://HOST:PORT/DB, rediss://… (TLS) or unix:///PATH.sock"
        )
    url = scheme + url[len(scheme):]  # schemes are case-insensitive (RFC 3986 § 3.1); redis-py takes lower case only
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:  # a malformed host ('[::1:6379'): urllib's reason names no secret
        raise ConfigurationError(
            f"state_url {redact(url)!r} is not a URL ({exc}), e.g. redis://127.0.0.1:6379/0"
        ) from None
    if kind == SQLITE:
        return StateURL(kind, url, _sqlite_directory(url, parts))
    if kind == REDIS and scheme != "unix":
        if not parts.hostname:
            raise ConfigurationError(f"state_url {redact(url)!r} names no host, e.g. redis://127.0.0.1:6379/0")
        try:
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number in 0-65535
        except ValueError:
            raise ConfigurationError(
                f"state_url {redact(url)!r}: the port is not a number in 0-65535, e.g. redis://127.0.0.1:6379/0"
            ) from None
        database = parts.path.strip("/")
        if database and not (database.isascii() and database.isdigit()):
            raise ConfigurationError(
                f"state_url {redact(url)!r}: the database {database[:40]!r} is not a number, e.g. redis://127.0.0.1:6379/0"
            )
    return StateURL(kind, url)


def _sqlite_directory(url: str, parts: urllib.parse.SplitResult) -> str:
    """The directory a ``sqlite:///DIR`` URL names: an absolute path (percent-escapes decoded, as in a
    ``file:`` URL), never the file system's root and with no ``.``/``..`` segment.

    Raises:
        ConfigurationError: a host (``sqlite://state``: the path's first name read as a host, which a
            reader does not expect), a query or a fragment (``?mode=ro``: urllib drops them, nothing reads
            them), no directory, the root, a ``.``/``..`` segment, a NUL or another control character, an
            escape that is not UTF-8 (``%ff``), a path not after three slashes (``sqlite:tmp``: relative
            to the working directory), or a path that is (or is under) an existing file.
    """
    example = "e.g. sqlite:///home/me/state (three slashes, then an absolute directory)"
    if parts.netloc:
        raise ConfigurationError(f"state_url {redact(url)!r} names a host ({parts.hostname!r}); a sqlite URL names a "
                                 f"directory only, {example}")
    if "?" in url or "#" in url:  # urlsplit drops what follows: '?mode=ro' looked honoured and was not
        raise ConfigurationError(f"state_url {redact(url)!r} has a query or a fragment, which a sqlite URL does not "
                                 f"take (write '?' as %3F and '#' as %23 in a directory's name), {example}")
    try:  # %ff alone is no UTF-8: a directory named by the byte 0xFF no reader of the URL expects
        directory = urllib.parse.unquote(parts.path, errors="strict")
    except UnicodeDecodeError:
        directory = "\0"
    segments = directory.split("/")
    if (not directory.strip("/") or any(segment in (".", "..") for segment in segments)
            or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in directory)):  # a NUL, a line break, a control
        raise ConfigurationError(f"state_url {redact(url)!r} names no directory the job store can use (not the root, "
                                 f"no '.' or '..', no control character or escape that is not UTF-8), {example}")
    if not url[len(SQLITE) + 1:].startswith("///"):  # 'sqlite:tmp': a store that moves with the working directory
        raise ConfigurationError(f"state_url {redact(url)!r} names no absolute directory after three slashes, "
                                 f"{example}")
    _refuse_a_file_on_the_way(url, directory)
    return directory


def _refuse_a_file_on_the_way(url: str, directory: str) -> None:
    """Refuse ``directory`` when it, or the nearest of its parents that exists, is not a directory (a
    regular file): the job store could not be made there, and the jobs went to memory, lost at the stop,
    where the URL asked them kept."""
    path = file_on_the_way(directory)
    if path is not None:
        raise ConfigurationError(f"state_url {redact(url)!r}: {path!r} is a file, not a directory; name a directory "
                                 "for the job store (made if missing)")


def file_on_the_way(directory: str) -> str | None:
    """The path that makes ``directory`` unusable as a directory: ``directory`` itself, or the nearest of its
    parents that exists, when that is not a directory (a regular file, a dangling link); else None (it is a
    directory, or can be made). ``directory`` is taken as given (make it absolute first)."""
    path = directory.rstrip("/") or "/"
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:  # (a relative path's first name: its parent is the working directory)
            return None
        path = parent
    return None if os.path.isdir(path) else path


def store_refused(shown: str, exc: BaseException) -> ConfigurationError:
    """The error for a state URL that redis-py or the store refuses as written (an option redis-py does
    not take, ``?foo=bar``; a database the server does not have, ``/99``). ``shown`` is the URL without
    its password (:attr:`StateURL.shown`); the reason redis-py or the server gives names no password."""
    return ConfigurationError(f"state_url {shown} was refused: {type(exc).__name__}: {str(exc)[:200]}; "
                              "e.g. redis://127.0.0.1:6379/0 (options: the redis-py URL query options)")


def store_unreachable(shown: str, exc: BaseException) -> ConfigurationError:
    """The error for a state store that does not answer: ``cannot reach the state store URL: Type: reason (is
    redis-server running at HOST:PORT, ...?)`` (the reason redis-py gives, ``Error 111 connecting to ... Connection
    refused.``, at most 200 characters, names no password; ``shown`` is the URL without its password,
    :attr:`StateURL.shown`)."""
    try:
        parts = urllib.parse.urlsplit(shown)
        host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname
        where = f"{host}:{parts.port or 6379}" if host else shown
    except ValueError:  # (a port that is no number: parse refused it before; said whole all the same)
        where = shown
    reason = " ".join(str(exc).split())[:200]
    return ConfigurationError(f"cannot reach the state store {shown}: {type(exc).__name__}"
                              f"{': ' + reason if reason else ''} (is redis-server running at {where}, and "
                              "reachable from this machine?)")


def resolve(argument: str | None, configured: str | None = None) -> StateURL:
    """The state URL in force: ``argument``, else ``$NANOHUBMCP_STATE_URL``, else ``configured``
    (``c.NanohubMCP.state_url``), else memory."""
    for value in (argument, os.environ.get(ENV_VAR), configured):
        if value is not None:
            return parse(value)
    return parse(None)
