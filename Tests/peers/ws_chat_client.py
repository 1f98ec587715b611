#!/usr/bin/env python3
"""Drives switchboard's WebSocket JSON chat protocol with the python `websockets` client.

usage: ws_chat_client.py ws://127.0.0.1:PORT/ [--max-size BYTES] [--timeout SECONDS]

BYTES is the server's --max-message-size (default 16777216). The server must be
dedicated to this run (messages are told apart by a random tag, but presence and
member counts assume nobody else joins the room). Exit 0 when every check passes;
otherwise one line "FAIL: reason" and exit 1. Works with websockets 10.4 (Debian) and
the current releases (the asyncio implementation).
"""

import argparse
import asyncio
import base64
import json
import os
import signal
import socket
import struct
import sys
import time
import urllib.parse

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


class Peer:
    """A websockets connection plus a buffer, so frames that arrive in another order than
    the script expects them are kept for a later expect()."""

    def __init__(self, label, ws):
        self.label = label
        self.ws = ws
        self.buffer = []

    async def recv_raw(self, timeout):
        return await asyncio.wait_for(self.ws.recv(), timeout)

    async def expect(self, pred, what, timeout=10.0):
        for i, item in enumerate(self.buffer):
            if pred(item):
                return self.buffer.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"{self.label}: no {what} within {timeout:.0f}s (buffered: {summary(self.buffer)})")
            try:
                item = await self.recv_raw(left)
            except asyncio.TimeoutError:
                continue
            except websockets.ConnectionClosed as e:
                raise Failure(f"{self.label}: connection closed ({describe_close(e)}) while waiting for {what}")
            if isinstance(item, str):
                try:
                    parsed = json.loads(item)
                except ValueError:
                    parsed = None
                item = Frame(item, parsed)
            else:
                item = Frame(item, None)
            if pred(item):
                return item
            self.buffer.append(item)

    async def expect_json(self, type_, what=None, where=lambda d, f: True, timeout=10.0):
        def pred(f):
            return isinstance(f.obj, dict) and f.obj.get("type") == type_ and where(f.obj.get("data"), f.obj)
        f = await self.expect(pred, what or f"{type_} frame", timeout)
        return f.obj

    async def expect_nothing(self, pred, what, timeout):
        """Fails if a frame matching pred arrives within timeout."""
        try:
            f = await self.expect(pred, what, timeout)
        except Failure:
            return
        raise Failure(f"{self.label}: unexpected {what}: {short(f.raw)}")


class Frame:
    def __init__(self, raw, obj):
        self.raw = raw
        self.obj = obj

    @property
    def is_text(self):
        return isinstance(self.raw, str)


def short(x, n=120):
    if isinstance(x, bytes):
        return f"<{len(x)} bytes binary>"
    return x if len(x) <= n else x[:n] + f"...(+{len(x) - n})"


def summary(frames):
    return "[" + ", ".join(short(f.raw, 60) for f in frames[-6:]) + "]"


def describe_close(e):
    code = getattr(e, "code", None)
    rcvd = getattr(e, "rcvd", None)
    if rcvd is not None:
        code = rcvd.code
    return f"code {code}"


def extensions_of(ws):
    exts = getattr(ws, "extensions", None)
    if exts is None:
        exts = getattr(getattr(ws, "protocol", None), "extensions", [])
    return [type(x).__name__ for x in exts or []]


async def connect(url, label, compress=True):
    kwargs = dict(max_size=None, ping_interval=None, open_timeout=10, close_timeout=5)
    if not compress:
        kwargs["compression"] = None
    try:
        ws = await websockets.connect(url, **kwargs)
    except Exception as e:
        raise Failure(f"{label}: cannot connect to {url}: {e!r}")
    exts = extensions_of(ws)
    if compress:
        check(any("Deflate" in x for x in exts), f"{label}: permessage-deflate was not negotiated ({exts})")
    else:
        check(not exts, f"{label}: extensions negotiated although compression=None ({exts})")
    return Peer(label, ws)


def with_query(url, **params):
    parts = urllib.parse.urlsplit(url)
    q = urllib.parse.parse_qsl(parts.query)
    q += list(params.items())
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(q)))


def is_message(text, author=None):
    def where(d, _):
        return isinstance(d, dict) and d.get("text") == text and (author is None or d.get("author") == author)
    return where


def check_message_shape(d, text, author, label):
    for key, kind in (("id", int), ("room", str), ("time", int), ("text", str), ("author", str), ("color", str)):
        check(isinstance(d.get(key), kind) and not isinstance(d.get(key), bool),
              f"{label}: message field {key!r} missing or not {kind.__name__}: {d}")
    check(d["text"] == text and d["author"] == author, f"{label}: message {d} is not {author}: {text}")
    check(d["id"] >= 1, f"{label}: message id {d['id']} < 1")
    now = time.time() * 1000
    check(abs(d["time"] - now) < 120_000, f"{label}: message time {d['time']} is not ms since the epoch (now {now:.0f})")


# --- raw frames, for what a conforming client library refuses to send ---------------------

class RawClient:
    def __init__(self, url, timeout=10.0):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        self.sock.settimeout(timeout)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET {path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(req.encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            check(chunk, f"raw client: connection closed during the handshake ({self.buf[:80]!r})")
            self.buf += chunk
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        check(head.startswith(b"HTTP/1.1 101"), f"raw client: handshake answered {head[:60]!r}")

    def send_frame(self, opcode, payload, fin=True, declared_length=None):
        length = len(payload) if declared_length is None else declared_length
        b0 = (0x80 if fin else 0) | opcode
        if length < 126:
            head = struct.pack("!BB", b0, 0x80 | length)
        elif length < 65536:
            head = struct.pack("!BBH", b0, 0x80 | 126, length)
        else:
            head = struct.pack("!BBQ", b0, 0x80 | 127, length)
        mask = os.urandom(4)
        n = len(payload)
        key = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big") if n else b""
        try:
            self.sock.sendall(head + mask + masked)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before taking it all; the close frame is read next

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def read_frame(self):
        self._need(2)
        b0, b1 = self.buf[0], self.buf[1]
        check(not b1 & 0x80, "raw client: the server sent a masked frame")
        n = b1 & 0x7F
        off = 2
        if n == 126:
            self._need(4)
            n = struct.unpack("!H", self.buf[2:4])[0]
            off = 4
        elif n == 127:
            self._need(10)
            n = struct.unpack("!Q", self.buf[2:10])[0]
            off = 10
        self._need(off + n)
        payload = self.buf[off:off + n]
        self.buf = self.buf[off + n:]
        return b0 & 0x0F, payload

    def expect_close(self, code, what):
        """Reads frames until a close; checks its code and that the TCP connection ends."""
        try:
            while True:
                opcode, payload = self.read_frame()
                if opcode == 8:
                    got = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                    check(got == code, f"{what}: close code {got} ({payload[2:]!r}), expected {code}")
                    break
        except EOFError:
            raise Failure(f"{what}: TCP closed without a close frame (expected {code})")
        except socket.timeout:
            raise Failure(f"{what}: no close frame (expected {code}) within the timeout")
        # The server finishes the connection after its close frame.
        try:
            self.sock.settimeout(5)
            while self.sock.recv(65536):
                pass
        except (socket.timeout, ConnectionResetError):
            pass
        self.sock.close()


# --- the scenario ---------------------------------------------------------------------------

async def scenario(url, max_size):
    alice_name, bob_name = f"alice-{TAG}", f"bob-{TAG}"

    # A (permessage-deflate) joins: history first, with its epoch and recovered flag.
    a = await connect(url, "A", compress=True)
    hist = await a.expect_json("history")
    check(isinstance(hist.get("data"), list), f"A: history data is not an array: {short(json.dumps(hist))}")
    check("epoch" in hist and isinstance(hist["epoch"], (str, int)), f"A: history without an epoch: {hist}")
    check(isinstance(hist.get("recovered"), bool), f"A: history without a boolean recovered: {short(json.dumps(hist))}")

    # The name is the first plain text frame; the answer is a color frame.
    await a.ws.send(alice_name)
    color = await a.expect_json("color")
    check(isinstance(color.get("data"), str) and color["data"], f"A: color frame without a colour: {color}")

    # B (no compression) joins; A sees the presence join.
    b = await connect(url, "B", compress=False)
    await b.expect_json("history")
    await b.ws.send(bob_name)
    await b.expect_json("color")
    p = await a.expect_json("presence", "presence join of B",
                            lambda d, _: isinstance(d, dict) and d.get("event") == "join" and d.get("author") == bob_name)
    check("room" in p["data"] and "members" in p["data"], f"A: presence without room/members: {p}")

    # A message with a ref: the message frame to both (sender included), and an ack.
    text1 = f"hello with ref {TAG}"
    await a.ws.send(json.dumps({"type": "message", "data": {"text": text1, "ref": "r-1"}}))
    ma = await a.expect_json("message", "own message frame", is_message(text1, alice_name))
    check_message_shape(ma["data"], text1, alice_name, "A")
    mb = await b.expect_json("message", "A's message frame", is_message(text1, alice_name))
    check(mb["data"]["id"] == ma["data"]["id"], f"B: message id {mb['data']['id']} != A's {ma['data']['id']}")
    ack = await a.expect_json("ack", "ack for ref r-1", lambda d, _: isinstance(d, dict) and d.get("ref") == "r-1")
    check(ack["data"].get("id") == ma["data"]["id"], f"A: ack id {ack['data'].get('id')} != message id {ma['data']['id']}")
    await b.expect_nothing(lambda f: isinstance(f.obj, dict) and f.obj.get("type") == "ack", "ack sent to B", 0.3)

    # A numeric ref comes back as a number.
    text2 = f"numeric ref {TAG}"
    await b.ws.send(json.dumps({"type": "message", "data": {"text": text2, "ref": 42}}))
    m2 = await b.expect_json("message", "own message frame", is_message(text2, bob_name))
    ack2 = await b.expect_json("ack", "ack for ref 42", lambda d, _: isinstance(d, dict) and d.get("ref") == 42)
    check(ack2["data"]["id"] == m2["data"]["id"] == ma["data"]["id"] + 1,
          f"B: ids not consecutive: {ma['data']['id']} then {m2['data']['id']} (ack {ack2['data']['id']})")
    await a.expect_json("message", "B's message", is_message(text2, bob_name))

    # A plain (non-JSON) text frame after the name is a message (seed behaviour).
    text3 = f"plain text {TAG}"
    await b.ws.send(text3)
    await a.expect_json("message", "B's plain-text message", is_message(text3, bob_name))
    await b.expect_json("message", "own plain-text message", is_message(text3, bob_name))

    # A fragmented text message, from the compressing and from the plain client.
    frag = ["frag", "mented ", json.dumps(TAG), " message"]
    for sender, sname, other in ((a, alice_name, b), (b, bob_name, a)):
        await sender.ws.send(list(frag))
        whole = "".join(frag)
        await other.expect_json("message", f"fragmented message from {sender.label}", is_message(whole, sname))
        await sender.expect_json("message", "own fragmented message", is_message(whole, sname))

    # Non-ASCII text over both connections (compressed and not).
    text4 = f"grüße 👋 {TAG}"
    await a.ws.send(json.dumps({"type": "message", "data": {"text": text4}}, ensure_ascii=False))
    await b.expect_json("message", "non-ASCII message", is_message(text4, alice_name))

    # An unknown type: an error frame, and the connection stays open.
    await b.ws.send(json.dumps({"type": "no-such-type", "data": {}}))
    err = await b.expect_json("error")
    check(isinstance(err.get("data"), dict) and isinstance(err["data"].get("code"), str)
          and isinstance(err["data"].get("message"), str), f"B: error frame shape: {err}")
    text5 = f"still open {TAG}"
    await b.ws.send(json.dumps({"type": "message", "data": {"text": text5}}))
    await b.expect_json("message", "message after the error", is_message(text5, bob_name))
    await a.expect_json("message", "B's message after its error", is_message(text5, bob_name))

    # ?format=text: frames are exactly the sender's text; notify_self=1 echoes one's own.
    c = await connect(with_query(url, format="text", name=f"carol-{TAG}"), "C(text)", compress=False)
    d = await connect(with_query(url, format="text", notify_self="1", name=f"dave-{TAG}"), "D(text,notify_self)",
                      compress=True)
    await a.expect_json("presence", "presence join of D",
                        lambda dd, _: isinstance(dd, dict) and dd.get("author") == f"dave-{TAG}")
    text6 = f"to the text clients {TAG}"
    await a.ws.send(json.dumps({"type": "message", "data": {"text": text6}}))
    for peer in (c, d):
        f = await peer.expect(lambda f: f.is_text and TAG in f.raw, "a text frame", 10)
        check(f.raw == text6, f"{peer.label}: got {short(f.raw)!r}, expected exactly {text6!r}")
    text7 = f"from the text client {TAG}"
    await c.ws.send(text7)
    await a.expect_json("message", "C's message", is_message(text7, f"carol-{TAG}"))
    f = await d.expect(lambda f: f.is_text and TAG in f.raw, "C's message", 10)
    check(f.raw == text7, f"D: got {short(f.raw)!r}, expected {text7!r}")
    text8 = f"notify self {TAG}"
    await d.ws.send(text8)
    f = await d.expect(lambda f: f.is_text and TAG in f.raw, "own message (notify_self=1)", 10)
    check(f.raw == text8, f"D: got {short(f.raw)!r}, expected its own {text8!r}")
    f = await c.expect(lambda f: f.is_text and TAG in f.raw, "D's message", 10)
    check(f.raw == text8, f"C: got {short(f.raw)!r}, expected {text8!r}")
    # C (notify_self off) never gets its own text back: the next frame is A's.
    text9 = f"after carol {TAG}"
    await a.ws.send(json.dumps({"type": "message", "data": {"text": text9}}))
    f = await c.expect(lambda f: f.is_text and TAG in f.raw, "A's message", 10)
    check(f.raw == text9, f"C: got {short(f.raw)!r} (its own text echoed?), expected {text9!r}")
    await c.ws.close()
    await d.ws.close()

    # Binary: a message of the server's full size limit, relayed to the other member only.
    big = os.urandom(max_size)
    t0 = time.monotonic()
    await b.ws.send(big)
    got = await a.expect(lambda f: isinstance(f.raw, bytes), f"{max_size}-byte binary from B", 60)
    check(got.raw == big, f"A: binary of {len(got.raw)} bytes differs from the {len(big)} sent")
    t1 = time.monotonic()
    # ... and from the compressing client (incompressible data grows a little when deflated).
    await a.ws.send(big)
    got = await b.expect(lambda f: isinstance(f.raw, bytes), f"{max_size}-byte binary from A (deflate)", 60)
    check(got.raw == big, f"B: binary of {len(got.raw)} bytes differs from the {len(big)} sent")
    t2 = time.monotonic()
    await a.expect_nothing(lambda f: isinstance(f.raw, bytes), "own binary echoed to the sender", 0.5)
    await b.expect_nothing(lambda f: isinstance(f.raw, bytes), "own binary echoed to the sender", 0.1)
    big = None
    timings = f"16MiB relay {t1 - t0:.1f}s plain, {t2 - t1:.1f}s deflate"

    # Presence leave when B goes.
    await b.ws.close()
    await a.expect_json("presence", "presence leave of B",
                        lambda dd, _: isinstance(dd, dict) and dd.get("event") == "leave" and dd.get("author") == bob_name)

    # Raw frames: invalid UTF-8 in a text frame -> 1007.
    raw = RawClient(url)
    raw.send_frame(0x1, b"ok \xff\xfe not utf-8")
    raw.expect_close(1007, "invalid UTF-8 text frame")
    # ... also split across fragments, with the bad byte in the second one.
    raw = RawClient(url)
    raw.send_frame(0x1, "caf".encode(), fin=False)
    raw.send_frame(0x0, b"\xc3\x28", fin=True)
    raw.expect_close(1007, "invalid UTF-8 in a continuation frame")
    # A frame header declaring more than the limit -> 1009 (before any payload is sent).
    raw = RawClient(url)
    raw.send_frame(0x2, b"", declared_length=max_size + 1)
    raw.expect_close(1009, "frame over the limit")
    # A fragmented message whose total goes over the limit -> 1009.
    raw = RawClient(url)
    half = max_size // 2 + 1
    chunk = bytes(half)
    raw.send_frame(0x2, chunk, fin=False)
    raw.send_frame(0x0, chunk, fin=True)
    raw.expect_close(1009, "fragmented message over the limit")

    # A is still fine after all that.
    text10 = f"last {TAG}"
    await a.ws.send(text10)
    await a.expect_json("message", "own last message", is_message(text10, alice_name))
    await a.ws.close()
    return timings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", help="ws://127.0.0.1:PORT/ (or /rooms/NAME)")
    ap.add_argument("--max-size", type=int, default=16 * 1024 * 1024, help="the server's --max-message-size")
    ap.add_argument("--timeout", type=float, default=180, help="hard limit for the whole run")
    args = ap.parse_args()

    def on_alarm(*_):
        print(f"FAIL: hard timeout of {args.timeout:.0f}s")
        sys.stdout.flush()
        os._exit(1)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(args.timeout) + 1)
    started = time.monotonic()
    try:
        timings = asyncio.run(asyncio.wait_for(scenario(args.url, args.max_size), args.timeout))
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    except asyncio.TimeoutError:
        print(f"FAIL: timeout of {args.timeout:.0f}s")
        sys.exit(1)
    except Exception as e:
        print(f"FAIL: {type(e).__name__}: {e}")
        sys.exit(1)
    print(f"OK: ws_chat_client (websockets {websockets.__version__}) in {time.monotonic() - started:.1f}s; {timings}")


if __name__ == "__main__":
    main()
