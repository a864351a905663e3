"""Route a tool's ``print`` and ``display`` output to the notebook cell that defined it.

ipykernel decides which cell an output belongs to from a *parent header* (the
``execute_request`` that is running). ipykernel 6.29+ and 7.x keep that header in a
``ContextVar`` on the shell, the display publisher, the display hook and ``sys.stdout`` /
``sys.stderr``, falling back to "the cell running now, or the last one run" when a thread never
set it. Measured on ipykernel 6.31 and 7.4: running every call
in a copy of the context captured inside the defining cell puts its output under that cell,
for worker threads and for the kernel loop alike. 7.1+ no longer make threads inherit the cell
that started them, so without this a tool's output lands in whatever cell runs at the time.

On top of the context copy, :meth:`CellOutput.run` sets the captured header explicitly with the
shell's ``set_thread_parent`` when the kernel offers it (7.x; a no-op elsewhere), so the routing
does not hinge on how a given version seeds its context variables. ipykernel 6.x keeps the
display publisher's header in one global trait (measured on 6.31: ``display()`` from a worker
went to the running cell while ``print`` was routed), so during the call a *thread-local*
display hook (``display_pub.register_hook``, both 6.x and 7.x) stamps the defining cell's header
on every display message this thread publishes. Outside a kernel (plain IPython) all of this is
harmless: there is no header to route by.

In the kernel Voilà renders a page with, the output goes to the cell Voilà ran last instead
(:func:`~nanohubmcp.sources.batch_run.voila_cell`): its page shows only what the cell it runs
outputs, so a ``%%mcp_tool``'s ``print``, tqdm bar and ``ctx.report_progress`` bar, called from a
later cell's ``%mcp call``, were dropped there (measured with voila 0.5.13).

Limit: on 6.x the hook covers a call's own thread; ``display()`` from an ``async def`` tool,
which runs as a task on the kernel loop, follows the global header (the running cell).

Nothing here imports IPython: the shell is used through duck typing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..server.calls import progress
from ..sources.batch_run import voila_cell

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["CellOutput"]

T = TypeVar("T")


class CellOutput:
    """The output destination of one cell, captured while that cell runs.

    Attributes:
        parent: the cell's ``execute_request`` message (None outside a kernel).
        msg_id: that message's id, or None: which cell the output goes to.
        cell_id: the frontend's cell id (JupyterLab sends ``metadata.cellId``; nbclient does not).
    """

    __slots__ = ("_context", "_shell", "cell_id", "msg_id", "parent")

    def __init__(
        self, context: contextvars.Context, shell: InteractiveShell | None, parent: dict[str, Any] | None
    ) -> None:
        self._context = context
        self._shell = shell
        self.parent = parent or None
        header = (parent or {}).get("header") or {}
        metadata = (parent or {}).get("metadata") or {}
        self.msg_id: str | None = header.get("msg_id")
        self.cell_id: str | None = metadata.get("cellId")

    @classmethod
    def capture(cls, shell: InteractiveShell | None) -> CellOutput:
        """Capture the running cell (call from the magic, on the kernel's main thread)."""
        get_parent = getattr(shell, "get_parent", None)
        parent = get_parent() if callable(get_parent) else None
        return cls(contextvars.copy_context(), shell, parent if isinstance(parent, dict) else None)

    def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Call ``fn(*args, **kwargs)`` so that its output goes to the captured cell (in the kernel Voilà renders
        with, to the cell it ran last: see the module docstring).

        Safe from any thread and for concurrent calls: each call enters its own copy of the
        captured context (one Context cannot be entered by two threads at once). The progress
        of the MCP call running in the caller's context comes along (``ctx.report_progress``
        and tqdm bars report to it).
        """
        context = self._context.copy()
        calling = progress.CURRENT.get()
        if calling is not None:
            context.run(progress.CURRENT.set, calling)
        return context.run(self._call, fn, args, kwargs)

    def _call(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        if self.parent is None:
            return fn(*args, **kwargs)
        parent = voila_cell() or self.parent
        header = dict(parent.get("header") or {})

        def stamp(msg: dict[str, Any]) -> dict[str, Any]:
            """Display hook: address a display message to the cell."""
            msg["parent_header"] = dict(header)
            return msg

        set_parent = getattr(self._shell, "set_thread_parent", None)
        reset_parent = getattr(self._shell, "reset_thread_parent", None)
        publisher = getattr(self._shell, "display_pub", None)
        hooks = (
            publisher
            if hasattr(publisher, "register_hook") and hasattr(publisher, "unregister_hook")
            else None
        )
        tokens = set_parent(parent) if set_parent is not None and reset_parent is not None else None
        if hooks is not None:
            hooks.register_hook(stamp)
        try:
            return fn(*args, **kwargs)
        finally:
            if hooks is not None:
                hooks.unregister_hook(stamp)
            if tokens is not None:
                reset_parent(tokens)  # type: ignore[misc]
