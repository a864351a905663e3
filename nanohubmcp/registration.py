"""What ``MCPServer``'s decorators do: build component records and put them in the core's registry.

:class:`Registrar` is the facade's collaborator for registration (the facade keeps the public
signatures and documentation and hands each call here). It holds the one core it registers on;
tools, resources, views, prompts, completions and skills each become a record of
``nanohubmcp.server.registry.components`` (or a ``Skill``) checked as they are added.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from .decorators import marked
from .errors import ConfigurationError, RegistrationError, RegistrationWarning
from .schema.hints import LazyClass
from .server.executors import EXECUTORS, JOB_EXECUTOR, JOB_OPTIONS, JobExecutor
from .server.provenance import tool_options as provenance_options
from .server.registry import checks as registration_checks
from .server.registry.components import Tool
from .server.stateless.tool_options import apply_tool_options
from .server.wire.scopes import TOOL_SCOPES, parse_scopes

if TYPE_CHECKING:
    from pathlib import Path

    from .server.core import ServerCore
    from .server.registry.prompts import Prompt
    from .server.registry.resources import Resource, ResourceTemplate
    from .server.registry.skills import Skill

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_TYPES = (LazyClass("nanohubmcp.server.calls.context", "Context"),)
"""What marks a function's context parameter: an annotation of ``Context``, whose module (and the asks
behind it) is imported when a string annotation names it or a call first makes one, not by registering."""


def decorating(register: Callable[[F], object], fn: F | None) -> Any:
    """A decorator usable bare or called: registers ``fn`` now when given, else the decorated function."""
    if fn is not None:
        register(fn)
        return fn

    def decorate(func: F) -> F:
        register(func)
        return func

    return decorate


def user_frame() -> int:
    """The ``stacklevel`` of the first caller outside nanohubmcp, so a warning names the user's line."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "nanohubmcp":
        frame, level = frame.f_back, level + 1
    return level


_WARN_AT: ContextVar[tuple[str, int, dict[Any, Any]] | None] = ContextVar("nanohubmcp_warn_at", default=None)
"""Where :func:`warn_registration` points while :func:`warnings_at` is in force (a notebook cell)."""
_EDITED: ContextVar[bool] = ContextVar("nanohubmcp_edited", default=False)
"""True while :func:`edited_definition` is in force."""


@contextlib.contextmanager
def edited_definition(edited: bool = True) -> Iterator[None]:
    """Registrations in the block put an edited definition in place of its earlier run (a notebook
    cell run again): a tool whose signature changed is expected, not warned about. A name now
    pointing at another function still is."""
    token = _EDITED.set(edited)
    try:
        yield
    finally:
        _EDITED.reset(token)


def warn_registration(message: str) -> None:
    """Show ``message`` as a :class:`RegistrationWarning` (once per text and line, as ``warnings`` does)
    at the user's line: where :func:`warnings_at` says, else the first caller outside nanohubmcp."""
    at = _WARN_AT.get()
    if at is None:
        warnings.warn(message, RegistrationWarning, stacklevel=user_frame())
        return
    filename, lineno, registry = at
    warnings.warn_explicit(message, RegistrationWarning, filename, lineno, module="__main__", registry=registry)


@contextlib.contextmanager
def warnings_at(filename: str, lineno: int, registry: dict[Any, Any]) -> Iterator[None]:
    """Point the registration warnings of the block at ``filename:lineno`` (e.g. ``Cell In[3]:1``,
    a ``%%mcp_tool`` cell whose code is on no frame of the registering call's stack), deduplicated
    in ``registry`` (the ``__warningregistry__`` of the namespace the code ran in)."""
    token = _WARN_AT.set((filename, lineno, registry))
    try:
        yield
    finally:
        _WARN_AT.reset(token)


class Completer:
    """A completion function and how to call it (``value``, and ``context`` when it takes one)."""

    __slots__ = ("fn", "is_coroutine", "wants_context")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        # An async generator function (async def with yield) is called as one: its values are read on the loop.
        self.is_coroutine = inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)
        self.wants_context = "context" in inspect.signature(fn).parameters


class Registrar:
    """Registers the components of one server on its core (see ``MCPServer`` for each option)."""

    def __init__(self, core: ServerCore) -> None:
        self._core = core

    # -- tools ---------------------------------------------------------------------------
    def add_tool(self, fn: Callable[..., Any], *, background: bool = False, **options: Any) -> Tool:
        """Build the tool record of ``fn`` and register it (replacing one of the same name)."""
        x_mcp_headers, task_support = options.pop("x_mcp_headers", None), options.pop("task_support", None)
        scopes = options.pop("scopes", None)
        executor, executor_options = options.pop("executor", None), options.pop("executor_options", None)
        view, visibility = options.pop("view", None), options.pop("view_visibility", None)
        recorded, cache, cache_ttl = options.pop("provenance", None), options.pop("cache", False), options.pop(
            "cache_ttl", None)
        source = options.pop("source", None)
        if view is not None:
            from .server.registry import mcp_apps as apps  # MCP Apps views: for a tool with view= only

            who = f"tool {options.get('name') or getattr(fn, '__name__', fn)!r}"
            options["meta"] = apps.tool_view_meta(options.get("meta"), view, who, visibility)
        tool = Tool.from_function(fn, background=background, context_types=CONTEXT_TYPES, **options)
        tool = apply_tool_options(tool, x_mcp_headers=x_mcp_headers, task_support=task_support)
        if scopes:
            try:
                tool.extra[TOOL_SCOPES] = parse_scopes(scopes)
            except ValueError as exc:
                raise RegistrationError(f"tool {tool.name!r}: {exc}") from None
        if executor is not None:
            if not background:
                raise RegistrationError(f"tool '{tool.name}': executor= is for @async_tool (job) tools only")
            if not isinstance(executor, JobExecutor) and executor not in EXECUTORS:
                raise RegistrationError(
                    f"tool '{tool.name}': executor must be one of {', '.join(EXECUTORS)} or a JobExecutor, "
                    f"not {executor!r}"
                )
            tool.extra[JOB_EXECUTOR] = executor
            if not executor_options:
                try:
                    # made now: a missing library is said at registration
                    self._core.job_service.runners.runner_for(executor)
                except ConfigurationError as exc:
                    raise RegistrationError(f"tool '{tool.name}': {exc}") from None
        if executor_options:
            if not background:
                raise RegistrationError(f"tool '{tool.name}': executor_options= is for @async_tool (job) tools only")
            if not isinstance(executor_options, dict):
                raise RegistrationError(f"tool '{tool.name}': executor_options must be a dict")
            try:
                # refuses options it does not take
                self._core.job_service.runners.runner_for(executor, executor_options)
            except ConfigurationError as exc:
                raise RegistrationError(f"tool '{tool.name}': {exc}") from None
            tool.extra[JOB_OPTIONS] = dict(executor_options)
        provenance_options.apply(tool, provenance=recorded, cache=cache, cache_ttl=cache_ttl, source=source)
        registration_checks.refuse_reserved(tool.name, fn)
        registry = self._core.registry
        for message in registration_checks.tool_warnings(tool, registry.tools.get(tool.name), edited=_EDITED.get()):
            warn_registration(message)
        shared = registration_checks.shared_cache_warning(tool, fn, cache)
        if shared is not None:
            warn_registration(shared)
        if background and "get_job_result" not in registry.tools:
            # The poll tool exists once there is something to poll (earlier package's behaviour).
            from .server.executors.job_tools import job_result_tool  # the job machinery: for job tools only

            self.add_tool(
                job_result_tool(self._core.job_service),
                name="get_job_result",
                annotations={"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False},
                provenance=False,  # a poll is no computation; the job's own record names the result
            )
            registry.tools.trail("get_job_result")  # listed after the author's tools, which lead a first page
        if background and "cancel_job" not in registry.tools:
            # A client without MCP Tasks cancels with it (a tool of the user's own of that name wins).
            from .server.executors.job_tools import job_cancel_tool

            self.add_tool(
                job_cancel_tool(self._core.job_service),
                name="cancel_job",
                annotations={"readOnlyHint": False, "idempotentHint": True, "destructiveHint": True},
                provenance=False,
            )
            registry.tools.trail("cancel_job")
        earlier = registry.tools.get(tool.name)
        registry.add_tool(tool)
        if earlier is not None and provenance_options.cached(earlier):
            self._core.result_cache.invalidate(tool.name)  # defined again: its stored results may be stale
        return tool

    def remove_tool(self, name: str) -> bool:
        """Unregister a tool (and drop its cached results); True when it existed."""
        earlier = self._core.registry.tools.get(name)
        if earlier is not None and provenance_options.cached(earlier):
            self._core.result_cache.invalidate(name)  # a tool registered later under the name is another
        return self._core.registry.tools.remove(name)

    def include(self, obj: object) -> int:
        """Register every marked function of ``obj`` (module, class, instance or iterable); returns how many."""
        if isinstance(obj, (list, tuple, set)):
            candidates = list(obj)
        else:
            candidates = [getattr(obj, n) for n in dir(obj) if not n.startswith("__")]
        count = 0
        for fn in candidates:
            mark = marked(fn)
            if mark is None:
                continue
            kind, options = mark
            if kind == "tool":
                self.add_tool(fn, **options)
            elif kind == "async_tool":
                self.add_tool(fn, background=True, **options)
            elif kind == "resource":
                opts = dict(options)
                self.add_resource(fn, opts.pop("uri"), **opts)
            elif kind == "prompt":
                self.add_prompt(fn, **options)
            count += 1
        return count

    # -- resources and views -------------------------------------------------------------
    def add_resource(self, fn: Callable[..., Any], uri: str, **options: Any) -> Resource | ResourceTemplate:
        """Build the resource (or template) record of ``fn`` at ``uri`` and register it."""
        from .server.registry.resources import ResourceTemplate, make_resource  # with the first resource

        record = make_resource(fn, uri, context_types=CONTEXT_TYPES, **options)
        if isinstance(record, ResourceTemplate):
            label = f"resource template '{record.uri_template}'"
            for message in registration_checks.unpublished_defaults(label, record.fn, record.signature):
                warn_registration(message)
        self._core.registry.add_resource(record)
        return record

    def add_app_view(
        self,
        uri: str,
        html: object,
        *,
        name: str | None,
        description: str | None,
        title: str | None,
        csp: Mapping[str, Iterable[str]] | None,
        domain: str | None,
        permissions: Iterable[str] | None,
        prefers_border: bool | None,
    ) -> Resource:
        """Register the view at ``uri`` serving ``html`` (a string, an object with ``_repr_html_``, or a
        function of no arguments returning one); the other options become its ``_meta.ui``, checked now."""
        from .server.registry import mcp_apps as apps  # (not at start: a server without views never loads it)

        who = f"view {uri!r}"
        apps.check_view_uri(uri, who)
        ui_meta = apps.view_resource_meta(who, csp=csp, domain=domain, permissions=permissions,
                                          prefers_border=prefers_border)
        if callable(html) and not hasattr(html, "_repr_html_"):
            source: Callable[[], object] = html
        else:
            apps.html_of(html)  # a bad value fails now, not at the first read
            source = lambda: html  # noqa: E731
        reader = apps.view_function(source, name or uri.removeprefix("ui://"))
        from .server.registry.resources import make_resource

        record = make_resource(
            reader,
            uri,
            name=name or uri.removeprefix("ui://"),
            description=description,
            title=title,
            mime_type=apps.UI_MIME,
            meta=ui_meta,
        )
        self._core.registry.add_resource(record)
        return record  # type: ignore[return-value]  # a ui:// URI without braces: never a template

    def remove_resource(self, uri: str) -> bool:
        """Unregister a resource or template by its URI (template)."""
        registry = self._core.registry
        return registry.resources.remove(uri) or registry.templates.remove(uri)

    def resource_updated(self, uri: str) -> None:
        """Tell subscribed clients that the resource at ``uri`` changed (thread-safe)."""
        notifier = self._core.notifier
        if notifier is not None:
            notifier.resource_updated(uri)

    # -- prompts, completions, skills ----------------------------------------------------
    def add_prompt(self, fn: Callable[..., Any], **options: Any) -> Prompt:
        """Build the prompt record of ``fn`` and register it."""
        from .server.registry.prompts import Prompt  # with the first prompt, not at import

        prompt = Prompt.from_function(fn, context_types=CONTEXT_TYPES, **options)
        self._core.registry.add_prompt(prompt)
        return prompt

    def remove_prompt(self, name: str) -> bool:
        """Unregister a prompt."""
        return self._core.registry.prompts.remove(name)

    def completion(
        self, *, argument: str, prompt: str | None, template: str | None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """The decorator completing ``argument`` of the prompt or the template named (exactly one of them)."""
        if (prompt is None) == (template is None):
            raise RegistrationError("@completion needs exactly one of prompt='name' or template='uri{...}'")
        kind, name = ("ref/prompt", prompt) if prompt is not None else ("ref/resource", template)
        return decorating(lambda func: self.add_completer(kind, str(name), argument, func), None)

    def add_completer(self, kind: str, name: str, argument: str, fn: Callable[..., Any]) -> None:
        """Complete ``argument`` of the prompt (``ref/prompt``) or template (``ref/resource``) ``name`` with ``fn``."""
        self._core.completers[(kind, name, argument)] = Completer(fn)

    def publish_skill(self, path: str | Path, prefix: str | None) -> Skill:
        """Publish the skill folder at ``path`` as ``skill://`` resources."""
        from .server.stateless.skills_methods import publish

        return publish(self._core, path, prefix=prefix)
