"""The root of the exception tree, and the errors that never travel as JSON-RPC error objects.

Owns :class:`NanohubMCPError` and its branches for mistakes of the serving program
(:class:`RegistrationError`, :class:`RegistrationWarning`, :class:`ConfigurationError`, :class:`UsageError`), for a
tool's failure, answered as ``isError: true`` content (:class:`ToolError`, :class:`InvalidArguments`,
:class:`JobLimitReached`, :class:`ToolBusy`, :class:`ResultTooLarge`), and for a server→client request that failed
(:class:`ClientRequestError`), and :func:`message_of`, the text a tool's exception is reported with.
The JSON-RPC error objects are :mod:`.protocol`'s.
"""

from __future__ import annotations

__all__ = [
    "RETRY_AFTER_META",
    "ClientRequestError",
    "ClientRequestTimeout",
    "ConfigurationError",
    "InvalidArguments",
    "JobLimitReached",
    "NanohubMCPError",
    "RegistrationError",
    "RegistrationWarning",
    "ResultTooLarge",
    "ToolBusy",
    "ToolError",
    "ToolTimeout",
    "UsageError",
    "message_of",
    "text_of",
]


def message_of(exc: BaseException) -> str:
    """The text a client gets for ``exc``, an exception a tool raised: ``str(exc)``, unless that
    names nothing a reader can use; then the exception's type leads.

    ``str(exc)`` alone is empty for an exception raised without arguments (``raise ValueError``):
    the type's name is the text. An exception made with several arguments prints their tuple:
    ``2.0 ** 1e6`` raises ``OverflowError(34, 'Numerical result out of range')``, printed
    ``(34, 'Numerical result out of range')``; the text is then the type and the arguments,
    ``OverflowError: Numerical result out of range`` (an errno before its reason, as there, is
    left out: the number tells a model nothing). A ``KeyError`` prints only the key it missed
    (``{"Si": 1.12}["Ge"]`` prints ``'Ge'``, pandas' ``df["col"]`` ``'col'``), and an exception made with
    one argument that is no text prints only that value (``ValueError(42)`` prints ``42``): the type leads,
    ``KeyError: 'Ge'``, ``ValueError: 42``. Any other exception's text is ``str(exc)`` as it is (an
    ``IndexError``'s ``list index out of range`` names its problem). An exception whose ``str()`` (or an
    argument's) raises is its type's name and why no more is said: ``BadStr (its message could not be read:
    RuntimeError)``.
    """
    try:
        return _message_of(exc)
    except Exception as broken:  # a __str__ that raises: the call still ends in the tool's error, not ours
        return f"{type(exc).__name__} (its message could not be read: {type(broken).__name__})"


def text_of(exc: BaseException) -> str:
    """``str(exc)``, or :func:`message_of`'s text when that raises (a ``__str__`` of the tool's that fails)."""
    try:
        return str(exc)
    except Exception:
        return message_of(exc)


def _message_of(exc: BaseException) -> str:
    text = str(exc)
    if not text:
        return type(exc).__name__
    args = exc.args
    if len(args) < 2 or text != str(args):
        a_key = isinstance(exc, KeyError) and type(exc).__str__ is KeyError.__str__
        a_value = len(args) == 1 and not isinstance(args[0], str) and text == str(args[0])
        return f"{type(exc).__name__}: {text}" if a_key or a_value else text
    if len(args) == 2 and type(args[0]) is int and isinstance(args[1], str):
        args = args[1:]
    return f"{type(exc).__name__}: {', '.join(str(arg) for arg in args)}"


class NanohubMCPError(Exception):
    """Root of every exception nanohubmcp raises on purpose."""


class RegistrationError(NanohubMCPError, ValueError):
    """A tool, resource or prompt could not be registered; the message names it.

    Args:
        message: what is wrong and how to fix it, in Python terms (``name='...'``).
        option: the keyword argument of the fix (e.g. ``"name"``), so a front end with options
            of its own (the notebook's ``--name``) can say it in its terms; None when none.
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option

    def said_with(self, flag: str, add: str) -> str:
        """The message with its keyword fix said as a front end's ``flag`` (``"--name"``): an example value
        ``name='x'`` becomes ``--name x``, and ``pass name='...'`` becomes ``add`` (``"add --name NAME"``).
        The message as it is when there is no :attr:`option`."""
        import re

        text = str(self)
        if self.option:
            text = text.replace(f"pass {self.option}='...'", add)
            text = re.sub(rf"\b{self.option}='([^'\s]*)'", rf"{flag} \1", text)
        return text


class RegistrationWarning(UserWarning):
    """A tool was registered, but something about it will likely confuse a model or a user."""


class ConfigurationError(NanohubMCPError, ValueError):
    """A server option, port, or environment setting cannot be used as given."""

    variable: str | None = None
    """The environment variable whose value cannot be used, when that is the error (its message names it):
    a script's ``MCPServer(...)`` that nothing catches ends in that one line, exit status 2, and a command
    answers it without its usage. None for an argument or option."""


class UsageError(ConfigurationError):
    """A command-line argument is malformed, or arguments conflict: what is wrong shows in the
    arguments themselves, before any file is read or anything runs (a URL that is not http(s), a
    ``NAME=VALUE`` without ``=``, two options that exclude each other).

    The ``nanohubmcp`` command answers it as argparse answers its own usage errors: the usage line,
    the message, exit status 2 (other errors exit 1). To any other caller it is a ``ConfigurationError``.
    """


class ToolError(NanohubMCPError):
    """Raise inside a tool to report a failure the model should see.

    The message becomes the text of an ``isError: true`` result (MCP 2025-11-25,
    Server § Tools § Error handling). Any other exception a tool raises is reported the
    same way, with ``str(exc)`` as the text (:func:`message_of`: the type leads where that text is
    empty or a tuple of arguments).
    """


class JobLimitReached(ToolError):
    """The job store is full (in total or for this caller): no new job is accepted.

    An ``@async_tool`` call and a task-augmented call (either era) answer it as the same ``isError``
    result (never JSON-RPC -32603), REST as HTTP 429; the message names the limit and the option raising it.
    When the caller's own share (``max_jobs_per_owner``) is full and one of its jobs has finished,
    the result's ``_meta`` carries ``{RETRY_AFTER_META: seconds}`` and REST's 429 ``Retry-After``
    (RFC 9110 § 10.2.3): the seconds until that job's record expires and stops counting. When the whole
    store (``max_jobs``) is full they always do: the seconds until its first finished record expires, else
    (no job has finished) a backoff of 60 s (:mod:`nanohubmcp.server.jobs.slot_free`).

    Attributes:
        per_owner: True for the caller's share (``max_jobs_per_owner``), False for the server's
            (``max_jobs``).
        retry_after: whole seconds until a slot frees (the whole store's: else a backoff of 60 s), None when
            unknown (the caller's share: every counted job still runs).
    """

    def __init__(self, message: str, *, per_owner: bool = False, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.per_owner = per_owner
        self.retry_after = retry_after


class ToolBusy(ToolError):
    """The tool could not start: what it runs on is busy (a notebook kernel running a cell).

    An ``isError`` result on every MCP route, whose ``_meta`` carries ``{RETRY_AFTER_META:
    seconds}``; REST answers HTTP 503 with ``Retry-After`` (RFC 9110 § 10.2.3).

    Attributes:
        retry_after: seconds after which a retry may find it free.
    """

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ToolTimeout(ToolError):
    """The call ran past a time limit: the server's ``tool_timeout`` (``MCPServer(tool_timeout=)``, in a
    notebook ``%config NanohubMCP.tool_timeout``), answered at the limit and marked cancelled; or a tool's
    own, which stopped its run: a Rappture tool's ``timeout=`` (``--timeout``; else its ``<limits><cputime>``),
    a Sim2L cell past ``cell_timeout=`` (``--cell-timeout``).

    An ``isError`` result on every MCP route; REST answers HTTP 504 (RFC 9110 § 15.6.5: the tool, which the
    server waited on, did not answer in time), never 500: nothing failed in the server. The message names the
    limit and the option raising it, and says what became of the run: a Rappture or Sim2L run is stopped
    ("its run was stopped"); a sync function, which nothing can stop, was abandoned and may still be running.
    """


class ResultTooLarge(ToolError):
    """A tool's result is larger than the server's ``max_result_bytes``, or, answered as one server-sent event, larger
    than the server's ``max_event_bytes`` (``server.results.event_bound``: a result held to an output schema, a
    task's result read back over legacy SSE or told by a 2026 listen): it is not sent.

    The call fails as a tool does (``isError: true`` over MCP, HTTP 500 ``{"error": ...}`` over REST),
    with a message naming the size and the limit, logged as one line (no traceback). Found before
    the data is encoded where its size can be bounded cheaply (arrays, tables), else once it is.

    Attributes:
        logged: the server's log already has its line (a job's data, said once per job naming the job's tool
            and id): the failed call is not logged again.
    """

    def __init__(self, message: str, *, logged: bool = False) -> None:
        super().__init__(message)
        self.logged = logged


RETRY_AFTER_META = "io.nanohub/retryAfter"
"""The ``_meta`` key of a tool result saying in how many seconds to retry (see :class:`ToolBusy`)."""


class InvalidArguments(ToolError):
    """The call's arguments do not satisfy the tool's input schema.

    Reported as ``isError: true`` from 2025-11-25 on (SEP-1303) and as JSON-RPC -32602
    before that, unless the server's ``argument_errors`` option says otherwise.

    Attributes:
        errors: one human-readable message per violation, each naming the JSON path.
    """

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or [message]



class ClientRequestError(NanohubMCPError, RuntimeError):
    """A server→client request (elicitation, sampling, roots) failed or was refused."""


class ClientRequestTimeout(ClientRequestError, TimeoutError):
    """The client did not answer a server→client request in time."""
