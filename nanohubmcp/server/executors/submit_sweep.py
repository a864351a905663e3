"""A ``submit`` parameter sweep's arguments (``-s SEP -p @@NAME=...``), its values kept as values and its
runs bounded.

``submit`` (HUBzero documentation, tool developers, "Submit command") reads ``-p @@NAME=TEXT`` as a range
when ``TEXT`` is ``start:step:end`` (``0:0.5:2``: 0, 0.5, 1, 1.5, 2), as a list of files when it starts with
``glob:``, else as values separated by ``,`` (or the ``-s`` separator). A ``SubmitRun``'s parameter given as a
string is that text; given as a list, each item is one value: an item ``submit`` would read as a range or
a pattern (a client's ``"1:1:100000"``: 100,000 runs) is refused, never sent. A sweep's runs (the product
of each parameter's count of values) are bounded by the executor's ``max_runs`` (default
:data:`MAX_RUNS`), counted before ``submit`` is started.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import ConfigurationError
from ...protocol.message_values import shown_value

SEPARATORS = (",", ";", "|", "%")
"""The separators ``submit -s`` takes, in the order tried."""
MAX_RUNS = 1000
"""The most runs one sweep may make unless the executor's ``max_runs`` says otherwise."""
RANGE = re.compile(r"^\s*([-+.\deE]+):([-+.\deE]+):([-+.\deE]+)\s*\Z")
"""Text ``submit`` reads as ``start:step:end``."""
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def sweep_arguments(parameters: Mapping[str, Sequence[Any] | str], max_runs: int = MAX_RUNS) -> list[str]:
    """``submit``'s ``[-s SEP] -p @@NAME=TEXT ...`` for ``parameters`` (a name to its values, a list, or to
    ``submit``'s own text, a string), the separator chosen so that no list value holds it.

    Raises:
        ConfigurationError: a name that is not letters, digits and ``_``; a parameter without values; a
            list value that reads as a range or a ``glob:`` pattern (pass a range as a string); a range
            whose step never reaches its end; more than ``max_runs`` runs in all (the message says how many).
    """
    separator = _separator(parameters)
    args = [] if separator == "," else ["-s", separator]
    runs, counts = 1.0, []
    for name, values in parameters.items():
        if not _NAME.match(name):
            raise ConfigurationError(f"sweep parameter name {name!r} must be letters, digits and _")
        text, count = _text(name, values, separator)
        runs *= count
        counts.append(f"{name}: {_shown(count)}")
        args += ["-p", f"@@{name}={text}"]
    if runs > max_runs:
        raise ConfigurationError(
            f"the sweep makes {_shown(runs)} runs ({' x '.join(counts)}); at most {max_runs} are run in one job "
            "(the submit executor's option max_runs): give fewer values"
        )
    return args


def _text(name: str, values: Sequence[Any] | str, separator: str) -> tuple[str, float]:
    if isinstance(values, str):
        if not values:
            raise ConfigurationError(f"sweep parameter {name!r} needs at least one value")
        shape = RANGE.match(values)
        return values, _range_count(name, shape) if shape else len(values.split(separator))
    items = [str(v) for v in values]
    if not items or not any(items):
        raise ConfigurationError(f"sweep parameter {name!r} needs at least one value")
    for item in items:
        if RANGE.match(item) or item.lstrip().lower().startswith("glob:"):
            kind = "a range (start:step:end)" if RANGE.match(item) else "a file pattern (glob:)"
            raise ConfigurationError(
                f"sweep parameter {name!r}: the value {shown_value(item)} would be read by submit as {kind}, "
                "not as one value; give other values (a tool that means a range passes it as a string)"
            )
    return separator.join(items), len(items)


def _range_count(name: str, shape: re.Match[str]) -> float:
    try:
        start, step, end = (float(part) for part in shape.groups())
    except ValueError:
        return 1.0  # not three numbers: submit reads it as one value
    count = (end - start) / step + 1 if step else math.inf
    if not math.isfinite(count) or count < 1:
        raise ConfigurationError(
            f"sweep parameter {name!r}: the range {shape.group(0).strip()} (start:step:end) never reaches its end"
        )
    return float(math.floor(count + 1e-9))


def _shown(count: float) -> str:
    return str(int(count)) if count < 1e15 else f"{count:.3g}"


def _separator(parameters: Mapping[str, Sequence[Any] | str]) -> str:
    values = [str(v) for vs in parameters.values() if not isinstance(vs, str) for v in vs]
    for separator in SEPARATORS:
        if not any(separator in v for v in values):
            return separator
    raise ConfigurationError(f"sweep values contain every separator submit can take ({' '.join(SEPARATORS)})")
