"""What one call is, as its :class:`~.context.Context` reads it from the request: its ids, its caller,
its ``_meta``, its progress token, its provenance record, its protocol version, its inline limit, its
task's metadata and its cancellation flag.

:class:`CallFacts` is the base of ``Context`` and owns what it reads: the request, the job id and where the
server's result options are read (:class:`Shaping`), all given to its ``__init__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..results.options import ResultOptions
    from ..wire.principal import Principal
    from ..wire.request import RequestContext

__all__ = ["CallFacts", "Shaping"]


class Shaping(Protocol):
    """Where the server's result options are read, as they are now (the server's core)."""

    @property
    def result_options(self) -> ResultOptions: ...


class CallFacts:
    """The facts of the call a Context serves (the base of :class:`~.context.Context`).

    Args:
        request: the request being served.
        job_id: the job (task) id when the call runs as an ``@async_tool`` job, else None.
        shaping: where the server's result options are read (:attr:`inline_limit`).
    """

    def __init__(self, request: RequestContext, *, job_id: str | None, shaping: Shaping) -> None:
        self._request = request
        self._job_id = job_id
        self._shaping = shaping

    # -- identity ---------------------------------------------------------------------------
    @property
    def job_id(self) -> str | None:
        """The job (task) id when running as an ``@async_tool`` job, else None."""
        return self._job_id

    @property
    def cancel_event(self) -> Any:
        """The cancellation flag: ``is_set()``, and ``wait(timeout)`` from a worker thread."""
        flag = self._request.cancelled
        flag.seen = True  # the function holds the flag: it may see a cancel (counted as seen)
        return flag

    @property
    def task_metadata(self) -> dict[str, Any]:
        """Metadata published with this call's task (``_meta`` of the Task); a copy."""
        return dict(self._request.task_metadata)

    def set_task_metadata(self, values: dict[str, Any] | None = None, **more: Any) -> None:
        """Publish metadata with this call's task (seen by ``tasks/get``).

        Bare keys get the prefix ``org.nanohub/``; keys already carrying a prefix keep it.

        Raises:
            ValueError: a key in a reserved namespace (second label ``modelcontextprotocol``
                or ``mcp``, MCP 2026-07-28 Basic § _meta).
        """
        merged = {**(values or {}), **more}
        target = self._request.task_metadata
        for key, value in merged.items():
            if "/" not in key:
                key = f"org.nanohub/{key}"
            labels = key.split("/", 1)[0].split(".")
            if len(labels) > 1 and labels[1] in ("modelcontextprotocol", "mcp"):
                raise ValueError(f"task metadata key {key!r} is in a namespace reserved for MCP itself")
            target[key] = value

    @property
    def server(self) -> Any:
        """The ``MCPServer`` serving this call (the application's own: everything it reaches, this call may reach;
        typed ``Any`` here because the server's parts sit below the facade in the layers)."""
        return self._request.server

    @property
    def request_id(self) -> str | int | None:
        """The JSON-RPC id of the request being served."""
        return self._request.request_id

    @property
    def session_id(self) -> str | None:
        """The session id, or None when the request has no session."""
        session = self._request.session
        return session.id if session is not None else None

    @property
    def principal(self) -> Principal | None:
        """The authenticated caller (``subject``, ``scopes``, ``claims``), or None when the
        server has no authorization configured."""
        return self._request.principal

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` object."""
        return self._request.meta

    @property
    def progress_token(self) -> str | int | None:
        """The client's progress token, or None when it asked for no progress."""
        return self._request.progress_token

    @property
    def provenance_id(self) -> str | None:
        """The id of the provenance record this call leaves (its URI is ``nanohubmcp://provenance/<id>``),
        or None when the server keeps none of it (provenance off, the tool left out of it)."""
        return self._request.provenance_id

    @property
    def protocol_version(self) -> str:
        """The protocol version in force for this request."""
        return self._request.version

    @property
    def inline_limit(self) -> int | None:
        """Bytes of JSON over which a part of this call's result is better kept as a resource (named
        in the result) than put in it: the server's ``max_inline_bytes`` as it is now, or None when the
        answer carries all of its data — a REST call (``POST /tools/<name>``), whose caller has no
        ``resources/read`` (and a job such a call started)."""
        return None if self._request.data_only else self._shaping.result_options.max_inline_bytes
