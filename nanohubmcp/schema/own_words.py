"""An argument the input schema refused, said in the words of the tool's own check.

A tool with a check of its own (:class:`~nanohubmcp.schema.validate.CheckedArgumentValidator`: a Rappture
tool's, a Sim2L's) says more of a value than a schema can: the input's label, its units, the texts a boolean
takes. When the schema refuses an argument the check would refuse too, the check's words are the answer, so one
mistake gets one message whichever form it came in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema.paths import format_path, shorten

__all__ = ["in_own_words"]


def in_own_words(refused: InvalidArguments, arguments: object, check: Callable[[dict[str, Any]], object],
                 prefix: str, pending: type[Exception]) -> InvalidArguments:
    """``refused`` (the schema's violations, each line ``prefix`` + its path) with the lines about each
    top-level argument replaced by what ``check`` says of that argument given alone, when it refuses it
    (``InvalidArguments``); the schema's lines stay for the arguments it accepts alone, or raises anything
    else for. ``pending`` from ``check`` (``CheckPending``) is raised: the call is checked again once what the
    check loads is loaded.

    One message style for one mistake: a Rappture length of ``20`` over its ``10m`` was "20 is greater than the
    maximum of 10" (the schema's), while ``"20m"`` was "length (Length): '20m' is 20m, above the maximum 10m"
    (the check's); a bad boolean text was "not valid under any of the given schemas" (trial64 F1, F2).
    """
    if not isinstance(arguments, dict):
        return refused
    about: dict[str, list[int]] = {}  # argument -> the indexes of its lines
    for index, line in enumerate(refused.errors):
        name = _argument_of(line[len(prefix):], arguments) if line.startswith(prefix) else None
        if name is not None:
            about.setdefault(name, []).append(index)
    if not about:
        return refused
    replaced: dict[int, list[str]] = {}
    for name, indexes in about.items():
        try:
            check({name: arguments[name]})
        except InvalidArguments as own:
            replaced[indexes[0]] = [shorten(line) for line in str(own).splitlines() if line.strip()]
            replaced.update({index: [] for index in indexes[1:]})
        except Exception as exc:
            if isinstance(exc, pending):
                raise
            continue  # the check cannot read the value: the schema's words stand
    if not replaced:
        return refused
    lines = [kept for index, line in enumerate(refused.errors) for kept in replaced.get(index, [line])]
    return InvalidArguments("\n".join(lines), lines)


def _argument_of(violation: str, arguments: dict[Any, Any]) -> str | None:
    """The top-level argument a violation line (``arguments.length: …``, ``arguments.tags[0]: …``) is about."""
    for name in arguments:
        if not isinstance(name, str):
            continue
        path = format_path("arguments", (name,))
        if violation.startswith(path) and violation[len(path):len(path) + 1] in (":", ".", "["):
            return name
    return None
