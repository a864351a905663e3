"""Thread mode lowers the interpreter's switch interval while serving, and restores it after."""

from __future__ import annotations

import sys

from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.session import KernelSession


def test_the_switch_interval_is_lowered_while_serving_and_restored_on_stop() -> None:
    before = sys.getswitchinterval()
    config = NanohubMCP(port=0)
    session = KernelSession(config, notify=lambda text: None)
    try:
        session.start()
        assert sys.getswitchinterval() == min(before, 0.001)
    finally:
        session.stop()
    assert sys.getswitchinterval() == before


def test_none_leaves_the_interpreter_alone() -> None:
    before = sys.getswitchinterval()
    session = KernelSession(NanohubMCP(port=0, switch_interval=None), notify=lambda text: None)
    try:
        session.start()
        assert sys.getswitchinterval() == before
    finally:
        session.stop()
