#!/usr/bin/env python3
"""Clients through nginx in front of three `serve --redis` nodes (nginx-three-nodes.sh).

WebSocket (JSON protocol) and TCP line clients connect through nginx's HTTP and stream
ports and must land on every node; every client sees every message, the WebSocket ones
with the same ids in the same order. Then node 1 is killed (SIGKILL, by the PID the
script started it with) and new clients through nginx must still connect and talk.
Every wait has a deadline; exit 0 passed, 1 failed (the reason on stderr).
"""
import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request

import websockets

DEADLINE = 15.0
ROOM = "ops"


class Failure(Exception):
    pass


def established(port):
    """Established TCP connections whose local port is `port` (a node's side of nginx's)."""
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                         capture_output=True, text=True, check=True).stdout
    return len([line for line in out.splitlines() if line.strip()])


class WSClient:
    def __init__(self, name):
        self.name = name
        self.messages = []  # (id, text)
        self.ws = None
        self.reader = None
        self.closed = False

    async def open(self, port):
        self.ws = await asyncio.wait_for(
            websockets.connect(f"ws://127.0.0.1:{port}/rooms/{ROOM}?name={self.name}", open_timeout=DEADLINE),
            DEADLINE)
        history = asyncio.Event()
        self.reader = asyncio.create_task(self._read(history))
        await asyncio.wait_for(history.wait(), DEADLINE)

    async def _read(self, history):
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                if frame.get("type") == "history":
                    history.set()
                elif frame.get("type") == "message":
                    self.messages.append((frame["data"]["id"], frame["data"]["text"]))
        except websockets.ConnectionClosed:
            pass
        self.closed = True

    async def send(self, text):
        await self.ws.send(json.dumps({"type": "message", "data": {"text": text}}))

    def texts(self):
        return {t for _, t in self.messages}

    async def close(self):
        await self.ws.close()
        self.reader.cancel()


class LineClient:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.closed = False

    async def open(self, port):
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), DEADLINE)
        self.writer.write(f"iam:{self.name}\n/join {ROOM}\n".encode())
        await self.writer.drain()
        while True:
            line = await asyncio.wait_for(self.reader.readline(), DEADLINE)
            if not line:
                raise Failure(f"{self.name}: closed before joining")
            if line.decode().startswith(f"* you are now in {ROOM}"):
                break
        self.task = asyncio.create_task(self._read())

    async def _read(self):
        try:
            while line := await self.reader.readline():
                self.lines.append(line.decode().rstrip("\n"))
        except OSError:  # a reset: the node went away
            pass
        self.closed = True

    async def send(self, text):
        self.writer.write(f"msg:{text}\n".encode())
        await self.writer.drain()

    def texts(self):
        return {line.split(": ", 1)[1] for line in self.lines if ": " in line and not line.startswith("* ")}

    async def close(self):
        self.writer.close()
        self.task.cancel()


async def wait_for(what, check):
    """Waits until `check()` is true, up to the deadline."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not check():
        if loop.time() > end:
            raise Failure(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def round_of(tag, port_http, port_tcp, count, per_client, node_http, node_tcp, nodes_expected):
    """Opens `count` clients of each kind through nginx, checks where they landed, has each
    send `per_client` messages and checks what everyone received. Returns the ids seen."""
    before_http = [established(p) for p in node_http]
    before_tcp = [established(p) for p in node_tcp]
    ws = [WSClient(f"{tag}ws{i}") for i in range(count)]
    tcp = [LineClient(f"{tag}tcp{i}") for i in range(count)]
    for c in ws:
        await c.open(port_http)
    for c in tcp:
        await c.open(port_tcp)
    landed_http = [established(p) - b for p, b in zip(node_http, before_http)]
    landed_tcp = [established(p) - b for p, b in zip(node_tcp, before_tcp)]
    print(f"{tag}: WebSocket clients per node {landed_http}, TCP line clients per node {landed_tcp}")
    for i, (h, t) in enumerate(zip(landed_http, landed_tcp)):
        if (i in nodes_expected) != (h > 0) or (i in nodes_expected) != (t > 0):
            raise Failure(f"{tag}: clients landed on nodes {landed_http} / {landed_tcp}, expected nodes {sorted(nodes_expected)}")
    sent = []
    for c in ws + tcp:
        for k in range(per_client):
            text = f"{c.name}-m{k}"
            sent.append((c.name, text))
            await c.send(text)
    everything = {t for _, t in sent}
    for c in ws:
        await wait_for(f"{c.name} to see all {len(everything)} messages", lambda c=c: everything <= c.texts())
    for c in tcp:
        others = {t for n, t in sent if n != c.name}
        await wait_for(f"{c.name} to see the {len(others)} messages of the others", lambda c=c, o=others: o <= c.texts())
    # The WebSocket clients see ids: one id per message, the same everywhere, in one order.
    reference = [m for m in ws[0].messages if m[1] in everything]
    for c in ws:
        mine = [m for m in c.messages if m[1] in everything]
        if mine != reference:
            raise Failure(f"{tag}: {c.name} saw {mine}, {ws[0].name} saw {reference}")
    ids = [i for i, _ in reference]
    if len(set(ids)) != len(everything) or ids != sorted(ids):
        raise Failure(f"{tag}: ids {ids} are not distinct and increasing")
    print(f"{tag}: {len(ws)} WebSocket and {len(tcp)} TCP clients saw all {len(everything)} messages (ids {ids[0]}…{ids[-1]})")
    return ws, tcp, ids, landed_http[0] + landed_tcp[0]


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nginx-http", type=int, required=True)
    ap.add_argument("--nginx-tcp", type=int, required=True)
    ap.add_argument("--node-http", required=True, help="three ports, comma separated")
    ap.add_argument("--node-tcp", required=True)
    ap.add_argument("--kill-pid", type=int, required=True, help="node 1's PID")
    a = ap.parse_args()
    node_http = [int(p) for p in a.node_http.split(",")]
    node_tcp = [int(p) for p in a.node_tcp.split(",")]

    with urllib.request.urlopen(f"http://127.0.0.1:{a.nginx_http}/healthz", timeout=DEADLINE) as r:
        if r.status != 200:
            raise Failure(f"/healthz through nginx: {r.status}")

    ws, tcp, ids, on_node1 = await round_of("a", a.nginx_http, a.nginx_tcp, 6, 2, node_http, node_tcp, {0, 1, 2})

    os.kill(a.kill_pid, signal.SIGKILL)
    await wait_for("node 1's connections to go", lambda: established(node_http[0]) == 0 and established(node_tcp[0]) == 0)
    print("node 1 killed")
    ws2, tcp2, ids2, _ = await round_of("b", a.nginx_http, a.nginx_tcp, 6, 1, node_http, node_tcp, {1, 2})
    if min(ids2) <= max(ids):
        raise Failure(f"ids after the kill ({ids2}) do not continue after {max(ids)}")
    # The first clients: node 1's were cut off, the others still get everything.
    cut = [c.name for c in ws + tcp if c.closed]
    if len(cut) != on_node1:
        raise Failure(f"expected node 1's {on_node1} clients to be cut off, got {cut}")
    later = {f"{c.name}-m0" for c in ws2 + tcp2}
    for c in ws + tcp:
        if not c.closed:
            await wait_for(f"{c.name} (node 2 or 3) to see the messages sent after the kill", lambda c=c: later <= c.texts())
    print(f"a: node 1's clients {cut} were cut off; the other 8 saw the {len(later)} messages sent after the kill")
    for c in ws + tcp + ws2 + tcp2:
        try:
            await c.close()
        except Exception:
            pass


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Failure as e:
        print(f"nginx_clients.py: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    print("nginx_clients.py: passed")
