"""Magic lines are taken literally: ``{x}`` and ``$price`` reach the server as typed, as the exporter reads them."""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

RESOURCE = '''%%mcp_resource data://y/{x} --name item --description "costs $price {units}"
def item(x: str) -> str:
    """An item."""
    return "item " + x
'''
TOOL = '''%%mcp_tool --description "pay $price for {units}"
def pay() -> str:
    return "paid"
'''


def test_placeholders_and_dollar_words_stay_literal_with_matching_names_in_the_namespace(
    kernel: LiveKernel,
) -> None:
    kernel.run_ok("x = 5\nprice = 3\nunits = 'kg'")  # `id` is a builtin: {id} must not expand either
    kernel.run_ok(RESOURCE)
    kernel.run_ok(TOOL)
    kernel.run_ok('%%mcp_resource data://x/{id}\ndef by_id(id: str) -> str:\n    return "id " + id\n')
    url = server_url(kernel)

    async def listing() -> dict[str, Any]:
        async with mcp_client(url) as client:
            templates = (await client.list_resource_templates()).resource_templates
            return {
                "templates": {t.uri_template: t.description for t in templates},
                "resources": [str(r.uri) for r in (await client.list_resources()).resources],
                "tools": {t.name: t.description for t in (await client.list_tools()).tools},
                "read": (await client.read_resource("data://y/7")).contents[0].text,
            }

    seen = run_async(listing())
    assert sorted(seen["templates"]) == ["data://x/{id}", "data://y/{x}", "nanohubmcp://results/{id}{?part}"]
    assert seen["templates"]["data://y/{x}"] == "costs $price {units}"
    assert seen["resources"] == []
    assert seen["tools"]["pay"] == "pay $price for {units}"
    assert seen["read"] == "item 7"
