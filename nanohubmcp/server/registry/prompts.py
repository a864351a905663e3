"""The ``Prompt`` record, built by ``Prompt.from_function`` at decoration time.

Source: MCP 2025-11-25, Server § Prompts (definition fields).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import RegistrationError
from ...protocol.versions import ProtocolVersion
from ...schema import Signature, describe_function
from .components import callable_name, check_meta, check_prompt_name, is_coroutine_callable
from .listed_text import check_key, check_text

if TYPE_CHECKING:
    from ...schema.hints import ClassOrLazy


@dataclass(eq=False)
class Prompt:
    """A prompt template (MCP Server § Prompts)."""

    name: str
    fn: Callable[..., Any]
    signature: Signature
    arguments: list[dict[str, Any]]
    description: str | None = None
    title: str | None = None
    tags: frozenset[str] = frozenset()
    meta: dict[str, Any] | None = None
    icons: list[dict[str, Any]] | None = None
    is_coroutine: bool = False

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        context_types: tuple[ClassOrLazy, ...] = (),
    ) -> Prompt:
        """Build a prompt record; raises ``RegistrationError`` naming the prompt (a name over
        :data:`~.listed_text.MAX_KEY_CHARS` characters among the causes)."""
        if isinstance(fn, str):
            raise RegistrationError(f"@prompt was given the string {fn!r}: pass a name as @server.prompt(name={fn!r})")
        if not callable(fn):
            raise RegistrationError(
                f"@prompt was given {fn!r}, which is not callable (did you forget the parentheses?)")
        pname = callable_name(fn, "prompt", name)
        check_text(f"prompt '{pname}'", "name", pname)  # a client gets the prompt by the name it was shown
        check_prompt_name(pname, given=bool(name))
        check_key(f"prompt '{pname}'", "name", pname)
        signature = describe_function(fn, kind="prompt", name=pname, context_types=context_types)
        return cls(
            name=pname,
            fn=fn,
            signature=signature,
            arguments=list(signature.prompt_arguments),
            description=check_text(f"prompt '{pname}'", "description",
                                   description if description is not None else signature.description),
            title=check_text(f"prompt '{pname}'", "title", title),
            tags=frozenset(tags or ()),
            meta=check_meta("prompt", pname, meta),
            is_coroutine=is_coroutine_callable(fn),
        )

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``prompts/list`` entry for ``version``."""
        wire: dict[str, Any] = {"name": self.name}
        if self.description:
            wire["description"] = self.description
        if self.arguments:
            wire["arguments"] = self.arguments
        allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        if self.title and allows.titles:
            wire["title"] = self.title
        if self.meta:
            wire["_meta"] = self.meta
        return wire
