"""Where each ``%config NanohubMCP.<setting>`` of a notebook goes in its exported ``start_mcp.py``.

The last value of a setting wins, and each is checked as the kernel checks it (a literal the
setting accepts). Where they go:

- name, version, instructions, tool_timeout, max_inline_bytes, figure_dpi, state_dir, job_executor,
  executor_options and dask_address go to ``MCPServer(...)``, and so does ``provenance = False`` (a
  notebook that records nothing, perhaps for its arguments' sake, exports a script that records
  nothing, whatever its environment says; ``True`` is the default and writes nothing);
- the limits (``max_result_bytes``, ``max_stuck_calls``, ``max_kept_bytes``, ... :data:`.trait_groups.LIMIT_TRAITS`)
  go to ``MCPServer(...)`` as the kernel checked them (``1e9`` as ``1000000000``), unless set to their
  default, which writes nothing; so do the HTTP server's (:data:`.trait_groups.SERVE_LIMIT_TRAITS`:
  ``max_request_bytes``, ...) to ``server.run(...)``;
- host and port become the defaults of ``--host`` and ``--port``, except that a host other machines
  reach (``0.0.0.0``) is not: the notebook's token stays behind, so the script keeps 127.0.0.1 and
  says how to serve other machines with a token (:meth:`ExportSettings.notes`);
- path_prefix, allowed_origins and public_url go to ``server.run(...)``;
- state_url and tracing (which the environment overrides in a notebook) and token (a secret) are
  left to the script's environment, with a comment naming the variable; as the notebook's server
  requires a token unless ``token = ''`` turned that off, so does the script run with ``python``:
  without ``$MCP_TOKEN`` or ``--token-file PATH`` it refuses to start, in one line
  (:attr:`CommandLine.token_required`);
- mode and switch_interval are notebook-only.

The cells' code is :mod:`.translate`'s (:mod:`.export_magic_lines` reads the ``%config`` lines out of the
cells), the file around it :mod:`.script_frame`'s.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator
from dataclasses import dataclass
from typing import Any, cast

from ..protocol import ast_guard
from ..protocol.whole_numbers import whole_number
from ..serving.runners import is_loopback

__all__ = ["CommandLine", "ExportSettings", "SettingRefused", "constant_value"]

_WHERE = {"name": "ctor", "version": "ctor", "instructions": "ctor", "tool_timeout": "ctor",
          "max_inline_bytes": "ctor", "figure_dpi": "ctor", "state_dir": "ctor", "job_executor": "ctor",
          "executor_options": "ctor", "dask_address": "ctor", "provenance": "ctor", "host": "cli",
          "port": "cli", "path_prefix": "run", "allowed_origins": "run", "public_url": "run",
          "state_url": "env", "tracing": "env", "token": "secret"}
"""Where each setting goes; the limits go to "ctor" (``trait_groups.LIMIT_TRAITS``) or "run" (``SERVE_LIMIT_TRAITS``)
too (:func:`_place`)."""
_NOTE = {"ctor": "applied in MCPServer(...) at the top of the file",
         "cli": "the default of --{} (end of the file)",
         "run": "passed to server.run(...) at the end of the file",
         # In the notebook the environment wins over these two; an argument in the script would win over it.
         "env": "not written into the script, whose environment decides: run it with NANOHUBMCP_{upper} set",
         "secret": "not written into the script (a secret): run it with MCP_TOKEN set",
         "token off": "no token, as in the notebook: the script serves without one unless MCP_TOKEN is set",
         # The notebook's token is not carried over (a secret): its exposure must not be either.
         "open": "not the default of --host, which stays 127.0.0.1 (the notebook's token is not carried over): "
                 "to serve other machines, run the script with --host {value} and MCP_TOKEN set",
         "provenance on": "on, the default: nothing written (NANOHUBMCP_PROVENANCE=0 turns it off)",
         "default limit": "the default: nothing written",
         None: "a notebook-only setting, dropped"}


_PAIR = ("max_request_bytes", "max_buffered_bytes", "max_buffered_bytes_per_principal")
"""Limits checked against each other (``max_buffered_bytes`` and a set ``max_buffered_bytes_per_principal`` at
least ``max_request_bytes``)."""


def _place(setting: str) -> str | None:
    from .trait_groups import (  # read with the first %config line (ExportSettings.apply)
        LIMIT_TRAITS,
        SERVE_LIMIT_TRAITS,
    )

    return "ctor" if setting in LIMIT_TRAITS else "run" if setting in SERVE_LIMIT_TRAITS else _WHERE.get(setting)


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_LARGEST_POWER = 1024
"""The largest power :func:`constant_value` computes: an exponent up to 1024 and a result up to ``2**1024``,
past every limit and every float (``10**10**10``, or ``((10**1000)**1000)**1000``, would not end)."""


def constant_value(node: ast.expr) -> Any:
    """The value of a ``%config`` right-hand side: a literal (:func:`ast.literal_eval`), or arithmetic of
    numbers (``+ - * / // % **`` and unary ``+``/``-``: ``40 * 2**20``, ``64*1024*1024``, ``1.5e9``), which
    the kernel's traitlets config evaluates too, and an infinity (``float("inf")``, ``math.inf``, ``np.inf``) or a
    NaN (``float("nan")``, ``math.nan``, ``np.nan``); nothing else runs.

    Raises:
        ValueError: anything else (a name, a call, ``True + 1``).
        ZeroDivisionError: a division (or a modulo, ``0 ** -1``) by zero.
        OverflowError: a power past ``2**1024`` or an exponent past 1024 (not computed), a result a float
            cannot hold; :class:`PastLargest`, with its sign, for a power past ``2**1024`` alone or under a sign
            (``10**400``, ``-10**5000``).
    """
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = constant_value(node.left), constant_value(node.right)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            raise ValueError("arithmetic of numbers only")
        if isinstance(node.op, ast.Pow) and abs(left) > 1 and right > 0 and (
                right > _LARGEST_POWER or math.log2(abs(left)) * right > _LARGEST_POWER):
            odd = isinstance(right, int) and right % 2 == 1
            raise PastLargest(-1 if left < 0 and odd else 1)
        if isinstance(node.op, ast.Pow) and (abs(right) > _LARGEST_POWER or (
                abs(left) > 1 and math.log2(abs(left)) * right > _LARGEST_POWER)):
            raise OverflowError(f"a power past 2**{_LARGEST_POWER}")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        try:
            operand = constant_value(node.operand)
        except PastLargest as past:
            raise PastLargest(-past.sign if isinstance(node.op, ast.USub) else past.sign) from None
        if not isinstance(operand, (int, float)) or isinstance(operand, bool):
            raise ValueError("arithmetic of numbers only")
        return -operand if isinstance(node.op, ast.USub) else operand
    infinity = _infinity(node)
    if infinity is not None:
        return infinity
    return ast.literal_eval(node)  # numbers (with a unary sign), strings, lists, dicts, None, True/False


_INFINITY_MODULES = ("math", "np", "numpy")


def _infinity(node: ast.expr) -> float | None:
    """``float("inf")`` (``"infinity"``, ``"-inf"``, any case), ``math.inf``, ``np.inf`` and ``numpy.inf`` as the
    float, which the kernel evaluates to (the setting then takes it as no limit, or refuses it); ``float("nan")``,
    ``math.nan``, ``np.nan`` alike (the setting refuses it in its own words, as the kernel does); else None."""
    if isinstance(node, ast.Attribute) and node.attr in ("inf", "nan") and isinstance(node.value, ast.Name) and (
            node.value.id in _INFINITY_MODULES):
        return math.inf if node.attr == "inf" else math.nan
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.strip().lstrip("+-").lower() in ("inf", "infinity", "nan")):
        return float(node.args[0].value)
    return None


class PastLargest(OverflowError):
    """A power past ``2**1024`` (not computed) whose sign is known: ``sign`` is 1 or -1."""

    def __init__(self, sign: int) -> None:
        super().__init__(f"a power past {'-' if sign < 0 else ''}2**{_LARGEST_POWER}")
        self.sign = sign


_STAND_IN = 2 ** (_LARGEST_POWER + 1)
"""What a setting is checked with for a power past ``2**1024`` (``10**400``): any int that large is taken or
refused alike (every limit takes it, a port refuses it)."""
_WRITTEN_AS_GIVEN = 10**16
"""A limit's int from this on is written as the notebook wrote it (``1e30``, ``10**400``), not in its digits."""


class Written:
    """A setting's value as the notebook wrote it (``1e30``), which the script's source repeats."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _a_power(node: ast.expr) -> bool:
    """Whether ``node`` is a power of two int literals, alone or under a sign (``10**400``, ``-10**400``), with an
    exponent the kernel computes at once (up to 100000): its value is its size; a tower (``9**9**9``) is not."""
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        node = node.operand
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)
            and all(isinstance(side, ast.Constant) and type(side.value) is int for side in (node.left, node.right))
            and cast(int, cast(ast.Constant, node.right).value) <= 100_000)


def _none_is_no_limit(setting: str) -> bool:
    """Whether ``setting``'s None is no limit (or always inline): ``float("inf")`` is taken as it."""
    from ..protocol.byte_limits import BYTE_LIMITS

    return setting == "tool_timeout" or bool(BYTE_LIMITS.get(setting, (0, ""))[1])


class SettingRefused(Exception):
    """A ``%config NanohubMCP`` line a script cannot carry: an unknown setting, or a value that is
    not a literal or that the setting refuses (:func:`.translate.translate` names the cell)."""


@dataclass(frozen=True)
class CommandLine:
    """The exported script's ``--host`` and ``--port``: their defaults and help texts; and whether it
    requires a token (``$MCP_TOKEN`` or ``--token-file``), as the notebook's server did."""

    host: str
    port: Any
    host_help: str
    port_help: str
    token_required: bool = True


class ExportSettings:
    """The ``%config NanohubMCP`` settings of one notebook, and where each goes in its script."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        """Setting -> its last value (``provenance = True``, the default, is not kept)."""
        self.written: dict[str, Written] = {}
        """Setting -> its value as the notebook wrote it, where the script writes that (``max_jobs = 1e30``)."""

    def apply(self, line: str) -> tuple[str, str] | None:
        """Record ``NanohubMCP.<setting> = <value>`` (the ``%config`` line without ``%config``),
        checked as the kernel checks it. Returns where it went (the comment that replaces the line),
        and the line as that comment shows it when it must not show the line as written (a token as
        ``...``, a state URL's password as ``***``; else ""); None when the line only displays the
        settings.

        Raises:
            SettingRefused: the setting does not exist (the closest name is suggested: "did you mean
                'port'?"), or its value is not a literal (or arithmetic of
                numbers) it accepts, divides by zero or is too large to evaluate.
        """
        from traitlets import TraitError

        from .config import NanohubMCP
        from .trait_groups import LIMIT_TRAITS, SERVE_LIMIT_TRAITS

        try:
            target = ast_guard.parse("cfg." + line).body[0]
        except SyntaxError:
            target = None
        if not isinstance(target, ast.Assign) or not isinstance(target.targets[0], ast.Attribute):
            return None
        setting = target.targets[0].attr
        settings = NanohubMCP.class_trait_names(config=True)
        if setting not in settings:
            # As traitlets suggests it in the kernel ("Did you mean `port`?"), which only warns there.
            close = difflib.get_close_matches(setting, settings, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SettingRefused(f"%config NanohubMCP.{setting}: NanohubMCP has no setting {setting!r}{hint}")
        past = 0
        try:
            try:
                value = constant_value(target.value)
            except PastLargest as exc:  # (10**400: an int the kernel takes, too long to compute safely here)
                if setting == "tool_timeout" or not _a_power(target.value):
                    raise
                past, value = exc.sign, exc.sign * _STAND_IN  # checked as any int that large is
            # checked with the pair's other half as set so far, as the kernel would hold it (max_buffered_bytes
            # must be at least max_request_bytes): a script that run() would refuse to start is not written
            checked = NanohubMCP(**{half: self.values[half] for half in _PAIR
                                    if half in self.values and half != setting})
            setattr(checked, setting, value)
        except ZeroDivisionError:
            raise SettingRefused(f"%config NanohubMCP.{setting}: the value divides by zero (so the kernel "
                                 "refuses it too)") from None
        except PastLargest as past_tool_timeout:
            if setting != "tool_timeout":
                raise SettingRefused(f"%config NanohubMCP.{setting}: the value is too large to evaluate safely "
                                     f"(past 2**{_LARGEST_POWER} in arithmetic; a power of two numbers, 10**400, "
                                     "is exported as written)") from None
            if past_tool_timeout.sign < 0:
                raise SettingRefused(f"NanohubMCP.tool_timeout must be a positive number of seconds, or None for "
                                     f"no limit, not a number below -2**{_LARGEST_POWER}") from None
            value = checked = None  # no limit, as the kernel reads an int past a float's range
        except OverflowError:
            raise SettingRefused(f"%config NanohubMCP.{setting}: the value is too large to evaluate safely "
                                 f"(past 2**{_LARGEST_POWER} in arithmetic; a power of two numbers, 10**400, is "
                                 "exported as written)") from None
        except (ValueError, TypeError, SyntaxError):
            hint = "; for no limit, write None" if _none_is_no_limit(setting) else ""
            raise SettingRefused(f"%config NanohubMCP.{setting}: the value must be a literal (a number, "
                                 "string, list or None) or arithmetic of numbers (40 * 2**20) to be "
                                 f"exported{hint}") from None
        except TraitError as exc:
            said = str(exc).splitlines()[0]
            if past:  # the value as written, not the int that stood in for it
                said = f"{said.partition(', not ')[0]}, not {ast.unparse(target.value)}"
            raise SettingRefused(said) from None
        self.written.pop(setting, None)
        if setting == "provenance" and value:
            self.values.pop(setting, None)  # the default; an argument would outrank NANOHUBMCP_PROVENANCE=0
            return _NOTE["provenance on"], ""
        if setting in ("tool_timeout", "figure_dpi") and checked is not None:
            value = getattr(checked, setting)  # as the kernel reads it: 1e400 (inf) or 10**400 is None, no limit
        if setting in (*LIMIT_TRAITS, *SERVE_LIMIT_TRAITS, "max_inline_bytes"):
            value = getattr(checked, setting)  # the int the kernel would use (1e9 is a float literal)
            if value == NanohubMCP.class_traits()[setting].default_value:
                self.values.pop(setting, None)  # MCPServer's own default: an argument would only repeat it
                return _NOTE["default limit"], ""
            if past or (isinstance(value, int) and value >= _WRITTEN_AS_GIVEN):
                # as written (1e30, 10**400): MCPServer(...) reads it by the kernel's rule, and 31 digits do not read
                self.written[setting] = Written(ast.get_source_segment("cfg." + line, target.value)
                                                or ast.unparse(target.value))
        if setting == "port" and checked is not None:
            value = whole_number(value) if whole_number(value) is not None else value  # 19515.0 as 19515
        self.values[setting] = value
        where = "open" if setting == "host" and not is_loopback(str(value)) else _place(setting)
        if setting == "token" and value == "":
            where = "token off"
        note = _NOTE[where].format(setting, upper=setting.upper(), value=value)
        if where == "secret":  # the comment names the setting, never its value
            return note, f"NanohubMCP.{setting} = ..."
        if setting == "state_url" and isinstance(value, str):  # a password in it is shown as ***, as in logs
            from ..state.url import redact

            shown = f"NanohubMCP.{setting} = {redact(value)!r}"
            return note, shown if redact(value) != value else ""
        return note, ""

    def placed(self, where: str) -> dict[str, Any]:
        """The settings that go to ``MCPServer(...)`` (``where`` "ctor"; the name aside, it comes
        first) or to ``server.run(...)`` ("run"), in the order they were first set."""
        return {k: self.written.get(k, v) for k, v in self.values.items() if _place(k) == where and k != "name"}

    def notes(self) -> tuple[str, ...]:
        """What the script does differently from the notebook (see ``Script.notes``)."""
        host = self.values.get("host", "127.0.0.1")
        if is_loopback(str(host)):
            return ()
        return (f"the notebook served on {host} (with its token, which is not exported): the script binds "
                f"127.0.0.1 unless run with --host {host}; set MCP_TOKEN when you do",)

    def command_line(self) -> CommandLine:
        """The script's ``--host`` and ``--port``, from the notebook's host and port."""
        host, port = self.values.get("host", "127.0.0.1"), self.values.get("port", 8000)
        host_help = f"interface to bind (default: {host})"
        if not is_loopback(str(host)):  # served with a token in the notebook; the script has none of its own
            host_help = (f"interface to bind (default: 127.0.0.1; the notebook served on {host}: pass --host {host} "
                         "with MCP_TOKEN set to serve other machines)")
            host = "127.0.0.1"
        origin = " as in the notebook" if "port" in self.values else ""
        port_help = f"TCP port, 0-65535 (default: $MCP_PORT, else {port}{origin}; 0 = any free port)"
        return CommandLine(host, port, host_help, port_help, self.token_required)

    @property
    def token_required(self) -> bool:
        """Whether the notebook's server required a token: always, unless ``token = ''`` turned it off
        (None or unset: ``$MCP_TOKEN``, else a generated one)."""
        return self.values.get("token") != ""
