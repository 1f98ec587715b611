"""Bad clients for the soak: rows of docs/BAD-INPUT.md, each sent to the running server and
its answer checked (the same answers BadInputTests asserts, here under load and across a
restart). Bad clients use the room `soak-bad` (or none), never the rooms the well-behaved
receivers count — except a request on the line port that came after the name wait: that
connection is a line client in the default room by then, and the request's lines are chat
there (no token in them, so the receivers' counts do not change)."""

import asyncio
import base64
import os
import re
import socket
import struct
import time

BAD_ROOM = "soak-bad"


class Tally:
    def __init__(self, trace=None):
        self.trace = trace or (lambda line: None)
        self.runs = {}
        self.failures = 0
        self.failed = {}

    async def run(self, row, server):
        name, fn = row
        starts = server.starts
        try:
            ok = await asyncio.wait_for(fn(server), 20)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as e:
            ok = None if isinstance(e, ConnectionRefusedError) else False
            if ok is False:
                TRACE.append(f"{type(e).__name__}: {e}")
        if server.stopping or server.starts != starts:
            # A restart during the row cut its connection: not the row's answer.
            return
        if ok is None:
            return
        self.runs[name] = self.runs.get(name, 0) + 1
        if not ok:
            self.failures += 1
            self.failed[name] = self.failed.get(name, 0) + 1
            self.trace(f"bad client: {name}: not the documented answer" + (f" ({TRACE.pop()})" if TRACE else ""))

    def lines(self):
        total = sum(self.runs.values())
        out = [f"bad clients: {total} runs of {len(self.runs)} rows, {self.failures} without the documented answer"]
        for name, n in sorted(self.failed.items()):
            out.append(f"  wrong answer: {name} ({n}x)")
        if HTTP_LATE[0]:
            out.append(f"  HTTP request on the line port written 0.15 s or more after the connect began (not counted, or a line client's answer expected): {HTTP_LATE[0]}x")
        return out


async def tcp(server, port=None):
    return await asyncio.open_connection("127.0.0.1", port or server.tcp)


async def read_until(reader, needle, timeout=5):
    data = b""
    end = time.monotonic() + timeout
    while needle not in data and time.monotonic() < end:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), end - time.monotonic())
        except (asyncio.TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return data


async def line_row(server, payload, needle):
    r, w = await tcp(server)
    w.write(f"iam:bad\n/join {BAD_ROOM}\n".encode())
    await read_until(r, b"* you are now in")
    w.write(payload)
    data = await read_until(r, needle)
    w.close()
    return needle in data


async def long_line(server):
    return await line_row(server, b"x" * 70000 + b"\n", b"! line too long (limit 65536 bytes)")


async def unknown_command(server):
    return await line_row(server, b"/frobnicate\n", b"! unknown command /frobnicate (try /help)")


async def invalid_utf8_line(server):
    # Replaced, not fatal: the connection still answers a command afterwards.
    return await line_row(server, b"bad \xff\xfe bytes\n/who\n", b"* in soak-bad (")


async def half_line_then_reset(server):
    r, w = await tcp(server)
    w.write(b"/join " + BAD_ROOM.encode() + b"\nhalf a li")
    await asyncio.sleep(0.05)
    sock = w.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    w.transport.abort()
    return True


async def http_row(server, request, status):
    r, w = await tcp(server, server.http)
    w.write(request)
    data = await read_until(r, b"\r\n\r\n")
    w.close()
    return data.startswith(b"HTTP/1.1 " + status)


async def malformed_request_line(server):
    return await http_row(server, b"GARBAGE\r\n\r\n", b"400")


async def long_request_line(server):
    return await http_row(server, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", b"414")


async def header_flood(server):
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
    return await http_row(server, b"GET / HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n", b"431")


async def bad_version(server):
    return await http_row(server, b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", b"505")


async def unknown_upgrade_path(server):
    return await http_row(server, upgrade_request("/nope"), b"404")


async def bad_room_upgrade(server):
    return await http_row(server, upgrade_request("/rooms/a%20b"), b"400")


# What the rows that went wrong answered (the driver writes them to WORK/trace.log).
TRACE = []

# The line port's name wait (docs/BAD-INPUT.md): a connection that sent nothing for this
# long after the server accepted it is a line client from then on.
NAME_WAIT = 0.3


async def http_on_line_port(server):
    """`GET /healthz` on the line port: the `200` of the HTTP port when the request went
    out within the name wait, counted from before the connect (the server accepted no
    earlier than that); a line client's answer (chat, no HTTP status) when the driver
    itself was so slow that it wrote later."""
    t0 = time.monotonic()
    r, w = await tcp(server)
    w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    # Written within half the name wait: the bytes are there long before the timer is due,
    # whatever a loop iteration costs. Between that and the wait: either answer is right.
    waited = time.monotonic() - t0
    if NAME_WAIT / 2 <= waited < NAME_WAIT:
        w.close()
        HTTP_LATE[0] += 1
        return None
    late = waited >= NAME_WAIT
    data = await read_until(r, b"\r\n\r\n" if not late else b"\n", 5)
    w.close()
    if late:
        ok = not data.startswith(b"HTTP/")
        HTTP_LATE[0] += 1
    else:
        ok = data.startswith(b"HTTP/1.1 200")
    if not ok:
        TRACE.append(f"http on line port: written {'late' if late else 'in time'}, answered: {data[:200]!r}")
    return ok


# How many of the line-port requests went out after the name wait (the driver was slow).
HTTP_LATE = [0]


async def http_on_line_port_late(server):
    """The same request once the connection got the room's chat (the default room is busy
    in the soak): the server has made it a line client then, so the request is chat and
    gets no HTTP status. Waiting a fixed time is not enough: a loop that lags past the
    name wait reads the request before its timer runs and still answers HTTP."""
    r, w = await tcp(server)
    first = await read_until(r, b"\n", 10)
    if not first:
        w.close()
        return None  # a quiet room: nothing to tell
    w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = await read_until(r, b"HTTP/", 2)
    w.close()
    if re.search(rb"(^|\n)HTTP/1\.[01] [0-9]{3} ", data):
        TRACE.append(f"late http on line port answered: {data[:200]!r}")
        return False
    return True


async def slowloris(server):
    """A request head that never completes: 408 after --http-request-timeout (10 s)."""
    r, w = await tcp(server, server.http)
    w.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
    data = await read_until(r, b"\r\n\r\n", timeout=15)
    w.close()
    return data.startswith(b"HTTP/1.1 408")


def upgrade_request(path):
    key = base64.b64encode(os.urandom(16))
    return (b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + b"\r\n\r\n")


def frame(opcode, payload, masked=True, fin=True, length=None):
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload) if length is None else length
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mask_bit | n])
    elif n < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def ws_open(server, path=f"/rooms/{BAD_ROOM}"):
    r, w = await tcp(server, server.http)
    w.write(upgrade_request(path))
    head = await read_until(r, b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        raise OSError("upgrade refused")
    rest = head.split(b"\r\n\r\n", 1)[1]
    return r, w, rest


async def close_code(r, w, rest, timeout=5):
    """Reads frames until a close frame; returns its code (None when the socket ends first)."""
    buf = rest
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        while len(buf) >= 2:
            n = buf[1] & 0x7F
            off = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n = struct.unpack("!H", buf[2:4])[0]
                off = 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n = struct.unpack("!Q", buf[2:10])[0]
                off = 10
            if len(buf) < off + n:
                break
            opcode, payload = buf[0] & 0x0F, buf[off:off + n]
            buf = buf[off + n:]
            if opcode == 8:
                w.close()
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
        try:
            chunk = await asyncio.wait_for(r.read(65536), end - time.monotonic())
        except (asyncio.TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        buf += chunk
    w.close()
    return None


async def ws_row(server, data, code):
    r, w, rest = await ws_open(server)
    w.write(data)
    return await close_code(r, w, rest) == code


async def unmasked_frame(server):
    return await ws_row(server, frame(1, b"hi", masked=False), 1002)


async def reserved_opcode(server):
    return await ws_row(server, frame(3, b""), 1002)


async def invalid_utf8_text(server):
    return await ws_row(server, frame(1, b"ok \xc3\x28"), 1007)


async def oversized_message(server):
    return await ws_row(server, frame(2, b"", length=(1 << 20) + 1)[:14], 1009)


async def bad_close_code(server):
    return await ws_row(server, frame(8, struct.pack("!H", 1005)), 1002)


async def json_row(server, text, code):
    r, w, rest = await ws_open(server)
    w.write(frame(1, text))
    data = await read_until(r, code.encode())
    w.close()
    return code.encode() in rest + data


async def unknown_type(server):
    return await json_row(server, b'{"type":"nope","data":1}', '"code":"unknown_type"')


async def negative_since(server):
    return await json_row(server, b'{"type":"join","data":{"since":-1}}', '"code":"invalid_data"')


async def no_type(server):
    return await json_row(server, b'{"data":"x"}', '"code":"invalid_type"')


async def udp_empty_and_flood(server):
    """An empty datagram (dropped), then 200 `/rooms` at once from one socket: the server
    still answers a fresh socket afterwards (within 5 s: the burst shares the loopback
    address's --max-datagram-rate with the well-behaved UDP senders)."""
    loop = asyncio.get_running_loop()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    s.connect(("127.0.0.1", server.udp))
    s.send(b"")
    for _ in range(200):
        try:
            s.send(b"/rooms\n")
        except BlockingIOError:
            await asyncio.sleep(0.001)
    s.close()
    t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t.setblocking(False)
    t.connect(("127.0.0.1", server.udp))
    end = time.monotonic() + 5
    try:
        while time.monotonic() < end:
            t.send(b"/rooms\n")
            try:
                data = await asyncio.wait_for(loop.sock_recv(t, 70000), 0.5)
            except asyncio.TimeoutError:
                continue
            while not data.startswith(b"Server received: /rooms"):
                data = await asyncio.wait_for(loop.sock_recv(t, 70000), end - time.monotonic())
            return True
        return False
    finally:
        t.close()


async def never_reads(server):
    """A WebSocket member of the busy room that reads nothing for 10 s, then leaves."""
    r, w = await tcp(server, server.http)
    w.write(upgrade_request("/rooms/lobby?format=text"))
    await asyncio.sleep(10)
    w.transport.abort()
    return True


ROWS = [
    ("TCP line over 64 KiB", long_line),
    ("unknown slash command", unknown_command),
    ("invalid UTF-8 on TCP", invalid_utf8_line),
    ("half-written line, then reset", half_line_then_reset),
    ("malformed HTTP request line", malformed_request_line),
    ("request line over 8 KiB", long_request_line),
    ("more than 100 headers", header_flood),
    ("HTTP/2.0 request", bad_version),
    ("upgrade to an unknown path", unknown_upgrade_path),
    ("upgrade to a bad room name", bad_room_upgrade),
    ("HTTP request on the line port", http_on_line_port),
    ("HTTP request on the line port after the name wait", http_on_line_port_late),
    ("slowloris request head", slowloris),
    ("unmasked client frame", unmasked_frame),
    ("reserved opcode", reserved_opcode),
    ("invalid UTF-8 in a text message", invalid_utf8_text),
    ("message over --max-message-size", oversized_message),
    ("close code 1005 on the wire", bad_close_code),
    ("JSON unknown type", unknown_type),
    ("JSON negative since", negative_since),
    ("JSON without a type", no_type),
    ("empty datagram and a datagram burst", udp_empty_and_flood),
    ("a client that never reads", never_reads),
]
