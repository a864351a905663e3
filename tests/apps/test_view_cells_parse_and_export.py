"""The ``%%mcp_view`` line and cell without a kernel: the shared parser, and the exporter writing
``server.add_app_view(URI, <the cell's last expression>, ...)`` so the script serves the same view."""

from __future__ import annotations

from typing import Any

import nbformat
import pytest

from nanohubmcp import RegistrationError
from nanohubmcp.jupyter.cellspec import parse_tool_line, parse_view_line, split_last_expression
from nanohubmcp.jupyter.translate import translate


def test_the_view_line_gives_the_add_app_view_options() -> None:
    spec = parse_view_line("ui://plots/chart --name chart --border --connect-domains 'https://a.org, https://b.org'")
    assert spec.registration_options() == {
        "name": "chart",
        "prefers_border": True,
        "csp": {"connect_domains": ["https://a.org", "https://b.org"]},
    }
    assert parse_view_line("ui://x").registration_options() == {}
    assert parse_tool_line("--view ui://x").registration_options() == {"view": "ui://x"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "the following arguments are required: URI"),
        ("data://x", "a view's URI starts with ui://"),
        ("ui://", "a view's URI starts with ui://"),
        ("ui://x --name ''", "--name needs a non-empty value"),
    ],
)
def test_a_bad_view_line_says_what_to_fix(line: str, message: str) -> None:
    with pytest.raises(RegistrationError) as caught:
        parse_view_line(line)
    assert message in str(caught.value)


def test_the_last_expression_is_split_from_the_code_before_it() -> None:
    assert split_last_expression("a = 1\nb = f(\n  a)\n") == ("a = 1\nb = f(\n  a)\n", None)
    assert split_last_expression("a = 1\nf(\n  a)") == ("a = 1\n", "f(\n  a)")
    assert split_last_expression("a = 1; a") == ("a = 1; ", "a")


def test_a_view_cell_exports_as_add_app_view_of_its_last_expression() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%%mcp_view ui://plots/chart --border\nHTML = '<p>hi</p>'\nHTML"),
        nbformat.v4.new_code_cell(
            '%%mcp_tool --view ui://plots/chart\ndef data() -> dict:\n    """Data."""\n    return {"x": [1]}'
        ),
    ]
    script = translate(notebook, source="views.ipynb", format_code=False)
    assert "HTML = '<p>hi</p>'\nserver.add_app_view(\"ui://plots/chart\", HTML, prefers_border=True)" in script.text
    assert '@server.tool(view="ui://plots/chart")' in script.text
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": "start_mcp.py"}  # beside its notebook
    exec(compile(script.text, "start_mcp.py", "exec"), namespace)
    registry = namespace["server"].core.registry
    assert registry.tools.get("data").meta == {"ui": {"resourceUri": "ui://plots/chart"}}
    assert registry.resources.get("ui://plots/chart").mime_type == "text/html;profile=mcp-app"


def test_a_view_cell_without_a_final_expression_cannot_be_exported() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("%%mcp_view ui://plots/chart\nHTML = '<p>hi</p>'")]
    with pytest.raises(Exception, match="must end with the view's HTML"):
        translate(notebook, source="views.ipynb", format_code=False)
