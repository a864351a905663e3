"""Writing the exported script's text: Python literals and argument lists, docstring escaping,
tidy blank lines, and formatting with ``ruff format`` (else ``black``) when installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def literal(value: object) -> str:
    """Python source for a plain value: strings in double quotes when possible, sets sorted."""
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if text.startswith("'") and '"' not in value else text
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(literal(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def call_arguments(positional: list[Any], options: dict[str, Any]) -> str:
    return ", ".join([literal(v) for v in positional] + [f"{k}={literal(v)}" for k, v in options.items()])


def shorten(text: str, limit: int = 100) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def escape_docstring(text: str) -> str:
    """Text safe inside a triple-quoted docstring."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


_LINE_END = re.compile(r"\r\n|\r|\n")


def code_lines(code: str) -> list[str]:
    """``code``'s lines as Python's tokenizer reads them: split at ``\\n``, ``\\r\\n`` and ``\\r`` only, no line end
    kept (``str.splitlines`` also splits at U+2028, U+0085, form feeds and others, so a comment holding one became
    a line of code in the written script, and a string holding one was cut in two)."""
    lines = _LINE_END.split(code)
    if lines[-1] == "":
        lines.pop()
    return lines


def tidy(block: str) -> str:
    """No trailing spaces, no outer blank lines, at most two blank lines in a row."""
    text = "\n".join(line.rstrip() for line in code_lines(block)).strip("\n")
    return re.sub(r"\n{4,}", "\n\n\n", text)


def format_script(text: str, path: str) -> tuple[str, str | None]:
    """Format with ``ruff format``, else ``black``, when installed; else return ``text`` unchanged."""
    ruff = find_ruff()
    if ruff is not None:
        try:
            done = subprocess.run([ruff, "format", "--stdin-filename", path, "-"], input=text,
                                  capture_output=True, text=True, timeout=60, check=False)
            if done.returncode == 0 and done.stdout.strip():
                return done.stdout, "ruff"
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        import black

        return black.format_str(text, mode=black.Mode()), "black"
    except Exception:  # not installed, or it refused the code: the unformatted script is still right
        return text, None


def find_ruff() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except Exception:  # not installed as a Python package
        return shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
