"""``run(exit_grace='٣')`` (an Arabic-Indic three) advised "write it as a number: 3.0", while the command line's
``--exit-grace ٣`` says "write it in ASCII digits: 3" (trial52 N2): a duration given as text the numbers rule refuses
is told what the rule wants, in every place alike."""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError


@pytest.mark.parametrize(("text", "hint"), [("\u0663", "; write it in ASCII digits: 3"),
                                            ("\uff15", "; write it in ASCII digits: 5"),
                                            ("1_0", "; write it without '_'"),
                                            ("5", "; write it as a number: 5.0")])
def test_run_exit_grace_text_is_told_what_to_write(text: str, hint: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("x").run(exit_grace=text)  # type: ignore[arg-type]
    assert str(refused.value).endswith(f"not {text!r}{hint}"), refused.value
