"""Cold start: registering a typical tool (annotated parameters, a one-sentence docstring) reads
no source file, loads no docstring parser and compiles no schema; the first call compiles its
validator, and then behaves exactly as an eagerly compiled one (a ``null`` for an optional
parameter is dropped, a bad value is refused). Tools that need the slower paths still get them:
type comments are read for unannotated parameters, sectioned docstrings are parsed.

Measured (bench/run.py, cold start): these steps were about 10 ms of a 140 ms start.
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys, linecache
from nanohubmcp import MCPServer
server = MCPServer("cold")

@server.tool()
def add(a: float, b: float = 1.0, note: str | None = None) -> float:
    '''Sum of two numbers.'''
    return a + b

seen = {name: name in sys.modules for name in ("docstring_parser", "fastjsonschema")}
seen["source read"] = __file__ in linecache.cache
tool = server.core.registry.tools.get("add")
seen["cleaned"] = tool.validator.validate({"a": 1, "b": None, "note": None})
seen["fastjsonschema after a call"] = "fastjsonschema" in sys.modules

@server.tool()
def scale(x, factor=2.0):
    # type: (float, float) -> float
    '''Scale a number.

    Args:
        x: the number.
        factor: how much.
    '''
    return x * factor

schema = server.core.registry.tools.get("scale").input_schema
seen["comment types"] = {k: v.get("type") for k, v in schema["properties"].items()}
seen["parameter text"] = schema["properties"]["x"].get("description")
seen["source read after an unannotated tool"] = __file__ in linecache.cache
print(json.dumps(seen))
"""


def test_a_typical_tool_registers_without_source_parser_or_schema_compiler(tmp_path) -> None:
    app = tmp_path / "cold_app.py"
    app.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(app)], capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(out.stdout)
    assert seen["source read"] is False
    assert seen["docstring_parser"] is False
    assert seen["fastjsonschema"] is False
    assert seen["cleaned"] == {"a": 1, "note": None}
    assert seen["fastjsonschema after a call"] is True
    assert seen["comment types"] == {"x": "number", "factor": "number"}
    assert seen["parameter text"] == "the number."
    assert seen["source read after an unannotated tool"] is True
