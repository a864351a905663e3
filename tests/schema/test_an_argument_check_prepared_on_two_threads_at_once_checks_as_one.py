"""An argument check compiled by two threads at once (the warm-up's and a first call's) checks as one compiled once.

The warm-up thread of a served process compiles its tools' argument checks (``ArgumentValidator.prepare``) while
the loop may take a first call of the same tool, which compiles the check itself rather than wait: neither holds a
lock. The probe: fresh validators of a generated schema (required and optional parameters whose ``null`` is
dropped), each prepared on one thread held (by a trace function) before one line of the compile, in turn before
every line it runs, while a call validates on another thread: every answer is the one a validator compiled once
gives, and the call never waits for the held thread.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType
from typing import Any

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema import ArgumentValidator, describe_function


def measure(length: float, count: int, label: str = "m", scale: float = 1.0) -> float:
    """Scale a length."""
    return length * count * scale


SCHEMA = describe_function(measure, kind="tool", name="measure").input_schema
CALLS: tuple[tuple[dict[str, object], object], ...] = (
    ({"length": 1.5, "count": 2}, {"length": 1.5, "count": 2}),
    ({"length": 1.5, "count": 2, "label": None}, {"length": 1.5, "count": 2}),  # null for "not given"
    ({"length": "long", "count": 2}, 'arguments.length: "long" is not of type "number"'),
    ({"length": 1.5}, "arguments: \"count\" is a required property"),
)


PREPARE = ArgumentValidator._prepare.__code__


def _answer(validator: ArgumentValidator, arguments: dict[str, object]) -> object:
    try:
        return validator.validate(dict(arguments))
    except InvalidArguments as refused:
        return refused.errors[0] if refused.errors else str(refused)


def _prepare_held(validator: ArgumentValidator, before_line: int, held: threading.Event, go_on: threading.Event) -> int:
    """``validator.prepare()`` on this thread, held before the ``before_line``-th line its compile runs (``held``
    set) until ``go_on``; returns the lines it ran."""
    lines = 0

    def in_prepare(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal lines
        if event == "line":
            if lines == before_line:
                held.set()
                go_on.wait(60)
            lines += 1
        return in_prepare

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        return in_prepare if frame.f_code is PREPARE else None

    sys.settrace(tracer)
    try:
        validator.prepare()
    finally:
        sys.settrace(None)
        held.set()  # (a line past its last: it ran unheld)
    return lines


def test_a_check_prepared_while_a_call_validates_answers_as_one_compiled_once() -> None:
    once = ArgumentValidator(SCHEMA, name="measure", trusted=True)
    expected = [_answer(once, arguments) for arguments, _ in CALLS]
    for (_, said), got in zip(CALLS, expected, strict=True):  # (what the probe compares with is right)
        assert said == got or (isinstance(got, str) and isinstance(said, str) and said in got), got
    lines = _prepare_held(ArgumentValidator(SCHEMA, name="measure", trusted=True), -1, threading.Event(),
                          threading.Event())
    assert lines > 5

    for before_line in range(lines):  # the warm-up's thread held before each line of its compile in turn
        validator = ArgumentValidator(SCHEMA, name="measure", trusted=True)
        held, go_on = threading.Event(), threading.Event()
        warming = threading.Thread(target=_prepare_held, args=(validator, before_line, held, go_on))
        warming.start()
        assert held.wait(60)
        answers: list[object] = []  # a first call meanwhile, on a thread of its own (the loop's)
        calling = threading.Thread(target=lambda v=validator, out=answers: out.extend(_answer(v, a) for a, _ in CALLS))
        calling.start()
        calling.join(60)
        assert not calling.is_alive(), f"the call waits for the warm-up, held before its line {before_line}"
        go_on.set()
        warming.join(60)
        assert answers == expected, f"held before line {before_line}"
        assert [_answer(validator, a) for a, _ in CALLS] == expected, f"after, held before line {before_line}"
        assert validator.prepared
