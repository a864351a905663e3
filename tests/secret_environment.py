"""The server's secrets as a test sets them in the environment (review r41 R41-8): one value for each name
of ``SERVER_SECRETS``, each recognisable if a program a call started saw it."""

from __future__ import annotations

SECRETS = {
    "MCP_TOKEN": "s3cr3t-bearer-token-of-the-server",
    "NANOHUBMCP_STATE_URL": "redis://:redis-password@127.0.0.1:6379/0",
    "NANOHUBMCP_CHILD_PATH_PREFIX": "/weber/123/cookie-abc/8/",
    "NANOHUBMCP_CHILD_PUBLIC_URL": "https://proxy.nanohub.org/weber/123/cookie-abc/8/",
    "MCP_PUBLIC_URL": "https://proxy.nanohub.org/weber/123/cookie-abc/8/",
    "MCP_PATH_PREFIX": "/weber/123/cookie-abc/8/",
}
