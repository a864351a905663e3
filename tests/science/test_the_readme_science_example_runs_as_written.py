"""The "Scientific results" page's example (docs/how-to/scientific-results.md, once the README's), run as
written and called with the official client."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import anyio
import pytest
from support import mcp_client, serve

np = pytest.importorskip("numpy")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
PIL = pytest.importorskip("PIL.Image")

README = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "scientific-results.md"


def science_example() -> str:
    section = README.read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the page has a python example"
    return found.group(1)


@pytest.mark.anyio
async def test_the_example_serves_a_table_and_a_figure() -> None:
    namespace: dict[str, object] = {"__name__": "readme_science"}
    exec(compile(science_example(), str(README), "exec"), namespace)  # our own README
    with serve(namespace["server"]) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            table = await client.call_tool("decay", {"rate": 0.5, "t": [0, 1, 2]})
            figure = await client.call_tool("plot", {"rate": 0.5})
    records = table.structured_content["result"]
    assert [r["t"] for r in records] == [0, 1, 2]
    np.testing.assert_allclose([r["n"] for r in records], np.exp(-0.5 * np.array([0, 1, 2])))
    with PIL.open(io.BytesIO(base64.b64decode(figure.content[0].data))) as image:
        assert image.size == (640, 480)
