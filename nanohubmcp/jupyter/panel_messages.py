"""What the JupyterLab panel is told over the ``nanohubmcp`` comm: the shapes of its messages,
and the ``status`` and ``components`` messages built from the server it shows (:mod:`.comm`
sends them, and builds the ``calls`` messages from its log).

Kernel → panel messages (``data`` of a ``comm_msg``; every one has a ``type``):

- ``{"type": "status", "loaded", "name", "version", "running", "mode", "host", "port",
  "local_url", "public_url", "mcp_url", "hub", "hub_reason", "streaming", "endpoints": [{"label", "url"}]}``
  (``loaded`` false means there is no server to show; the other keys are then absent; a
  ``server.run()`` server's ``mode`` is ``"thread"``);
- ``{"type": "components", "tools": [{"name", "title", "description", "runs"}],
  "resources": [{"uri", "name", "description", "template"}], "prompts": [{"name",
  "description"}]}``;
- ``{"type": "calls", "reset", "capacity", "stuck", "calls": [call, ...]}``: with ``reset`` true
  the whole log (finished calls oldest first, then those still running), else new or updated
  entries. A call is ``{"id", "time" (epoch
  seconds), "method", "name", "session", "ok" (None while running), "error", "duration_ms"}``,
  plus ``"record"`` once finished (its provenance record's id, or None),
  plus ``"progress"``, ``"total"`` and ``"message"`` once it reported progress
  (``ctx.report_progress`` or a tqdm bar); ``id`` increases with every call, and a finished
  call reuses its started entry's ``id``. ``stuck`` counts calls past ``tool_timeout`` whose
  functions still hold a worker thread.
- ``{"type": "jobs", "jobs": [job, ...]}``: the newest jobs of ``--async`` tools (at most
  :data:`JOBS_SHOWN`), newest first, sent with every snapshot and again after calls and
  progress. A job is ``{"id", "tool", "status", "status_message", "progress",
  "progress_total", "progress_message", "created" (epoch seconds), "executor"}`` — never its
  arguments or result.
- ``{"type": "provenance", "id", "record"}``: the answer to the panel's ``{"type":
  "provenance", "id"}``: the provenance record (as ``%mcp history ID`` shows it), or None
  when it is unknown or expired.

The panel's side of these shapes is ``labextension/src/protocol.ts``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .display import endpoints, first_line

if TYPE_CHECKING:
    from ..runtime import Runtime
    from ..server.wire.events import EventBus

__all__ = ["components", "jobs", "provenance", "status"]

JOBS_SHOWN = 20
"""Jobs the panel lists (the newest)."""


class ShownServer(Protocol):
    """What the panel reads of a server (an ``MCPServer``)."""

    @property
    def runtime(self) -> Runtime: ...

    @property
    def events(self) -> EventBus: ...

    @property
    def running(self) -> bool: ...


class Shown(Protocol):
    """What the panel shows: a ``KernelSession``, or a ``server.run()`` server's ``kernel_server.KernelRun``."""

    @property
    def server(self) -> ShownServer: ...

    def status(self) -> dict[str, Any]:
        """A snapshot of plain JSON-able values (see ``KernelSession.status``)."""
        ...


def status(subject: Shown | None) -> dict[str, Any]:
    """The ``status`` message for ``subject`` (a ``KernelSession`` or a ``server.run()`` server's
    view with the same ``status()``), or ``loaded`` false for None."""
    if subject is None:
        return {"type": "status", "loaded": False}
    shown = subject.status()
    for key in ("tools", "resources", "prompts"):
        shown.pop(key, None)
    base = shown.get("public_url")
    shown["endpoints"] = [{"label": label, "url": url} for label, url in endpoints(base)] if base else []
    return {"type": "status", "loaded": True, **shown}


def components(subject: Shown | None) -> dict[str, Any]:
    """The ``components`` message: the tools, resources (and templates) and prompts of
    ``subject``'s server, each with the first line of its description; empty lists for None."""
    if subject is None:
        return {"type": "components", "tools": [], "resources": [], "prompts": []}
    runs = {t["name"]: t["runs"] for t in subject.status()["tools"]}
    runtime = subject.server.runtime
    return {
        "type": "components",
        "tools": [
            {"name": t.name, "title": t.title, "description": first_line(t.description),
             "runs": runs.get(t.name, "server")}
            for t in runtime.tools.values()
        ],
        "resources": [
            {"uri": r.uri, "name": r.name, "description": first_line(r.description), "template": False}
            for r in runtime.resources.values()
        ]
        + [
            {"uri": t.uri_template, "name": t.name, "description": first_line(t.description), "template": True}
            for t in runtime.templates.values()
        ],
        "prompts": [
            {"name": p.name, "description": first_line(p.description)} for p in runtime.prompts.values()
        ],
    }


def jobs(subject: Shown | None) -> dict[str, Any]:
    """The ``jobs`` message: the newest jobs of ``subject``'s server (empty for None); of a kernel
    session, the jobs its servers ran (as ``%mcp jobs``: another kernel sharing the state directory
    keeps its own)."""
    if subject is None:
        return {"type": "jobs", "jobs": []}
    keep = ("id", "tool", "status", "status_message", "progress", "progress_total", "progress_message", "created",
            "executor")
    listed = subject.server.runtime.jobs.listing(limit=JOBS_SHOWN, processes=getattr(subject, "job_processes", None))
    return {"type": "jobs", "jobs": [{key: row.get(key) for key in keep} for row in listed]}


def provenance(subject: Shown | None, record_id: object) -> dict[str, Any]:
    """The ``provenance`` message: record ``record_id`` of ``subject``'s server, or None.

    The panel is the notebook user's own view (as ``%mcp history ID``): the record is read
    whoever the call's principal was.
    """
    record = None
    if subject is not None and isinstance(record_id, str) and 0 < len(record_id) <= 64:
        record = subject.server.runtime.provenance.find(record_id)
    return {"type": "provenance", "id": record_id if isinstance(record_id, str) else None, "record": record}
