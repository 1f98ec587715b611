#!/usr/bin/env python3
"""Chats over switchboard's wss:// listener with the python `websockets` client, bridged
to a plain TCP line client.

usage: wss_chat.py HTTPS_PORT TCP_PORT --ca CA.pem [--timeout SECONDS]

Connects to wss://127.0.0.1:HTTPS_PORT/ trusting only CA.pem (the certificate must name
127.0.0.1; the handshake is verified, hostname included), joins with a name, sends a
message that a raw TCP client on TCP_PORT (`iam:ncuser`) must receive as `NAME: TEXT`,
then receives that client's line as a message frame authored by ncuser. Exit 0 when
every check passes; otherwise one line "FAIL: reason" and exit 1.
"""

import argparse
import asyncio
import json
import os
import ssl
import sys

try:
    import websockets
except ImportError:  # pragma: no cover
    print("FAIL: python module websockets is not installed")
    sys.exit(1)

TAG = os.urandom(4).hex()


class Failure(Exception):
    pass


async def expect_line(reader, wanted, what):
    while True:
        raw = await asyncio.wait_for(reader.readline(), 15)
        if not raw:
            raise Failure(f"line client: connection closed waiting for {what}")
        line = raw.decode().rstrip("\r\n")
        if wanted(line):
            return line


async def expect_frame(ws, kind, what, match=lambda d: True):
    while True:
        text = await asyncio.wait_for(ws.recv(), 15)
        frame = json.loads(text) if isinstance(text, str) and text.startswith("{") else None
        if frame and frame.get("type") == kind and match(frame.get("data")):
            return frame


async def scenario(args):
    reader, writer = await asyncio.open_connection("127.0.0.1", args.tcp_port)
    writer.write(b"iam:ncuser\n/who\n")
    await expect_line(reader, lambda l: l.startswith("* in ") and "ncuser" in l, "the /who answer")

    ctx = ssl.create_default_context(cafile=args.ca)
    url = f"wss://127.0.0.1:{args.https_port}/"
    try:
        ws = await websockets.connect(url, ssl=ctx, open_timeout=10, close_timeout=5, ping_interval=None)
    except Exception as e:
        raise Failure(f"cannot connect to {url}: {e!r}")
    await expect_frame(ws, "history", "history")
    name = f"wss-{TAG}"
    await ws.send(name)
    await expect_frame(ws, "color", "color")
    text = f"hello over wss {TAG}"
    await ws.send(json.dumps({"type": "message", "data": {"text": text}}))
    await expect_line(reader, lambda l: l == f"{name}: {text}", "the wss message on the line client")
    reply = f"hello from nc {TAG}"
    writer.write((reply + "\n").encode())
    await expect_frame(ws, "message", "the line client's message",
                       lambda d: isinstance(d, dict) and d.get("text") == reply and d.get("author") == "ncuser")
    await ws.close()
    writer.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("https_port", type=int)
    ap.add_argument("tcp_port", type=int)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    try:
        asyncio.run(asyncio.wait_for(scenario(args), args.timeout))
        print("OK: wss chat")
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    except Exception as e:
        print(f"FAIL: {type(e).__name__}: {e!r}")
        sys.exit(1)


if __name__ == "__main__":
    main()
