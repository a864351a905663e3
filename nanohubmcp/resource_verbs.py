"""Registering resources, MCP Apps views, prompts, completions and skills: verbs of an ``MCPServer``.

:class:`ResourceVerbs` is a base class of :class:`nanohubmcp.MCPServer` (the facade keeps the tool
verbs and ``include``; :class:`nanohubmcp.serving_verbs.ServingVerbs` the serving ones). Each verb
builds a component record (``nanohubmcp.server.components``) and adds it to the core's registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import RegistrationError
from .server import apps
from .server.components import Prompt, Resource, ResourceTemplate, make_resource
from .server.context import Context

if TYPE_CHECKING:
    from .server.core import ServerCore


class _Completer:
    __slots__ = ("fn", "is_coroutine", "wants_context")

    def __init__(self, fn: Callable[..., Any]) -> None:
        import inspect

        self.fn = fn
        self.is_coroutine = inspect.iscoroutinefunction(fn)
        self.wants_context = "context" in inspect.signature(fn).parameters


class ResourceVerbs:
    """Registering everything of an ``MCPServer`` but its tools."""

    core: ServerCore

    def add_resource(self, fn: Callable[..., Any], uri: str, **options: Any) -> Resource | ResourceTemplate:
        """Register ``fn`` as the resource (or template) at ``uri``; returns the record."""
        record = make_resource(fn, uri, context_types=(Context,), **options)
        self.core.registry.add_resource(record)
        return record

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        tags: Any = None,
        meta: dict[str, Any] | None = None,
        title: str | None = None,
        annotations: dict[str, Any] | None = None,
        size: int | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: register a function as the resource at ``uri``.

        A URI with ``{placeholders}`` registers a resource template; each placeholder matches
        one path segment and is passed to the function by name. Return a dict (JSON), a
        string (text), bytes (a blob), or a ``ResourceResult``.

        Raises:
            RegistrationError: a missing URI (``@server.resource`` without parentheses), a
                malformed template, or a placeholder the function does not take.
        """
        if callable(uri):
            raise RegistrationError("@resource needs a URI: write @server.resource('scheme://path')")
        options = {
            "name": name,
            "description": description,
            "mime_type": mime_type,
            "tags": tags,
            "meta": meta,
            "title": title,
            "annotations": annotations,
            "size": size,
        }

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.add_resource(func, uri, **options)
            return func

        return decorate

    def add_app_view(
        self,
        uri: str,
        html: Any,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        csp: Any = None,
        domain: str | None = None,
        permissions: Any = None,
        prefers_border: bool | None = None,
    ) -> Resource:
        """Register a view (MCP Apps): ``html`` served at ``uri`` as ``text/html;profile=mcp-app``.

        Args:
            uri: ``ui://...``; a tool shows its result there with ``@server.tool(view=uri)``.
            html: an HTML string, an object with ``_repr_html_()`` (e.g. a plotly figure), or a
                function of no arguments returning one (called at each read).
            csp / domain / permissions / prefers_border: the resource's ``_meta.ui``; see
                ``nanohubmcp.server.apps.view_resource_meta``.
        The served document gets an inline script speaking the view side of the Apps protocol:
        the view's scripts get the tool's result with ``mcpApp.onToolResult(result => ...)``
        (``mcpApp.data(result)`` is its ``structuredContent``, else its text parsed as JSON).

        Raises:
            RegistrationError: not a ``ui://`` URI, or a bad ``_meta.ui`` option.
        """
        who = f"view {uri!r}"
        apps.check_view_uri(uri, who)
        meta = apps.view_resource_meta(
            who, csp=csp, domain=domain, permissions=permissions, prefers_border=prefers_border
        )
        if callable(html) and not hasattr(html, "_repr_html_"):
            source = html
        else:
            apps.html_of(html)  # a bad value fails now, not at the first read
            source = lambda: html  # noqa: E731
        reader = apps.view_function(source, name or uri.removeprefix("ui://"))
        record = make_resource(
            reader,
            uri,
            name=name or uri.removeprefix("ui://"),
            description=description,
            title=title,
            mime_type=apps.UI_MIME,
            meta=meta,
        )
        self.core.registry.add_resource(record)
        return record  # type: ignore[return-value]  # a ui:// URI without braces: never a template

    def app_view(self, uri: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the function (no arguments) returns the HTML of the view at ``uri``.

        Options are those of :meth:`add_app_view`, e.g.::

            @server.app_view("ui://plots/chart", csp={"resource_domains": ["https://cdn.example.org"]})
            def chart() -> str:
                return "<svg id='plot'></svg><script>mcpApp.onToolResult(r => ...)</script>"
        """
        if callable(uri):
            raise RegistrationError("@app_view needs a URI: write @server.app_view('ui://name')")

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.add_app_view(uri, func, **options)
            return func

        return decorate

    def remove_resource(self, uri: str) -> bool:
        """Unregister a resource or template by its URI (template)."""
        registry = self.core.registry
        return registry.resources.remove(uri) or registry.templates.remove(uri)

    def add_prompt(self, fn: Callable[..., Any], **options: Any) -> Prompt:
        """Register ``fn`` as a prompt; returns the record."""
        prompt = Prompt.from_function(fn, context_types=(Context,), **options)
        self.core.registry.add_prompt(prompt)
        return prompt

    def prompt(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Any = None,
        meta: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> Any:
        """Decorator: register a function as a prompt template.

        Its parameters become the prompt's arguments. Return a list of messages
        (``{"role", "content"}`` dicts or ``Message``), a string (one user message), or a
        ``PromptResult``.
        """
        options = {"name": name, "description": description, "tags": tags, "meta": meta, "title": title}
        if fn is not None:
            self.add_prompt(fn, **options)
            return fn

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.add_prompt(func, **options)
            return func

        return decorate

    def remove_prompt(self, name: str) -> bool:
        """Unregister a prompt."""
        return self.core.registry.prompts.remove(name)

    def completion(
        self, *, argument: str, prompt: str | None = None, template: str | None = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: suggest values for a prompt argument or a template variable.

        The function takes ``value`` (what the user typed so far) and optionally ``context``
        (the other arguments already given) and returns a list of strings (≤ 100 are sent).

        Source: MCP 2025-11-25, Server § Utilities § Completion.
        """
        if (prompt is None) == (template is None):
            raise RegistrationError("@completion needs exactly one of prompt='name' or template='uri{...}'")

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            kind, name = ("ref/prompt", prompt) if prompt is not None else ("ref/resource", template)
            self.core.completers[(kind, str(name), argument)] = _Completer(func)
            return func

        return decorate

    def skill(self, path: str | Any, *, prefix: str | None = None) -> Any:
        """Publish the skill folder at ``path`` (holding a ``SKILL.md``) as ``skill://`` resources.

        Every file becomes a resource (``skill://<name>/SKILL.md`` and the rest below it), and
        2026-07-28 clients get ``skills/list``, ``skills/get`` and directory reads (extension
        ``io.modelcontextprotocol/skills``). Publishing the same skill again replaces it.

        Args:
            path: the skill folder; its ``SKILL.md`` front matter gives ``name`` and
                ``description`` (Agent Skills format).
            prefix: leading URI segments, e.g. ``"nanohub"`` → ``skill://nanohub/<name>/SKILL.md``.
        Returns:
            The loaded ``Skill`` (name, URIs, front matter, files).
        Raises:
            RegistrationError: no ``SKILL.md``, bad front matter or name, too many or too large
                files (512 files, 16 MiB).

        Source: MCP skills extension (SEP-2640).
        """
        from .server.modern.skills_api import publish

        return publish(self.core, path, prefix=prefix)

    def resource_updated(self, uri: str) -> None:
        """Tell subscribed clients that the resource at ``uri`` changed (thread-safe)."""
        notifier = self.core.notifier
        if notifier is not None:
            notifier.resource_updated(uri)
