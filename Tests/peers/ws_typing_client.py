#!/usr/bin/env python3
"""Typing indicators over switchboard's WebSocket JSON protocol with python `websockets`.

usage: ws_typing_client.py ws://127.0.0.1:PORT/ [--timeout SECONDS]

Members alice (asks for typing with a `features` frame), carol (never does) and bob (types)
in a dedicated server's lobby: alice sees bob's typing start and stop (with his message, and
on its own 5 s after a start), carol and bob never see a typing frame, and a fresh join's
history holds the message alone. Exit 0 when every check passes; otherwise one line
"FAIL: reason" and exit 1.
"""

import argparse
import asyncio
import json
import os
import sys
import time

try:
    import websockets
except ImportError:  # pragma: no cover
    print("FAIL: python module websockets is not installed")
    sys.exit(1)


class Failure(Exception):
    pass


def check(cond, reason):
    if not cond:
        raise Failure(reason)


TAG = os.urandom(4).hex()


async def frame(ws, timeout):
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def until(ws, pred, what, timeout=10.0):
    """The first frame that satisfies pred, and every frame before it."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        check(left > 0, "no %s; saw %s" % (what, [f.get("type") for f in seen]))
        try:
            f = await frame(ws, left)
        except asyncio.TimeoutError:
            raise Failure("no %s; saw %s" % (what, [f.get("type") for f in seen]))
        seen.append(f)
        if pred(f):
            return f, seen


def is_typing(author, active):
    def pred(f):
        d = f.get("data") if isinstance(f.get("data"), dict) else {}
        return f.get("type") == "typing" and d.get("author") == author and d.get("active") is active
    return pred


def is_message(text):
    def pred(f):
        return f.get("type") == "message" and isinstance(f.get("data"), dict) and f["data"].get("text") == text
    return pred


async def member(url, name, typing):
    ws = await websockets.connect(url)
    await ws.send(name)
    await until(ws, lambda f: f.get("type") == "color", "color for " + name)
    if typing:
        await ws.send(json.dumps({"type": "features", "data": ["typing", "unknown-" + TAG]}))
        answer, _ = await until(ws, lambda f: f.get("type") == "features", "features answer")
        data = answer["data"]
        check(data.get("version") == 2, "version %r" % data.get("version"))
        check("typing" in data.get("supported", []), "supported %r" % data.get("supported"))
        check(data.get("enabled") == ["typing"], "enabled %r" % data.get("enabled"))
    return ws


async def run(url, timeout):
    alice = await member(url, "alice", True)
    carol = await member(url, "carol", False)
    bob = await member(url, "bob", False)
    text = "hello " + TAG
    await bob.send(json.dumps({"type": "typing", "data": {"active": True}}))
    await until(alice, is_typing("bob", True), "bob's typing start")
    await bob.send(json.dumps({"type": "message", "data": {"text": text}}))
    _, before = await until(alice, is_message(text), "bob's message")
    check(any(is_typing("bob", False)(f) for f in before), "no stop before the message")
    for ws, who in ((carol, "carol"), (bob, "bob")):
        _, frames = await until(ws, is_message(text), "the message at " + who)
        check(not any(f.get("type") == "typing" for f in frames), who + " got a typing frame")
    dave = await websockets.connect(url)
    await dave.send(json.dumps({"type": "join", "data": {"name": "dave", "room": "lobby"}}))
    history, _ = await until(dave, lambda f: f.get("type") == "history", "dave's history")
    check([m.get("text") for m in history["data"]] == [text], "history %r" % history["data"])
    # On its own: a start, then the stop about 5 s later. (A second start within a second
    # of the first would be dropped by the rate limit.)
    await asyncio.sleep(1.1)
    await bob.send(json.dumps({"type": "typing", "data": {"active": True}}))
    await until(alice, is_typing("bob", True), "bob's second start")
    start = time.monotonic()
    await until(alice, is_typing("bob", False), "the expiry", timeout=timeout)
    waited = time.monotonic() - start
    check(4.0 <= waited <= 8.0, "expired after %.1f s" % waited)
    for ws in (alice, carol, bob, dave):
        await ws.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    try:
        asyncio.run(run(args.url, args.timeout))
    except Failure as failure:
        print("FAIL: %s" % failure)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
