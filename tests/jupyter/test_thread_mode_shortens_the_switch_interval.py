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


def test_an_interval_the_user_set_while_serving_is_kept_at_the_stop() -> None:
    """(trial46 T46-11: the stop put back the interval saved at the start over the user's own.)"""
    before = sys.getswitchinterval()
    session = KernelSession(NanohubMCP(port=0), notify=lambda text: None)
    try:
        session.start()
        sys.setswitchinterval(0.0002)
        kept = sys.getswitchinterval()
        session.stop()
        assert sys.getswitchinterval() == kept
    finally:
        session.stop()
        sys.setswitchinterval(before)
