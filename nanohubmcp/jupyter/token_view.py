"""``%mcp token``: the server's bearer token, shown until the next cell runs.

What a cell shows is saved with the notebook — in the ``.ipynb``, its checkpoints, the commits
and copies of it — and, as Jupyter never writes its own token into a notebook, nothing else the
package shows carries the token (the status and the client snippets name ``$MCP_TOKEN``
instead). ``%mcp token`` shows it on request, under a display id; when the next cell starts,
that output is replaced by a line saying it was hidden, so the notebook saved afterwards no
longer holds it. Saved while still shown (the last cell run, or a save in between), it is in
the file: the output says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.display import display

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["HIDDEN", "show_token_once"]

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


def show_token_once(shell: InteractiveShell, token: str) -> None:
    """Display ``token`` now and replace that output with :data:`HIDDEN` when the next cell starts."""
    handle: Any = display(_Shown(token), display_id=True)

    def hide(*_: object) -> None:
        shell.events.unregister("pre_run_cell", hide)
        if handle is not None:
            handle.update(_Text(HIDDEN))

    shell.events.register("pre_run_cell", hide)
