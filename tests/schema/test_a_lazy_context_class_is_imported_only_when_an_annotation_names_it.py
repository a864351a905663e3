"""A context class given as a ``LazyClass`` is imported only when a function's annotation names it.

The server registers every function with ``Context`` as a lazy class, so registering a tool does
not import ``calls/context.py`` and the asks behind it (a cold start's worth of instructions);
a ``ctx: "Context"`` written with the import under ``TYPE_CHECKING`` must still mark the context
parameter. Real modules on a temporary ``sys.path`` entry stand for the context's module and the
user's.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.schema import describe_function
from nanohubmcp.schema.hints import LazyClass


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A context module (``lazy_ctx_home``, not imported yet) and a user's module naming its class."""
    (tmp_path / "lazy_ctx_home.py").write_text("class Ctx:\n    pass\n")
    (tmp_path / "lazy_ctx_user.py").write_text(textwrap.dedent('''
        from __future__ import annotations

        from typing import TYPE_CHECKING, Optional

        if TYPE_CHECKING:
            from lazy_ctx_home import Ctx


        def by_name(x: float, ctx) -> float:
            return x


        def annotated(x: float, ctx: Ctx) -> float:
            return x


        def optional(x: float, ctx: Optional[Ctx] = None) -> float:
            return x


        def commented(request, x):  # type: (Ctx, float) -> float
            return x
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_ctx_home", raising=False)
    monkeypatch.delitem(sys.modules, "lazy_ctx_user", raising=False)
    import lazy_ctx_user

    yield lazy_ctx_user
    sys.modules.pop("lazy_ctx_home", None)
    sys.modules.pop("lazy_ctx_user", None)


LAZY = (LazyClass("lazy_ctx_home", "Ctx"),)


def describe(fn):
    return describe_function(fn, kind="tool", name=fn.__name__, context_types=LAZY)


def test_a_context_parameter_found_by_name_imports_nothing(modules) -> None:
    signature = describe(modules.by_name)
    assert signature.context_param == "ctx"
    assert signature.param_names == ("x",)
    assert "lazy_ctx_home" not in sys.modules


@pytest.mark.parametrize(("function", "context"), [("annotated", "ctx"), ("optional", "ctx"), ("commented", "request")])
def test_an_annotation_naming_the_lazy_class_imports_it_and_marks_the_context(modules, function, context) -> None:
    signature = describe(getattr(modules, function))
    assert signature.context_param == context
    assert signature.input_schema["properties"] == {"x": {"type": "number"}}
    assert "lazy_ctx_home" in sys.modules


def test_a_loaded_lazy_class_is_recognised_in_a_real_annotation(modules) -> None:
    import lazy_ctx_home

    def real(x: float, session) -> float:  # not a context name: found by its type
        return x

    real.__annotations__["session"] = lazy_ctx_home.Ctx  # the class itself, not a string to resolve
    assert describe(real).context_param == "session"


def test_a_server_tool_annotated_with_context_under_type_checking_gets_the_context(tmp_path, monkeypatch) -> None:
    (tmp_path / "lazy_ctx_tools.py").write_text(textwrap.dedent('''
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from nanohubmcp import Context


        def scaled(x: float, ctx: Context) -> float:
            """Return x."""
            return x
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import lazy_ctx_tools

    server = MCPServer("lazy")
    server.tool()(lazy_ctx_tools.scaled)
    tool = server.core.registry.tools.by_name["scaled"]
    assert tool.signature.context_param == "ctx"
    assert tool.input_schema["properties"] == {"x": {"type": "number"}}
    sys.modules.pop("lazy_ctx_tools", None)
