"""Any path no route serves: a JSON 404 that says what exists (the application's default handler).

A module of its own, apart from the documents (``documents.py``, whose routes load with their first request):
the application names this class when it is built, and a first answer on ``/mcp`` needs nothing else here.
"""

from __future__ import annotations

import re

from ..errors import RouteNotFound, ServerBusy
from .bodies import StreamedBody
from .plain_errors import PlainErrorsHandler
from .url_path import spellings

SHOWN_CHARACTERS = 200
"""How much of a client's path a 404 repeats: an unknown path, a REST call's unknown tool name."""


def shown(text: str) -> str:
    """``text`` from the request's path as a 404 repeats it: its first :data:`SHOWN_CHARACTERS`, then "…"."""
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "…"


class NotFoundHandler(PlainErrorsHandler):
    """Any other path: a JSON 404 that says what exists.

    On a server with authorization, a request without a valid token gets the 401 (with
    ``WWW-Authenticate``) every route answers first: a caller without a token learns that a token is
    needed, not which paths exist. Two kinds of request still get the 404 without one: a CORS
    preflight (it never carries credentials), and a path under ``/.well-known/`` — the URIs a client
    probes before it has a token (RFC 8615; an OAuth client asks for the authorization server's
    metadata at this host and takes a 404 as "not here").

    A request with a body (read by the handler's streamed twin) gets its 404 before the body; a body
    declared within ``max_request_bytes`` is then read and dropped, and the connection serves the
    client's next request; any other (larger, chunked, awaited with ``Expect: 100-continue``) stays
    unread and the 404 says ``Connection: close`` (:meth:`~.bodies.StreamedBody.refuse_unread`).
    """

    async def prepare(self) -> None:
        await super().prepare()  # the Origin and Host checks (no token: no method of its own is allowed)
        verifier = self.config.auth
        if verifier is not None and not self._finished and self.request.method != "OPTIONS" and not _probe(
                self.request.path, self.config.path_prefix):
            try:
                await self.authorize(verifier)
            except ServerBusy as exc:  # the verifier cannot judge the token now: as on every route
                self.fail(exc)
        if not self._finished:
            path = shown(self.request.path)  # a 60 KB path is not echoed back whole
            missing = RouteNotFound(f"No route for {self.request.method} {path}; see GET / for the endpoints")
            if isinstance(self, StreamedBody):  # a body is on its way (a request with one is read by the twin)
                self.refuse_unread(missing)  # read and dropped when small, the connection kept; else closed
            else:
                self.fail(missing)

    def allowed_methods(self) -> list[str]:
        return []  # none: every method gets the 404 (a CORS preflight too; the methods below only end a request)

    def _answered(self, *args: str, **kwargs: str) -> None:
        """The 404 went out in ``prepare``, before the body, which was read and dropped since
        (:meth:`~.bodies.StreamedBody.refuse_unread`): nothing is left to do."""

    get = head = post = put = patch = delete = options = _answered


def _probe(path: str, prefix: str) -> bool:
    """Whether ``path`` is under ``/.well-known/`` (at the host's root or under the path prefix, in any spelling
    of it the routes answer: :func:`~.url_path.spellings`)."""
    path = path + "/"
    return path.startswith("/.well-known/") or (
        bool(prefix) and re.match(spellings(prefix) + r"/\.well-known/", path) is not None)
