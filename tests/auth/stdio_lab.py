"""``lab_app.py`` and the issuer it trusts, as a stdio client starts it: its command line, the environment
naming the issuer and carrying the token (``MCP_TOKEN``), and tokens for its audience."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from issuer import Issuer
from support import run_command

AUDIENCE = "urn:lab-tools"
"""The audience ``lab_app.py``'s verifier accepts."""
LAB_APP = Path(__file__).resolve().with_name("lab_app.py")


class Lab:
    """``lab_app.py`` trusting ``issuer`` (the ``lab`` fixture)."""

    def __init__(self, issuer: Issuer) -> None:
        self.issuer = issuer
        self.command = run_command(LAB_APP)
        """``python -m nanohubmcp run lab_app.py --transport stdio``."""

    def env(self, token: str) -> dict[str, str]:
        """What the app reads from its environment: the issuer's URLs and the token, for a client that adds
        them to its own default environment (the official client's ``env=``)."""
        return {"LAB_ISSUER": self.issuer.url, "LAB_JWKS": self.issuer.jwks_url, "MCP_TOKEN": token}

    def process_env(self, token: str) -> dict[str, str]:
        """This test run's environment (less ``MCP_TRANSPORT``) plus :meth:`env`: for a process the test
        starts itself."""
        inherited = {k: v for k, v in os.environ.items() if k != "MCP_TRANSPORT"}
        return {**inherited, **self.env(token)}

    def mint(self, **claims: Any) -> str:
        """A JWT for the app's audience (the keywords of :meth:`Issuer.mint`)."""
        return self.issuer.mint(AUDIENCE, **claims)
