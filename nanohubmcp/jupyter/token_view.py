"""``%mcp token``: the server's bearer token, shown until the next cell runs.

What a cell shows is saved with the notebook — in the ``.ipynb``, its checkpoints, the commits
and copies of it — and, as Jupyter never writes its own token into a notebook, nothing else the
package shows carries the token (the status and the client snippets name ``$MCP_TOKEN``
instead). ``%mcp token`` shows it on request, under a display id; when the next cell starts,
that output is replaced by a line saying it was hidden, so the notebook saved afterwards no
longer holds it. Saved while still shown (the last cell run, or a save in between), it is in
the file: the output says so.

The magic returns the token as an :class:`MCPToken`, a ``str`` (``t = %mcp token``, then
``os.environ["MCP_TOKEN"] = t`` for a client the notebook runs) whose ``repr`` does not hold it, and
which, as a cell's value, shows it the same way (not a second time in the cell that showed it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.display import display

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["HIDDEN", "MCPToken", "show_token_once"]

HIDDEN = ("MCP token hidden (it is shown until the next cell runs, so the notebook does not keep it); "
          "%mcp token shows it again")
"""What replaces the token's output when the next cell starts."""


class _Shown:
    """The token as plain text, with the warning (``text/plain`` only: nothing else is saved)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __repr__(self) -> str:
        return (f"{self.token}\n"
                "(shown until the next cell runs, then hidden: a notebook saved before that keeps it. "
                "Clients read it from $MCP_TOKEN)")


class _Text:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class MCPToken(str):
    """The bearer token ``%mcp token`` returns: the token itself as a ``str``; its ``repr`` does not
    hold it, and shown as a cell's value it is displayed as ``%mcp token`` displays it. Its ``str()`` is the
    token (it is used as one), so ``print(t)`` and IPython's ``%whos``, which prints each variable's
    ``str()``, show it."""

    _shell: InteractiveShell
    _shown_in: int
    """The execution count of the cell that displayed it already."""

    def __new__(cls, token: str, shell: InteractiveShell, shown_in: int) -> MCPToken:
        value = super().__new__(cls, token)
        value._shell = shell
        value._shown_in = shown_in
        return value

    def __repr__(self) -> str:
        return "<the MCP token: str(value) is the token; %mcp token shows it until the next cell runs>"

    def _ipython_display_(self) -> None:
        if self._shell.execution_count != self._shown_in:
            self._shown_in = show_token_once(self._shell, str(self))


def show_token_once(shell: InteractiveShell, token: str) -> int:
    """Display ``token`` now and replace that output with :data:`HIDDEN` when the next cell starts;
    returns the execution count of the cell showing it."""
    handle: Any = display(_Shown(token), display_id=True)

    def hide(*_: object) -> None:
        shell.events.unregister("pre_run_cell", hide)
        if handle is not None:
            handle.update(_Text(HIDDEN))

    shell.events.register("pre_run_cell", hide)
    return int(shell.execution_count)
