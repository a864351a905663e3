"""A one-line cell IPython runs as a line magic without its ``%`` (automagic, on by default), for the exporter.

IPython rewrites a cell of one line (after its input transformers) when its first word — IPython's
"function part": letters, digits, ``_``, ``.`` and ``*`` — is the name of a line magic, the rest of the line
does not start with ``=`` or ``,`` (an assignment), and the word's first dotted part is not a name of the
user's namespace, a builtin or a keyword (``core/prefilter.py``: ``AssignmentChecker``, then
``AutoMagicChecker``; ``MagicHandler`` writes the call). ``cd /data/run1`` is thus ``%cd /data/run1``, not
the division it would be in Python. :func:`automagic_call` makes the same rewrite, so the exporter treats the
line as the ``%magic`` line it is.

The exporter applies it while the notebook's ``%automagic`` lines leave automagic on (IPython's default).
Not followed: a macro or an ``IPyAutocall`` object bound to the word (a bound word counts as shadowing the
magic, as IPython's later checker has it).
"""

from __future__ import annotations

import builtins
import functools
import keyword
import re
from collections.abc import Collection

__all__ = ["automagic_call", "line_magic_names"]

_FIRST_WORD = re.compile(r"^(\s*)([\w.*]*)(.*)$", re.DOTALL)
"""IPython's split of a line without an escape character: leading space, the function part, the rest."""


@functools.cache
def line_magic_names() -> frozenset[str]:
    """The line magics of a kernel's IPython shell: IPython's own, its default shell aliases (``ls``,
    ``mkdir``...), ipykernel's and this package's ``%mcp``."""
    from IPython.core import magics
    from IPython.core.alias import default_aliases

    names = {alias for alias, _ in default_aliases()} | {"mcp"}
    tables = [getattr(magics, name) for name in dir(magics)]
    try:
        from ipykernel.zmqshell import KernelMagics

        tables.append(KernelMagics)
    except ImportError:  # an export without ipykernel: IPython's own magics still apply
        pass
    for table in tables:
        found = getattr(table, "magics", None)
        if isinstance(table, type) and isinstance(found, dict):
            names.update(found.get("line", {}))
    return frozenset(names)


def automagic_call(code: str, bound: Collection[str]) -> str | None:
    """``code`` (a cell as IPython's input transformers left it) as IPython's automagic runs it:
    ``get_ipython().run_line_magic(NAME, REST)``, or None when IPython runs it as Python.

    Args:
        bound: the names the notebook's earlier cells bind (they shadow a magic of that name).
    """
    if len(code.splitlines()) != 1:
        return None  # IPython applies its checkers to a cell of one line only
    line = code.rstrip("\n")
    match = _FIRST_WORD.match(line)
    if match is None:  # (the pattern matches any line; kept for the type checker)
        return None
    pre, word, rest = match.groups()
    rest = rest.lstrip()
    if not word or (rest and rest[0] in "=,") or word not in line_magic_names():
        return None
    head = word.split(".", 1)[0]
    if head in bound or hasattr(builtins, head) or keyword.iskeyword(head):
        return None
    return f"{pre}get_ipython().run_line_magic({word!r}, {rest!r})\n"
