#!/usr/bin/env python3
"""Per-call cost of authorization: no token vs a static bearer token vs a JWT (RS256, cached JWKS).

    .venv/bin/python bench/auth_cost.py                 # 15 rounds x 500 calls per mode
    .venv/bin/python bench/auth_cost.py --calls 2000 --rounds 7
    .venv/bin/python bench/auth_cost.py --verifier-only --json /tmp/auth.json   # part 1 only (run.py)

Two measurements (not a timed test):

1. the verifier alone, in this process: microseconds per ``verify(token)`` (median of rounds);
   for a JWT both the first check of a token (signature, claims) and a repeated one (the
   verifier remembers checked tokens for up to a minute, never past ``exp``);
2. end to end: a server per mode in a child process on loopback (the same tool, ``add``), and one
   keep-alive HTTP/1.1 connection here sending sessionless ``tools/call`` POSTs to ``/mcp``
   (``Accept: application/json``) one after another. Modes are interleaved round by round so
   machine noise hits them alike; the table gives the median calls/s and the cost per call
   relative to no authorization.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "auth"))

from issuer import Issuer

from nanohubmcp import JWTVerifier, StaticTokenVerifier

SERVER = r"""
import sys
from nanohubmcp import JWTVerifier, MCPServer
mode, issuer, jwks = sys.argv[1:4]
auth = {"none": None, "token": "bench-token",
        "jwt": JWTVerifier(issuer=issuer, jwks_url=jwks, audience="http://bench.invalid")}[mode]
server = MCPServer("bench-auth", auth=auth if mode == "jwt" else None)

@server.tool()
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b

server.start(host="127.0.0.1", port=0, token=auth if mode == "token" else ("" if mode == "none" else None))
print(server.port, flush=True)
sys.stdin.read()
"""
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}).encode()


def verifier_cost(issuer: Issuer, rounds: int, calls: int) -> dict[str, float]:
    static = StaticTokenVerifier("bench-token")
    jwt_verifier = JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url, audience="http://bench.invalid")
    token = issuer.mint("http://bench.invalid", scope="tools")
    asyncio.run(jwt_verifier.verify(token))  # fetch the key set once

    async def jwt_loop() -> None:
        for _ in range(calls):
            await jwt_verifier.verify(token)

    public_key = issuer.key.public_key()
    out = {}
    for name, run in (("static token", lambda: [static.verify("bench-token") for _ in range(calls)]),
                      ("JWT, first use", lambda: [jwt_verifier.decode(token, public_key) for _ in range(calls)]),
                      ("JWT, again", lambda: asyncio.run(jwt_loop()))):
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            run()
            times.append((time.perf_counter() - start) / calls)
        out[name] = statistics.median(times) * 1e6
    return out


def calls_per_second(port: int, token: str | None, calls: int) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "MCP-Protocol-Version": "2025-11-25"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    for _ in range(50):  # warm up
        conn.request("POST", "/mcp", BODY, headers)
        conn.getresponse().read()
    start = time.perf_counter()
    for _ in range(calls):
        conn.request("POST", "/mcp", BODY, headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
    elapsed = time.perf_counter() - start
    conn.close()
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--verifier-only", action="store_true", help="skip the end-to-end part")
    parser.add_argument("--json", type=Path, help="also write the verifier figures here (JSON)")
    a = parser.parse_args()
    with Issuer() as issuer:
        cost = verifier_cost(issuer, a.rounds, a.calls)
        if a.json:
            a.json.write_text(json.dumps({"verify_us": {k: round(v, 2) for k, v in cost.items()}}, indent=1))
        if a.verifier_only:
            for name, micro in cost.items():
                print(f"  {name:<16} {micro:8.1f} us per verify")
            return
        tokens = {"none": None, "token": "bench-token", "jwt": issuer.mint("http://bench.invalid", lifetime=3600)}
        children, ports = {}, {}
        env = dict(os.environ, MCP_TOKEN="")
        for mode in tokens:
            child = subprocess.Popen([sys.executable, "-c", SERVER, mode, issuer.url, issuer.jwks_url],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            children[mode] = child
            assert child.stdout is not None
            ports[mode] = int(child.stdout.readline())
        try:
            rates: dict[str, list[float]] = {mode: [] for mode in tokens}
            for _ in range(a.rounds):
                for mode, token in tokens.items():
                    rates[mode].append(calls_per_second(ports[mode], token, a.calls))
        finally:
            for child in children.values():
                child.terminate()
                child.wait(10)
    print(f"verifier alone (median of {a.rounds} x {a.calls}):")
    for name, micro in cost.items():
        print(f"  {name:<16} {micro:8.1f} us per verify")
    print(f"\nend to end, one keep-alive connection, sessionless tools/call (median of {a.rounds} x {a.calls}):")
    base = statistics.median(rates["none"])
    for mode, label in (("none", "no token"), ("token", "static token"), ("jwt", "JWT (RS256)")):
        rate = statistics.median(rates[mode])
        extra = (1 / rate - 1 / base) * 1e6
        print(f"  {label:<14} {rate:8.0f} calls/s   {1e6 / rate:7.1f} us/call   "
              f"{extra:+6.1f} us ({100 * (base / rate - 1):+5.1f}%)")


if __name__ == "__main__":
    main()
