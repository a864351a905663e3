"""Issue 28: where jsonschema's ``format-nongpl`` extra is installed (every Jupyter environment: jupyter-events
pulls it in), ``import jsonschema`` built ``rfc3987_syntax``'s Lark grammar (~0.9 s of ~1 s). Our first import
of jsonschema (a hand-written schema at registration, a Sim2L notebook read through nbformat) now leaves the
real ``rfc3987_syntax`` unimported until an ``iri`` check needs it; the user's own ``import rfc3987_syntax``
gets the real module, and jsonschema's ``iri`` verdicts are the real library's.

Review r38 F7: a thread importing ``rfc3987_syntax`` in the window between the stand-in's import and jsonschema's
look-up of its function kept the stand-in for good (no ``__file__``, ``__spec__.origin`` "deferred by
nanohubmcp"); asked by that thread, or once it left ``sys.modules``, the stand-in becomes the real module.

Each case runs in a fresh interpreter (in this one jsonschema is long imported).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rfc3987_syntax")  # the cost (and the deferral) exists only where the extra is installed

SIM2L = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling"

IRIS = ["http://example.org/ü/päth?q=1#frag", "urn:isbn:0451450523", "not an iri", "://missing-scheme",
        "http://[::1", "relative/päth", "#frag", "", 5]

VERDICTS = f"""
import json, jsonschema
out = {{}}
for fmt in ("iri", "iri-reference"):
    v = jsonschema.Draft202012Validator({{"format": fmt}}, format_checker=jsonschema.FormatChecker())
    out[fmt] = [v.is_valid(value) for value in {IRIS!r}]
print(json.dumps(out))
"""


def run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


REGISTER = """
import sys
from nanohubmcp import MCPServer
server = MCPServer("iri")

@server.tool(input_schema={"type": "object", "properties": {"home": {"type": "string", "format": "iri"}},
                           "required": ["home"]})
def visit(home: str) -> str:
    "Visit a page."
    return home

print("jsonschema" in sys.modules, "rfc3987_syntax" in sys.modules, "lark" in sys.modules)
"""


def test_a_hand_written_schema_is_compiled_without_importing_rfc3987_syntax() -> None:
    assert run(REGISTER) == ["True False False"]  # before: "True True True" (~0.9 s of grammar at registration)


def test_the_iri_check_uses_the_real_library_with_plain_jsonschemas_verdicts() -> None:
    plain = json.loads(run(VERDICTS)[-1])
    assert plain["iri"][:4] == [True, True, False, False]  # the real grammar decides (a stub would say True)
    ours = run(REGISTER + """
tool = server.core.registry.tools.get("visit")
from nanohubmcp.errors import InvalidArguments
for home in ("http://example.org/ü", "not an iri"):
    try:
        tool.validator.validate({"home": home})
        print("accepted", "rfc3987_syntax" in sys.modules)
    except InvalidArguments as exc:
        print("refused", "rfc3987_syntax" in sys.modules, 'is not a "iri"' in str(exc))
""" + VERDICTS + """
import rfc3987_syntax, types
print(type(rfc3987_syntax) is types.ModuleType, sys.modules["rfc3987_syntax"] is rfc3987_syntax,
      hasattr(rfc3987_syntax, "syntax_parser"))
""")
    assert ours[:3] == ["True False False", "accepted True", "refused True True"]
    assert json.loads(ours[3]) == plain
    assert ours[4] == "True True True"


def test_the_users_own_import_afterwards_gets_the_real_module() -> None:
    out = run(REGISTER + """
import rfc3987_syntax, types
from nanohubmcp.schema import iri_grammar
print(type(rfc3987_syntax) is types.ModuleType, hasattr(rfc3987_syntax, "syntax_parser"),
      rfc3987_syntax.is_valid_syntax("iri", "http://example.org/"), rfc3987_syntax.is_valid_syntax("iri", "a b"),
      any(isinstance(f, iri_grammar._StandInFinder) for f in sys.meta_path))
""" + VERDICTS)
    assert out[:2] == ["True False False", "True True True False False"]
    assert json.loads(out[2]) == json.loads(run(VERDICTS)[-1])


def test_another_thread_importing_it_meanwhile_gets_the_real_module() -> None:
    out = run("""
import sys, threading, types
from nanohubmcp.schema.iri_grammar import deferred_iri_grammar
seen = []
with deferred_iri_grammar():
    worker = threading.Thread(target=lambda: seen.append(__import__("rfc3987_syntax")))
    worker.start()
    worker.join(60)
    import jsonschema
import jsonschema._format as fmt
print(type(seen[0]) is types.ModuleType, hasattr(seen[0], "syntax_parser"), sys.modules["rfc3987_syntax"] is seen[0],
      fmt._rfc3987_is_valid_syntax is seen[0].is_valid_syntax)
""")
    assert out == ["True True True True"]  # nothing deferred: jsonschema took the real function, as without us


def test_without_a_usable_rfc3987_syntax_nothing_is_deferred_and_iri_is_unchecked_as_before() -> None:
    blocked = "import sys\nsys.modules['lark'] = None  # rfc3987_syntax cannot import: as if the extra were absent\n"
    plain = run(blocked + VERDICTS)
    ours = run(blocked + """
from nanohubmcp.schema.iri_grammar import load_jsonschema
load_jsonschema()
print("rfc3987_syntax" in sys.modules, "iri" in __import__("jsonschema").FormatChecker.checkers)
""" + VERDICTS)
    assert ours[0] == "False False"  # jsonschema left the iri formats out, as it does on its own
    assert ours[1:] == plain


def test_reading_a_sim2l_notebook_leaves_the_grammar_for_an_iri_check() -> None:
    out = run(f"""
import sys
from nanohubmcp.sources.sim2l.notebook import read_sim2l
spec = read_sim2l({str(SIM2L)!r})
print("nbformat" in sys.modules, "jsonschema" in sys.modules, "rfc3987_syntax" in sys.modules)
""")
    assert out == ["True True False"]  # before: nbformat's import of jsonschema built it (~0.9 s per Sim2L server)


def test_a_name_other_than_the_deferred_function_is_the_real_modules_at_once() -> None:
    """Should jsonschema ask the stand-in for another name (a constant, a class), it gets the real one."""
    out = run("""
import sys
from nanohubmcp.schema.iri_grammar import deferred_iri_grammar
with deferred_iri_grammar():
    import rfc3987_syntax as seen
    check = seen.is_valid_syntax
    print("rfc3987_syntax" in sys.modules)
    terms = seen.RFC3987_SYNTAX_TERMS
import rfc3987_syntax
print(terms is rfc3987_syntax.RFC3987_SYNTAX_TERMS, check("iri", "http://example.org/"), check("iri", "a b"))
""")
    assert out == ["False", "True True False"]


WINDOW = """
import sys, threading, types
from nanohubmcp.schema.iri_grammar import deferred_iri_grammar
got, asked = {}, threading.Event()

def user():
    import rfc3987_syntax  # in the window: the stand-in is in sys.modules, jsonschema has not asked it yet
    got["module"] = rfc3987_syntax
    if ASK_AT_ONCE:
        got["file"] = rfc3987_syntax.__file__
    asked.set()

with deferred_iri_grammar():
    import rfc3987_syntax as seen  # jsonschema's `from rfc3987_syntax import is_valid_syntax`, in two steps
    worker = threading.Thread(target=user)
    worker.start()
    assert asked.wait(60)
    check = seen.is_valid_syntax
m = got["module"]
print(m.__file__.endswith("__init__.py"), m.__spec__.origin == m.__file__, "syntax_parser" in vars(m),
      type(m) is types.ModuleType, m.is_valid_syntax("iri", "a b"), check("iri", "a b"), check("iri", "http://e.org/"))
"""


@pytest.mark.parametrize("at_once", [False, True], ids=["asked after jsonschema", "asked in the window"])
def test_a_thread_importing_it_in_the_window_gets_the_real_module_in_the_end(at_once: bool) -> None:
    out = run(f"ASK_AT_ONCE = {at_once}\n" + WINDOW)
    assert out == ["True True True True False False True"]  # before: AttributeError: __file__
