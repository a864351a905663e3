"""Holding a client's elicitation answer to the schema it was asked with.

One check for every way an answer arrives: a server→client request's result (``context_asks``) and a
2026-07-28 task's input answer (``task_inputs``), so both refuse the same content with the same words.

Source: MCP 2025-11-25, Client § Elicitation (the requested schema and the response's ``content``).
"""

from __future__ import annotations

from typing import Any

from ...errors import ClientRequestError, RegistrationError
from ...schema import OutputValidator


class AnswerCheck:
    """Holds a client's elicitation answer to the schema it was asked with.

    :meth:`prepare` compiles the schema's validator: it imports jsonschema, seconds the first time
    in a process where Jupyter's format checkers are installed, so it runs on a worker thread
    while the client answers (never on the event loop, which every client's requests wait for).
    """

    __slots__ = ("schema",)

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema

    def prepare(self) -> OutputValidator | None:
        """The schema's validator; None for a schema jsonschema cannot use (nothing to hold the answer to)."""
        try:
            return OutputValidator(self.schema, name="elicitation", kind="requested schema of an")
        except RegistrationError:
            return None

    @staticmethod
    def checked(answer: object, validator: OutputValidator | None) -> Any:
        """The client's elicitation result, once its accepted ``content`` matches the schema.

        Raises:
            ClientRequestError: the content breaks the schema (one line per violation), so the
                tool never takes a wrong answer for a valid one.
        """
        problem = AnswerCheck.problem(answer, validator)
        if problem is not None:
            raise ClientRequestError(f"The client's answer {problem}")
        return answer

    @staticmethod
    def problem(answer: object, validator: OutputValidator | None) -> str | None:
        """``does not match the requested schema: content.name: ...`` (each violation, ``; ``
        between) when ``answer`` accepts with content that breaks the schema; else None."""
        if validator is None or not isinstance(answer, dict) or answer.get("action") != "accept":
            return None
        problems = validator.errors(answer.get("content") or {}, root="content")
        return "does not match the requested schema: " + "; ".join(problems) if problems else None
