"""What a list publishes of a component (its name, title, description, MIME type, resource annotations, the
defaults its schema holds) is checked when it is registered: one a client cannot read is refused there, naming
the component and the field, and the official client goes on listing every other component.

trial42 T42-1..T42-4: bytes or numbers as a title or description, a resource's priority of 7 or nan, an
audience of "robot", a parameter default of 10**5000 (also inside a list, dict, dataclass or pydantic model)
were accepted; then every list answered -32603 (the log blaming "a middleware") or the official client
refused the whole list. T42-17: a hand-written schema nested 250 levels deep made tools/list unreadable.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np
import pydantic
import pytest
from listed_components import (
    Registering,
    by_id,
    everything_still_lists,
    kept_server,
    one,
    refused_and_the_rest_lists,
    text,
)

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import client_session

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


REFUSED: list[tuple[str, Registering, str]] = [
    ("tool title bytes", lambda s: s.tool(title=b"x")(one), "tool 'one': title=b'x' is not a string; give text"),
    ("tool title int", lambda s: s.tool(title=5)(one), "tool 'one': title=5 is not a string"),
    ("tool title float32", lambda s: s.tool(title=np.float32(1))(one), "tool 'one': title="),
    ("tool description int", lambda s: s.tool(description=5)(one), "tool 'one': description=5 is not a string"),
    ("tool description bytes", lambda s: s.tool(description=b"d")(one), "tool 'one': description=b'd'"),
    ("tool name bytes", lambda s: s.tool(name=b"x")(one), "tool: name=b'x' is not a string; give text, e.g. name='x'"),
    ("tool icon src bytes", lambda s: s.tool(icons=[{"src": b"x"}])(one),
     "tool 'one': icons[0] must be {'src': text, 'mimeType'?: text, 'sizes'?: [text], 'theme'?: 'light' or 'dark'}"),
    ("tool icons text", lambda s: s.tool(icons="https://example.org/a.png")(one),
     "tool 'one': icons must be a list of dicts"),
    ("tool icon nan", lambda s: s.tool(icons=[{"src": "https://example.org/a.png", "x-scale": math.nan}])(one),
     """tool 'one': invalid icons: nan at icons[0]["x-scale"] has no JSON form"""),
    ("tool title huge int", lambda s: s.tool(title=10**5000)(one),
     "tool 'one': title=an int of over 4,300 digits is not a string"),
    ("resource title", lambda s: s.resource("data://x", title=b"t")(text),
     "resource 'data://x': title=b't' is not a string"),
    ("resource name", lambda s: s.resource("data://x", name=b"x")(text), "name=b'x' is not a string"),
    ("resource mime_type", lambda s: s.resource("data://x", mime_type=b"text/plain")(text),
     "resource 'data://x': mime_type=b'text/plain' is not a string; give text, e.g. mime_type='text/plain'"),
    ("resource description", lambda s: s.resource("data://x", description=7)(text),
     "resource 'data://x': description=7 is not a string"),
    ("template title", lambda s: s.resource("data://t/{pid}", title=b"t")(by_id),
     "resource template 'data://t/{pid}': title=b't' is not a string"),
    ("prompt title", lambda s: s.prompt(title=b"t")(text), "prompt 'text': title=b't' is not a string"),
    ("prompt description", lambda s: s.prompt(description=b"d")(text), "prompt 'text': description=b'd'"),
    ("resource size nan", lambda s: s.resource("data://x", size=math.nan)(text),
     "resource 'data://x': size=nan is not a number of bytes; give a whole number, e.g. size=1024"),
    ("resource size bytes", lambda s: s.resource("data://x", size=b"1")(text), "size=b'1' is not a number of bytes"),
    ("resource size huge", lambda s: s.resource("data://x", size=10**5000)(text), "is not a number of bytes"),
    ("priority nan", lambda s: s.resource("data://x", annotations={"priority": math.nan})(text),
     "resource 'data://x' annotations.priority must be a number from 0 to 1, got nan"),
    ("priority 7", lambda s: s.resource("data://x", annotations={"priority": 7})(text),
     "annotations.priority must be a number from 0 to 1, got 7"),
    ("audience robot", lambda s: s.resource("data://x", annotations={"audience": ["robot"]})(text),
     "annotations.audience must list 'user'/'assistant', got ['robot']"),
    ("lastModified int", lambda s: s.resource("data://x", annotations={"lastModified": 5})(text),
     "annotations.lastModified must be an ISO 8601 text"),
    ("annotation set", lambda s: s.resource("data://x", annotations={"x-tags": {1}})(text),  # (T44-2: any unknown key)
     "resource 'data://x': unknown annotation 'x-tags' (allowed: audience, priority, lastModified)"),
]


@pytest.mark.parametrize(("make", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
async def test_a_field_a_client_cannot_read_is_refused_naming_the_component(
        make: Registering, message: str) -> None:
    await refused_and_the_rest_lists(make, message)


class Model(pydantic.BaseModel):
    steps: int = 10**5000


class NanModel(pydantic.BaseModel):
    rate: float = math.nan


class NanExample(pydantic.BaseModel):
    rate: float = pydantic.Field(1.0, examples=[math.nan])


def in_model(m: Model) -> int:
    """Steps."""
    return 1


def nan_in_model(m: NanModel) -> int:
    """Rate."""
    return 1


def nan_example(m: NanExample) -> int:
    """Rate."""
    return 1


DEFAULTS: list[tuple[Callable[..., Any], str]] = [
    (nan_example, "nan at schema.properties.m.properties.rate.examples[0]"),
]
MODEL_DEFAULTS = [(in_model, "Model.steps"), (nan_in_model, "NanModel.rate")]


@pytest.mark.parametrize(("fn", "field"), MODEL_DEFAULTS, ids=[fn.__name__ for fn, _ in MODEL_DEFAULTS])
async def test_a_model_default_json_cannot_write_is_left_out_with_a_warning(fn: Callable[..., Any], field: str) -> None:
    """T42-2's model cases (a field default of 5,000 digits, a nan): refused at registration until input42
    (c7683420) made a pydantic field's default that its own schema refuses or JSON cannot write left out of the
    published schema with a warning naming the field (the model's own default still applies when a call leaves it
    out); every tools/list still answers."""
    server = kept_server()
    with pytest.warns(Warning, match=re.escape(field)):
        server.tool()(fn)
    async with client_session(server) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert sorted(tools) == sorted(["kept", fn.__name__])
    assert "default" not in json.dumps(tools[fn.__name__].input_schema)  # nothing a client cannot read


@pytest.mark.parametrize(("fn", "found"), DEFAULTS, ids=[fn.__name__ for fn, _ in DEFAULTS])
async def test_a_default_json_cannot_write_is_refused_naming_where(fn: Callable[..., Any], found: str) -> None:
    """T42-2: each registered; then every tools/list was -32603 (or the nan read null)."""
    server = kept_server()
    with pytest.raises(RegistrationError, match=re.escape(f"tool '{fn.__name__}': invalid input schema: {found} "
                                                          "has no JSON form; write ")):
        server.tool()(fn)
    await everything_still_lists(server)


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


async def test_a_schema_nested_past_the_limit_is_refused() -> None:
    """T42-17: the official client could not parse a tools/list this deep (R21-L4's check covers it)."""
    server = kept_server()
    for given in ({"input_schema": {"type": "object", "x-deep": _nested(250)}}, {"meta": {"x-deep": _nested(250)}}):
        with pytest.raises(RegistrationError, match=r"nests more than 128 levels deep"):
            server.tool(**given)(one)
    await everything_still_lists(server)


@pytest.mark.parametrize(("value", "shown"), [
    (np.int64(5), "an int64 (np.int64(5))"),
    (np.bool_(True),
     'a numpy bool (True) at schema.properties.x["x-flag"] has no JSON form; write the Python bool True'),
    (uuid.UUID("ed263212-f455-4359-88c9-2c5b38cf80d1"), "a UUID (UUID('ed263212-f455-4359-88c9-2c5b38cf80d1'))"),
], ids=["article", "numpy-bool", "uuid-whole"])
def test_the_refusal_reads_as_written(value: object, shown: str) -> None:
    """T42-5: 'a int64', 'a bool (np.True_)', and a UUID cut mid-literal."""
    server = MCPServer("wording")
    schema = {"type": "object", "properties": {"x": {"type": "number", "x-flag": value}}}
    with pytest.raises(RegistrationError, match=re.escape(shown)):
        server.tool(input_schema=schema)(one)
