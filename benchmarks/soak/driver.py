#!/usr/bin/env python3
"""The soak's load: one `switchboard serve` under mixed, faulty traffic for a fixed time.

usage: driver.py --bin SWITCHBOARD --minutes M [--plot FILE.svg] [--work DIR] [--rate R]

Starts the server on loopback ports the kernel picks (`serve … any`) with SQLite history
in WORK/data, then runs until M minutes have passed:

  well-behaved senders   JSON WebSocket (acked by `ack`), TCP lines (acked by the `/who`
                         reply that follows a batch), UDP (address proven, then acked by
                         `Server received:`),
                         WebSocket text dialect with notify_self=1 (acked by the echo);
                         every message text is a unique token
  resuming receivers     JSON WebSocket clients that reconnect to /rooms/R?since=K&epoch=E,
                         and `switchboard chat --pipe` (the client library's ChatClient)
  faults                 every client disconnects at random moments (half of them with a
                         TCP reset) and comes back; bad clients replay rows of
                         docs/BAD-INPUT.md and check the documented answer; at half time
                         the server gets SIGTERM and is started again on the same ports
                         and data directory

Every 2 s it samples the server's open descriptors and RSS from /proc (WORK/samples.csv),
every 10 s the /metrics gauges (WORK/metrics.csv), with --heap every 5 minutes glibc's and
SQLite's heap through gdb (WORK/heap.csv). WORK/trace.log has every receiver's connects
(with since and epoch), the ids each history frame replayed, any repeated id or jump in
the live ids, and what a bad client got when it was not its answer. At the end the
senders stop, the receivers get up to 30 s to catch up, and it prints the figures: a
message is lost when its sender saw it acknowledged and a resuming receiver of its room
never received it. Exit 0 when nothing was lost, nothing was duplicated, the server never
died on its own and every bad client got its answer; 1 otherwise.
"""

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import time

try:
    from websockets.asyncio.client import connect as ws_connect
except ImportError:  # pragma: no cover
    print("soak: the python module websockets (13 or later) is needed: pip install websockets")
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import badclients  # noqa: E402
import plot  # noqa: E402

ROOMS = ["lobby", "soak-b"]  # lobby is the default room: UDP senders land there after a restart
TOKEN = re.compile(r"\b(s[0-9a-z]+-[0-9]+)\b")


class Ledger:
    """What was sent, acknowledged and received, per room."""

    def __init__(self):
        self.sent = 0
        self.acked = {room: set() for room in ROOMS}
        self.acked_by_dialect = {}
        self.unacked = 0
        self.received = 0

    def ack(self, room, token, dialect):
        self.acked[room].add(token)
        self.acked_by_dialect[dialect] = self.acked_by_dialect.get(dialect, 0) + 1


class Server:
    """The `switchboard serve` process; restarted on the same ports and data directory."""

    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        # `any` at the first start (the kernel picks; serve writes what it bound to the
        # ports file, docs/OPERATIONS.md "Ports"); the restart reuses those numbers.
        self.tcp = self.udp = self.http = "any"
        self.ports_file = os.path.join(work, "ports.json")
        self.proc = None
        self.log = open(os.path.join(work, "server.log"), "ab")
        self.starts = 0
        self.unexpected_exits = []
        self.stopping = False

    def args(self):
        return [
            self.binary, "serve", "--no-advertise", "--host", "127.0.0.1",
            "--tcp-port", str(self.tcp), "--udp-port", str(self.udp), "--http-port", str(self.http),
            "--data-dir", os.path.join(self.work, "data"), "--history", "5000",
            "--log-level", "notice", "--ports-file", self.ports_file,
        ]

    async def start(self, deadline=20.0):
        self.proc = subprocess.Popen(self.args(), stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        self.starts += 1
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} at start (see server.log)")
            try:
                with open(self.ports_file) as f:
                    ports = json.load(f)
                self.tcp, self.udp, self.http = ports["tcp"], ports["udp"], ports["http"]
            except (OSError, ValueError):
                await asyncio.sleep(0.05)
                continue
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.http), 1)
                w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                body = await asyncio.wait_for(r.read(), 2)
                w.close()
                if b" 200 " in body.split(b"\r\n", 1)[0]:
                    return
            except (OSError, asyncio.TimeoutError):
                pass
            await asyncio.sleep(0.1)
        raise RuntimeError("server did not answer /healthz within 20 s")

    async def stop(self, deadline=20.0):
        """SIGTERM and wait; SIGKILL (and report) if it does not exit in time."""
        self.stopping = True
        self.proc.send_signal(signal.SIGTERM)
        end = time.monotonic() + deadline
        while self.proc.poll() is None and time.monotonic() < end:
            await asyncio.sleep(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            self.unexpected_exits.append("did not exit within 20 s of SIGTERM (killed)")
        elif self.proc.returncode != 0:
            self.unexpected_exits.append(f"exit {self.proc.returncode} after SIGTERM")
        self.stopping = False

    def check_alive(self):
        if self.proc and not self.stopping and self.proc.poll() is not None:
            self.unexpected_exits.append(f"died with {self.proc.returncode}")
            return False
        return True

    def sample(self):
        pid = self.proc.pid
        try:
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            rss = 0
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
            return fds, rss
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            return None


class Soak:
    def __init__(self, args):
        self.args = args
        self.ledger = Ledger()
        self.running = True
        self.rng = random.Random(args.seed)
        self.receivers = []
        self.disconnects = {"clean": 0, "reset": 0}
        self.connect_failures = 0
        self.resumes = 0
        self.gaps = 0
        self.epochs = {}
        self.samples = []  # (seconds, fds, rss KiB, server start number)
        self.events = []  # (seconds, label)
        self.t0 = time.monotonic()
        self.bad = badclients.Tally(self.trace)
        self.listened = 0

    def trace(self, line):
        if not hasattr(self, "trace_file"):
            self.trace_file = open(os.path.join(self.args.work, "trace.log"), "a")
        self.trace_file.write(f"{self.now():9.3f} {line}\n")
        self.trace_file.flush()

    def now(self):
        return time.monotonic() - self.t0

    def lifetime(self):
        return self.rng.uniform(3, 40)

    async def pause(self, seconds):
        end = time.monotonic() + seconds
        while self.running and time.monotonic() < end:
            await asyncio.sleep(min(0.2, end - time.monotonic()))

    # --- well-behaved senders -------------------------------------------------------------

    async def ws_sender(self, room, url, dialect, prefix, send_one):
        """Connect, send until the connection's lifetime ends, leave, come back. `send_one`
        sends the message `token` (number `seq`) and returns whether it was acknowledged."""
        seq = 0
        while self.running:
            try:
                async with ws_connect(url, max_size=None, open_timeout=5, ping_interval=None) as ws:
                    end = time.monotonic() + self.lifetime()
                    while self.running and time.monotonic() < end:
                        seq += 1
                        token = f"{prefix}-{seq}"
                        self.ledger.sent += 1
                        if not await send_one(ws, token, seq):
                            self.ledger.unacked += 1
                            break
                        self.ledger.ack(room, token, dialect)
                        await asyncio.sleep(self.rng.expovariate(self.args.rate))
                    await self.leave(ws.transport, ws)
            except Exception:
                self.connect_failures += 1
            await self.pause(self.rng.uniform(0.05, 2))

    async def json_sender(self, n, room):
        """JSON messages with a `ref`, acknowledged by the `ack` that carries it back."""
        async def send_one(ws, token, seq):
            await ws.send(json.dumps({"type": "message", "data": {"text": token, "ref": seq}}))
            return await self.await_json_ack(ws, seq, 5)
        url = f"ws://127.0.0.1:{self.server.http}/rooms/{room}?name=json{n}"
        await self.ws_sender(room, url, "json", f"sj{n}", send_one)

    async def text_sender(self, n, room):
        """Text-dialect messages, acknowledged by their own echo (notify_self=1)."""
        async def send_one(ws, token, seq):
            await ws.send(token)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                if await asyncio.wait_for(ws.recv(), deadline - time.monotonic()) == token:
                    return True
            return False
        url = f"ws://127.0.0.1:{self.server.http}/rooms/{room}?format=text&notify_self=1"
        await self.ws_sender(room, url, "ws-text", f"st{n}", send_one)

    async def await_json_ack(self, ws, ref, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            raw = await asyncio.wait_for(ws.recv(), end - time.monotonic())
            frame = json.loads(raw)
            if frame.get("type") == "ack" and frame["data"].get("ref") == ref:
                return True
        return False

    async def line_sender(self, n, room):
        seq = 0
        while self.running:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.server.tcp), 5)
                writer.write(f"iam:line{n}\n/join {room}\n".encode())
                await expect_line(reader, f"* you are now in {room}", 5)
                end = time.monotonic() + self.lifetime()
                while self.running and time.monotonic() < end:
                    batch = []
                    for _ in range(5):
                        seq += 1
                        batch.append(f"sl{n}-{seq}")
                    self.ledger.sent += len(batch)
                    writer.write("".join(f"msg:{t}\n" for t in batch).encode() + b"/who\n")
                    if await expect_line(reader, f"* in {room} (", 5):
                        for t in batch:
                            self.ledger.ack(room, t, "line")
                    else:
                        self.ledger.unacked += len(batch)
                        break
                    await asyncio.sleep(self.rng.expovariate(self.args.rate / 5))
                await self.leave(writer.transport, None)
            except Exception:
                self.connect_failures += 1
            await self.pause(self.rng.uniform(0.05, 2))

    async def udp_prove(self, sock, loop):
        """The address proof a UDP sender makes before it is a member (docs/PROTOCOLS.md):
        a padded `/ok` until the server offers a code, `/ok CODE` until it accepts; each
        resent every 250 ms, for up to 10 s. Before it the server publishes nothing of the
        address, though it echoes everything."""
        datagram = b"/ok" + b" " * 61
        end = time.monotonic() + 10
        while self.running and time.monotonic() < end:
            try:
                sock.send(datagram)
            except OSError:
                pass
            resend = time.monotonic() + 0.25
            while time.monotonic() < resend:
                try:
                    data = await asyncio.wait_for(loop.sock_recv(sock, 70000), resend - time.monotonic())
                except (asyncio.TimeoutError, OSError):
                    break
                line = data.rstrip(b"\r\n")
                if line.startswith(b"* ok, you are in "):
                    return True
                if line.startswith(b"* send /ok ") and line.endswith(b" to chat"):
                    datagram = line[len(b"* send "):-len(b" to chat")]
                    break
        return False

    async def udp_sender(self, n):
        """Sends to the default room (a restart forgets a datagram member's room, and its
        proof: the sender proves its address again after each start of the server, before
        its next message — with no await between the check and the send, so no message
        reaches a new server unproven)."""
        room = ROOMS[0]
        seq = 0
        loop = asyncio.get_running_loop()
        while self.running:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setblocking(False)
            sock.connect(("127.0.0.1", self.server.udp))
            proven = None  # the server start the address is proven to
            try:
                end = time.monotonic() + self.lifetime()
                while self.running and time.monotonic() < end:
                    if proven != self.server.starts:
                        start = self.server.starts
                        if await self.udp_prove(sock, loop):
                            proven = start
                        continue
                    seq += 1
                    token = f"su{n}-{seq}"
                    self.ledger.sent += 1
                    sock.send(f"msg:{token}\n".encode())
                    want = f"Server received: msg:{token}".encode()
                    deadline = time.monotonic() + 3
                    acked = False
                    while time.monotonic() < deadline and not acked:
                        try:
                            data = await asyncio.wait_for(loop.sock_recv(sock, 70000), deadline - time.monotonic())
                        except (asyncio.TimeoutError, ConnectionRefusedError):
                            break
                        acked = data.rstrip(b"\r\n") == want
                    if acked:
                        self.ledger.ack(room, token, "udp")
                    else:
                        self.ledger.unacked += 1
                    await asyncio.sleep(self.rng.expovariate(self.args.rate))
            finally:
                sock.close()
            self.disconnects["clean"] += 1

    async def listener(self, n, room):
        """A member that only reads (text dialect, no resume): fan-out load and churn."""
        url = f"ws://127.0.0.1:{self.server.http}/rooms/{room}?format=text"
        while self.running:
            try:
                async with ws_connect(url, max_size=None, open_timeout=5, ping_interval=None) as ws:
                    end = time.monotonic() + self.lifetime()
                    while self.running and time.monotonic() < end:
                        try:
                            await asyncio.wait_for(ws.recv(), 0.5)
                            self.listened += 1
                        except asyncio.TimeoutError:
                            pass
                    await self.leave(ws.transport, ws)
            except Exception:
                self.connect_failures += 1
            await self.pause(self.rng.uniform(0.05, 2))

    async def leave(self, transport, ws):
        """Half the time a clean close, half the time a TCP reset."""
        if self.rng.random() < 0.5:
            self.disconnects["clean"] += 1
            if ws is not None:
                await ws.close()
            else:
                transport.close()
        else:
            self.disconnects["reset"] += 1
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()

    # --- resuming receivers ---------------------------------------------------------------

    async def json_receiver(self, n, room):
        got = {}  # token -> count
        state = {"room": room, "kind": f"json receiver {n}", "got": got, "last": 0, "epoch": None, "dups": 0}
        self.receivers.append(state)
        first = True
        while self.running or self.draining(state):
            url = f"ws://127.0.0.1:{self.server.http}/rooms/{room}?name=recv{n}&since={state['last']}"
            if state["epoch"]:
                url += f"&epoch={state['epoch']}"
            try:
                async with ws_connect(url, max_size=None, open_timeout=5, ping_interval=None) as ws:
                    state["conn"] = state.get("conn", 0) + 1
                    self.trace(f"{state['kind']} connect #{state['conn']} since={state['last']} epoch={state['epoch']}")
                    if not first:
                        self.resumes += 1
                    first = False
                    end = time.monotonic() + (self.lifetime() if self.running else 60)
                    while time.monotonic() < end and (self.running or self.draining(state)):
                        try:
                            raw = await asyncio.wait_for(ws.recv(), 0.5)
                        except asyncio.TimeoutError:
                            continue
                        frame = json.loads(raw)
                        if frame.get("type") == "history":
                            ids = [m.get("id") for m in frame["data"]]
                            self.trace(f"{state['kind']} #{state['conn']} history n={len(ids)} ids={ids[:1]}..{ids[-1:]} recovered={frame.get('recovered')} epoch={frame.get('epoch')}")
                            if frame.get("recovered") is False:
                                self.gaps += 1
                            epoch = frame.get("epoch")
                            if state["epoch"] and epoch != state["epoch"]:
                                self.epochs[epoch] = self.epochs.get(epoch, 0) + 1
                                # A new epoch numbers its messages from 1 again: a repeat
                                # is an (epoch, id) seen before, as ChatClient counts it.
                                state["last"] = 0
                            state["epoch"] = epoch
                            for m in frame["data"]:
                                self.take(state, m, "history")
                        elif frame.get("type") == "message":
                            self.take(state, frame["data"], "live")
                    if self.running:
                        await self.leave(ws.transport, ws)
            except Exception:
                self.connect_failures += 1
            await asyncio.sleep(self.rng.uniform(0.05, 2) if self.running else 0.2)

    def take(self, state, m, source):
        mid = m.get("id", 0)
        if mid <= state["last"]:
            state["dups"] += 1
            # Kept for the report: when, which id, in a history frame or live.
            state.setdefault("dup_ids", []).append(f"{mid}@{self.now():.0f}s({source},last {state['last']})")
            self.trace(f"{state['kind']} #{state.get('conn')} DUP id={mid} {source} last={state['last']} text={m.get('text')!r} author={m.get('author')!r}")
            return
        if source == "live" and state["last"] and mid != state["last"] + 1:
            self.trace(f"{state['kind']} #{state.get('conn')} JUMP live id={mid} last={state['last']}")
        state["last"] = mid
        token = m.get("text", "")
        if not TOKEN.fullmatch(token):
            # Not a sender's token: chat of a bad client in the default room (the lines of
            # an HTTP request sent to the line port after the name wait). Such texts repeat,
            # and counting them made the first 30-minute run's 12 "duplicates".
            state["others"] = state.get("others", 0) + 1
            return
        state["got"][token] = state["got"].get(token, 0) + 1
        self.ledger.received += 1

    def draining(self, state):
        """After the load: keep receiving until every acked message of the room arrived."""
        return time.monotonic() < self.drain_end and not self.ledger.acked[state["room"]] <= state["got"].keys()

    async def chat_receiver(self, room):
        """`switchboard chat --pipe` (ChatClient over ws): resumes by itself; prints AUTHOR: TEXT."""
        got = {}
        state = {"room": room, "kind": "switchboard chat --pipe", "got": got, "last": 0, "epoch": None, "dups": 0}
        self.receivers.append(state)
        proc = await asyncio.create_subprocess_exec(
            self.args.bin, "chat", f"ws://127.0.0.1:{self.server.http}/", "--room", room, "--name", "chatpipe", "--pipe",
            "--log-level", "info",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(os.path.join(self.args.work, "chat.log"), "ab"))
        self.chat_proc = proc

        async def read():
            while True:
                line = await proc.stdout.readline()
                if not line:
                    return
                m = TOKEN.search(line.decode(errors="replace"))
                if m:
                    t = m.group(1)
                    if t in got:
                        # Counted once, by got[t] below (the report adds got's repeats).
                        traced = state["traced"] = state.get("traced", 0) + 1
                        if traced <= 200:
                            self.trace(f"switchboard chat --pipe DUP {line.decode(errors='replace').rstrip()!r}")
                    got[t] = got.get(t, 0) + 1
        reader = asyncio.create_task(read())
        while self.running or self.draining(state):
            await asyncio.sleep(0.3)
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
        reader.cancel()

    # --- faults and sampling ----------------------------------------------------------------

    async def sampler(self):
        while self.running:
            s = self.server.sample() if self.server.check_alive() else None
            if s:
                self.samples.append((self.now(), s[0], s[1], self.server.starts))
            await asyncio.sleep(2)

    async def metrics_sampler(self):
        """Every 10 s: the gauges that could explain a growing RSS (timers, watched
        descriptors, queued output, history writer queue, members, rooms), summed over
        loops, into WORK/metrics.csv."""
        names = ["switchboard_loop_timers", "switchboard_loop_descriptors", "switchboard_write_queue_bytes",
                 "switchboard_history_write_queue", "switchboard_members", "switchboard_rooms",
                 "switchboard_tcp_connections_open", "switchboard_websocket_connections_open"]
        path = os.path.join(self.args.work, "metrics.csv")
        with open(path, "w") as f:
            f.write("seconds,rss_kib," + ",".join(n.removeprefix("switchboard_") for n in names) + "\n")
        while self.running:
            await self.pause(10)
            try:
                text = await fetch_metrics(self.server.http)
            except (OSError, asyncio.TimeoutError):
                continue
            sums = dict.fromkeys(names, 0.0)
            for line in text.splitlines():
                if line.startswith("#"):
                    continue
                name = line.split("{", 1)[0].split(" ", 1)[0]
                if name in sums:
                    try:
                        sums[name] += float(line.rsplit(" ", 1)[1])
                    except ValueError:
                        pass
            sample = self.server.sample()
            with open(path, "a") as f:
                f.write(f"{self.now():.0f},{sample[1] if sample else ''}," + ",".join(f"{sums[n]:g}" for n in names) + "\n")

    async def heap_sampler(self):
        """With --heap: every 5 minutes, gdb attaches for a moment (about a second under
        load) and asks the server's glibc (`malloc_stats`, written to its stderr, that is
        server.log) and SQLite (`sqlite3_memory_used`) how much heap they use; into
        WORK/heap.csv beside VmRSS."""
        path = os.path.join(self.args.work, "heap.csv")
        with open(path, "w") as f:
            f.write("seconds,rss_kib,malloc_system_bytes,malloc_in_use_bytes,sqlite_bytes\n")
        log = os.path.join(self.args.work, "server.log")
        while self.running:
            await self.pause(300)
            while self.running and self.server.stopping:
                await asyncio.sleep(0.2)  # the restart: sample the new process
            if not self.running:
                break
            pid = self.server.proc.pid
            before = os.path.getsize(log)
            proc = await asyncio.create_subprocess_exec(
                "gdb", "-nx", "-batch", "-iex", "set auto-solib-add off", "-p", str(pid),
                "-ex", "sharedlibrary libc.so", "-ex", "sharedlibrary libsqlite3",
                "-ex", "print (long long)sqlite3_memory_used()", "-ex", "call (void)malloc_stats()",
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            out, _ = await proc.communicate()
            sqlite = re.search(rb"^\$1 = (\d+)", out, re.M)
            await asyncio.sleep(0.5)
            with open(log, "rb") as f:
                f.seek(before)
                text = f.read()
            total = re.search(rb"Total \(incl. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)", text)
            sample = self.server.sample()
            with open(path, "a") as f:
                f.write(f"{self.now():.0f},{sample[1] if sample else ''},{total.group(1).decode() if total else ''},"
                        f"{total.group(2).decode() if total else ''},{sqlite.group(1).decode() if sqlite else ''}\n")

    async def restarter(self, at):
        await self.pause(at)
        if not self.running:
            return
        self.events.append((self.now(), "SIGTERM"))
        self.trace("SIGTERM")
        await self.server.stop()
        await self.server.start()
        self.events.append((self.now(), "started again"))
        self.trace("started again")

    async def bad_clients(self):
        while self.running:
            row = self.rng.choice(badclients.ROWS)
            await self.bad.run(row, self.server)
            await self.pause(self.rng.uniform(0.2, 1.5))

    async def run(self):
        work = self.args.work
        os.makedirs(os.path.join(work, "data"), exist_ok=True)
        self.server = Server(self.args.bin, work)
        await self.server.start()
        self.events.append((self.now(), "started"))
        duration = self.args.minutes * 60
        self.drain_end = float("inf")
        tasks = [asyncio.create_task(self.sampler()), asyncio.create_task(self.metrics_sampler())]
        if self.args.heap:
            tasks.append(asyncio.create_task(self.heap_sampler()))
        for i, room in enumerate(ROOMS):
            for k in range(2):
                tasks.append(asyncio.create_task(self.json_receiver(f"{i}{k}", room)))
        tasks.append(asyncio.create_task(self.chat_receiver(ROOMS[0])))
        await asyncio.sleep(1)  # receivers first: they start from since=0 anyway
        for i, room in enumerate(ROOMS):
            tasks.append(asyncio.create_task(self.json_sender(i, room)))
            tasks.append(asyncio.create_task(self.line_sender(i, room)))
            tasks.append(asyncio.create_task(self.text_sender(i, room)))
        for i in range(2):
            tasks.append(asyncio.create_task(self.udp_sender(i)))
        for i in range(self.args.listeners):
            tasks.append(asyncio.create_task(self.listener(i, ROOMS[i % len(ROOMS)])))
        for _ in range(2):
            tasks.append(asyncio.create_task(self.bad_clients()))
        tasks.append(asyncio.create_task(self.restarter(duration / 2)))
        await asyncio.sleep(duration)
        self.drain_end = time.monotonic() + 30
        self.running = False
        self.events.append((self.now(), "load stopped"))
        await asyncio.wait(tasks, timeout=90)
        final = self.server.sample()
        if final:
            self.samples.append((self.now(), final[0], final[1], self.server.starts))
        self.server.check_alive()
        await self.server.stop()
        return self.report()

    def report(self):
        lost = 0
        dups = 0
        out = []
        out.append(f"soak: {self.args.minutes} min, server restarted {self.server.starts - 1}x")
        for r in self.receivers:
            missing = self.ledger.acked[r["room"]] - r["got"].keys()
            extra = sum(c - 1 for c in r["got"].values() if c > 1) + r["dups"]
            lost += len(missing)
            dups += extra
            line = f"  receiver {r['kind']:<24} room {r['room']:<7} received {len(r['got']):>7}  lost {len(missing)}  duplicates {extra}"
            if r.get("others"):
                line += f"  (and {r['others']} bad clients' texts, not counted)"
            if missing:
                line += "  e.g. " + ", ".join(sorted(missing)[:5])
            if r.get("dup_ids"):
                line += "  ids " + ", ".join(r["dup_ids"][:6])
            out.append(line)
        acked = sum(len(s) for s in self.ledger.acked.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.ledger.acked_by_dialect.items()))
        out.append(f"messages: sent {self.ledger.sent}, acked {acked} ({by}), not acked (connection cut first) {self.ledger.unacked}")
        out.append(f"listeners ({self.args.listeners}, text dialect, no resume) received {self.listened}")
        out.append(f"lost by well-behaved clients: {lost}   duplicates: {dups}   history gaps reported: {self.gaps}")
        out.append(f"disconnects: {self.disconnects['clean']} clean, {self.disconnects['reset']} reset; resumes {self.resumes}; "
                   f"failed or cut connections {self.connect_failures}; epoch changes {sum(self.epochs.values())}")
        out.extend(self.bad.lines())
        for t in badclients.TRACE:
            self.trace(t)
        if self.samples:
            fds = [s[1] for s in self.samples]
            rss = [s[2] for s in self.samples]
            out.append(f"fds: start {fds[0]}, peak {max(fds)}, end {fds[-1]}")
            out.append(f"RSS MiB: start {rss[0] / 1024:.1f}, peak {max(rss) / 1024:.1f}, end {rss[-1] / 1024:.1f}")
            second = [s for s in self.samples if s[3] == self.server.starts]
            if second:
                out.append(f"after the restart: RSS MiB start {second[0][2] / 1024:.1f}, peak {max(s[2] for s in second) / 1024:.1f}, "
                           f"end {second[-1][2] / 1024:.1f}; fds peak {max(s[1] for s in second)}")
        if self.server.unexpected_exits:
            out.append("server: " + "; ".join(self.server.unexpected_exits))
        ok = lost == 0 and dups == 0 and not self.server.unexpected_exits and self.bad.failures == 0
        out.append("PASS" if ok else "FAIL")
        if self.args.plot:
            with open(self.args.plot, "w") as f:
                f.write(plot.svg(self.samples, self.events, f"switchboard soak, {self.args.minutes} min"))
            out.append(f"plot: {self.args.plot}")
        with open(os.path.join(self.args.work, "samples.csv"), "w") as f:
            f.write("seconds,fds,rss_kib,start\n")
            for s in self.samples:
                f.write(f"{s[0]:.1f},{s[1]},{s[2]},{s[3]}\n")
        print("\n".join(out), flush=True)
        return 0 if ok else 1


async def fetch_metrics(port):
    r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
    try:
        w.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = await asyncio.wait_for(r.read(), 5)
    finally:
        w.close()
    return data.split(b"\r\n\r\n", 1)[-1].decode(errors="replace")


async def expect_line(reader, prefix, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            line = await asyncio.wait_for(reader.readline(), end - time.monotonic())
        except asyncio.TimeoutError:
            return False
        if not line:
            return False
        if line.decode(errors="replace").startswith(prefix):
            return True
    return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--minutes", type=float, required=True)
    p.add_argument("--plot")
    p.add_argument("--work", required=True)
    p.add_argument("--rate", type=float, default=4.0, help="messages per second per sender")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--heap", action="store_true", help="every 5 min: malloc_stats and SQLite's heap via gdb")
    p.add_argument("--listeners", type=int, default=40, help="read-only WebSocket members")
    args = p.parse_args()
    if args.minutes <= 0 or args.minutes > 24 * 60:
        p.error("MINUTES must be in (0, 1440]")
    soak = Soak(args)
    try:
        code = asyncio.run(soak.run())
    finally:
        for proc in (getattr(soak, "server", None) and soak.server.proc, getattr(soak, "chat_proc", None)):
            if proc is not None and proc.returncode is None:
                proc.kill()
    sys.exit(code)


if __name__ == "__main__":
    main()
