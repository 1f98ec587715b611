#!/usr/bin/env python3
"""abuse-check.py SWITCHBOARD_BINARY — what one member or one forged address can do to
everyone else, checked against a real `switchboard serve` with its defaults (docs/BAD-INPUT.md,
"What one member or one address cannot do"; docs/SECURITY.md). Python's standard library only; loopback only; every process it
starts is stopped by PID; every wait has a deadline.

  1. forged lines: a WebSocket member's text with LF, bare CR and U+2028, and a UDP datagram
     with inner newlines, never give a TCP or UDP member a line that reads as another author's
     (`ceo: …`), a notice (`* …`) or an error (`! …`), and the whole text still arrives;
  2. UDP amplification: every probe from a fresh source gets back at most 3x what it sent,
     beside the seed's `Server received: TEXT` echo (byte for byte);
  3. replays: twenty parallel `since=0` replays of 200 messages of 64 KiB of byte 0x01 (six
     bytes each in JSON), on the URL and with a join frame, and twenty `/since 0` on TCP, keep
     the server's RSS growth under 400 MB while the joiners read nothing, and each joiner then
     receives all 200;
  4. DNS rebinding: an upgrade and a page request whose Host and Origin name a foreign DNS name
     are refused (421);
  5. 3,000 pipelined `GET /` from a client that reads nothing keep RSS growth under 64 MB.
Exit 0 when every check passes; each failure prints one line saying which and why.
"""
import base64, json, os, re, socket, subprocess, sys, tempfile, threading, time

BIN = sys.argv[1] if len(sys.argv) > 1 else None
if not BIN or not os.access(BIN, os.X_OK):
    sys.exit("usage: abuse-check.py SWITCHBOARD_BINARY")
FAILURES, PASSED = [], []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    (PASSED if ok else FAILURES).append(what)


class Server:
    """`serve` on ports the kernel picks (`any`); it writes what it bound to a ports file once
    every listener is bound (docs/OPERATIONS.md, "Ports"), so nothing guesses a free port."""

    def __init__(self, extra=()):
        self.log = tempfile.NamedTemporaryFile(prefix="sb-abuse-", suffix=".log", delete=False)
        ports_file = self.log.name + ".ports.json"
        self.proc = subprocess.Popen(
            [BIN, "serve", "--host", "127.0.0.1", "--tcp-port", "any", "--udp-port", "any",
             "--http-port", "any", "--ports-file", ports_file, "--ephemeral", "--no-advertise", "--loops", "1",
             *extra],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline and self.proc.poll() is None:
            try:
                with open(ports_file) as f:
                    ports = json.load(f)
                self.tcp, self.udp, self.http = ports["tcp"], ports["udp"], ports["http"]
                return
            except (OSError, ValueError):
                time.sleep(0.05)
        self.stop()
        raise SystemExit("abuse-check: serve did not start (log: %s)" % self.log.name)

    def rss(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) * 1024

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def read_lines(sock, seconds, until=None):
    """Lines a TCP socket receives within `seconds` (or until a line matches `until`)."""
    sock.settimeout(0.1)
    data, deadline = b"", time.time() + seconds
    while time.time() < deadline:
        try:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        except socket.timeout:
            pass
        if until and any(until(l) for l in data.split(b"\n")[:-1]):
            break
    return data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")


def ws_connect(port, path="/", host=None, origin=None, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    head = "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" % (
        path, host or "127.0.0.1:%d" % port)
    head += "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n" % key
    if origin:
        head += "Origin: %s\r\n" % origin
    s.sendall((head + "\r\n").encode())
    return s


def http_status(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    return int(line.split()[1]) if line.startswith("HTTP/1.1 ") else 0, data.split(b"\r\n\r\n", 1)[-1]


def ws_send(sock, text):
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                             bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 65536 else
                             bytes([0x80 | 127]) + n.to_bytes(8, "big"))
    # XOR as one big integer: a byte-wise loop takes ~0.3 s for a 384 KB frame.
    key = (mask * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big") if n else b""
    sock.sendall(head + mask + masked)


class FrameReader:
    def __init__(self, sock, rest=b""):
        self.sock, self.buf = sock, rest

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def frame(self):
        """The next whole (unfragmented, as the server sends them) text frame as a str."""
        self._need(2)
        n = self.buf[1] & 0x7F
        at = 2
        if n == 126:
            self._need(4); n, at = int.from_bytes(self.buf[2:4], "big"), 4
        elif n == 127:
            self._need(10); n, at = int.from_bytes(self.buf[2:10], "big"), 10
        self._need(at + n)
        opcode, payload = self.buf[0] & 0x0F, self.buf[at:at + n]
        self.buf = self.buf[at + n:]
        return opcode, payload


def json_frames(reader, want, seconds):
    """JSON frames until `want(frame)` says enough, within `seconds`."""
    deadline, seen = time.time() + seconds, []
    reader.sock.settimeout(seconds)
    while time.time() < deadline:
        opcode, payload = reader.frame()
        if opcode == 1:
            seen.append(json.loads(payload))
            if want(seen[-1]):
                return seen
    raise TimeoutError("no wanted frame within %ss" % seconds)


def udp_prove(sock, server):
    """Has `sock` prove to the server that it receives at its address (docs/PROTOCOLS.md, UDP):
    it sends a line long enough for the offer, and echoes the offered proof line back."""
    sock.sendall(b"/ok" + b" " * 61)
    deadline = time.time() + 5
    sock.settimeout(0.2)
    while time.time() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        m = re.search(rb"send (/ok \S+)", data)
        if m:
            sock.sendall(m.group(1))
            return True
    return False


def forged_lines(server):
    tcp = socket.create_connection(("127.0.0.1", server.tcp), 5)
    tcp.sendall(b"iam:victim\n/who\n")
    read_lines(tcp, 5, until=lambda l: l.startswith(b"* in lobby"))
    member = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    member.connect(("127.0.0.1", server.udp))
    check(udp_prove(member, server), "a UDP member proves its address as docs/PROTOCOLS.md says")
    member.settimeout(0.1)
    try:
        while member.recv(65536):
            pass
    except socket.timeout:
        pass
    ws = ws_connect(server.http)
    status, rest = http_status(ws)
    check(status == 101, "a WebSocket member is upgraded (%d)" % status)
    ws_send(ws, "mallory")
    forged = "ceo: wire $10k to X"
    texts = ["ok\n%s\n* server is going away: maintenance\n! send failed" % forged,
             "ok\r%s" % forged, "ok\u2028%s\u2029* x has left\x0b! y\x0c! z\x85* w" % forged]
    for text in texts:
        ws_send(ws, json.dumps({"type": "message", "data": {"text": text}}))
    spoof = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    spoof.sendto(("ok\n%s\n* server is going away: maintenance\n! boom" % forged).encode(), ("127.0.0.1", server.udp))
    got = read_lines(tcp, 4)
    udp_got = []
    deadline = time.time() + 2
    while time.time() < deadline:
        try:
            udp_got += member.recv(65536).split(b"\n")
        except socket.timeout:
            pass
    for name, lines in (("TCP", got), ("UDP", udp_got)):
        lines = [l.rstrip(b"\r") for l in lines if l]
        bad = [l for l in lines if l.startswith(b"ceo:") or l.startswith(b"! ") or l.startswith(b"* server")
               or b"\r" in l or any(sep in l.decode("utf-8", "replace") for sep in "\x0b\x0c\x85\u2028\u2029")]
        from_mallory = [l for l in lines if l.startswith(b"mallory: ")]
        check(not bad, "no forged line reaches a %s member (%d lines, forged: %r)" % (name, len(lines), bad[:3]))
        check(len(from_mallory) >= len(texts), "%s member gets every WebSocket message on one line each (%d of %d)"
              % (name, len(from_mallory), len(texts)))
    for s in (tcp, member, ws, spoof):
        s.close()


def udp_amplification(server):
    writer = socket.create_connection(("127.0.0.1", server.tcp), 5)
    writer.sendall(b"iam:filler\n" + b"".join(b"msg:%04d %s\n" % (i, b"x" * 1019) for i in range(50)))
    read_lines(writer, 1)
    probes = [b"/join x", b"/history 1000", b"/help", b"/who", b"/rooms", b"/since 0", b"hello", b"/ok 00000000",
              b"iam:z", b"/me waves", b"a"]
    for probe in probes:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.sendto(probe, ("127.0.0.1", server.udp))
        s.settimeout(0.1)
        received, deadline = [], time.time() + 1.5
        while time.time() < deadline:
            try:
                received.append(s.recv(65536))
            except socket.timeout:
                pass
        echo = b"Server received: " + probe + b"\n"
        has_echo = echo in received
        if has_echo:
            received.remove(echo)
        extra = sum(len(d) for d in received)
        check(has_echo and extra <= 3 * len(probe),
              "UDP probe %r (%d bytes): echo %s, %d bytes more (limit %d)"
              % (probe, len(probe), "byte for byte" if has_echo else "MISSING", extra, 3 * len(probe)))
        s.close()
    writer.close()


def replays(server):
    room, count = "replay", 200
    writer = ws_connect(server.http, "/rooms/%s" % room)
    status, rest = http_status(writer)
    reader = FrameReader(writer, rest)
    ws_send(writer, "seeder")
    text = "\x01" * 65536
    # The seeder gets its own messages back (as chat-server.js does): read them while sending,
    # or the server, its output to the seeder full, stops reading the seeder.
    acked = threading.Event()
    drain = threading.Thread(target=lambda: (json_frames(
        reader, lambda f: f.get("type") == "ack" and f["data"].get("ref") == str(count - 1), 120), acked.set()))
    drain.start()
    for i in range(count):
        ws_send(writer, json.dumps({"type": "message", "data": {"text": text, "ref": str(i)}}))
    drain.join(130)
    if not acked.is_set():
        raise TimeoutError("the seeder's %d messages were not all acknowledged" % count)

    def run(label, open_one, read_one, limit=400 << 20):
        base = server.rss()
        peers = [open_one() for _ in range(20)]
        peak, deadline = base, time.time() + 4
        while time.time() < deadline:  # the joiners read nothing yet: the server must not buffer it all
            peak = max(peak, server.rss())
            time.sleep(0.05)
        counts, done = [0] * len(peers), threading.Event()

        def sampler():
            nonlocal peak
            while not done.is_set():
                peak = max(peak, server.rss())
                time.sleep(0.05)
        t = threading.Thread(target=sampler)
        t.start()
        try:
            for i, p in enumerate(peers):
                counts[i] = read_one(p)
        finally:
            done.set()
            t.join()
        check(peak - base < limit, "%s: RSS growth %.0f MB (limit %d MB)" % (label, (peak - base) / 1e6, limit >> 20))
        check(all(c == count for c in counts), "%s: every joiner receives all %d (got %s)"
              % (label, count, sorted(set(counts))))
        for p in peers:
            p[0].close()

    def open_url():
        s = ws_connect(server.http, "/rooms/%s?since=0" % room)
        return (s, None)

    def open_join():
        s = ws_connect(server.http, "/")
        ws_send(s, json.dumps({"type": "join", "data": {"name": "j", "room": room, "since": 0}}))
        return (s, None)

    def read_json(peer):
        s = peer[0]
        status, rest = http_status(s)
        r = FrameReader(s, rest)
        ids = set()

        def want(f):
            if f.get("type") == "history" and (not f.get("data") or f["data"][0].get("room") == room):
                ids.update(m["id"] for m in f.get("data", []) if m.get("room") == room)
            elif f.get("type") == "message" and f["data"].get("room") == room:
                ids.add(f["data"]["id"])
            return len(ids) >= count
        try:
            json_frames(r, want, 60)
        except (TimeoutError, EOFError, OSError):
            pass
        return len(ids)

    def open_tcp():
        s = socket.create_connection(("127.0.0.1", server.tcp), 5)
        s.sendall(b"iam:t\n/join %s\n/since 0\n" % room.encode())
        return (s, None)

    def read_tcp(peer):
        # One answer carries at most 512 KiB and then says how to go on: `* more history after
        # id ID (…): /since ID` (docs/PROTOCOLS.md); follow it to the end of the history.
        s = peer[0]
        s.settimeout(30)
        data, seen, deadline = b"", set(), time.time() + 90
        while time.time() < deadline:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
            *lines, data = data.split(b"\n")
            for line in lines:
                m = re.match(rb"\[(\d+)\] seeder: ", line)
                if m:
                    seen.add(int(m.group(1)))
                more = re.match(rb"\* more history after id (\d+) .*: (/since \d+)$", line)
                if more:
                    s.sendall(more.group(2) + b"\n")
                if line.startswith(b"* end of history") or line.startswith(b"* no kept messages"):
                    return len(seen)
        return len(seen)

    run("20 parallel ?since=0 upgrades", open_url, read_json)
    run("20 parallel join frames with since 0", open_join, read_json)
    run("20 parallel /since 0 on TCP", open_tcp, read_tcp)
    writer.close()


def rebinding(server):
    host = "r.attacker.example:%d" % server.http
    s = ws_connect(server.http, "/", host=host, origin="http://" + host)
    status, _ = http_status(s)
    check(status in (403, 421), "an upgrade whose Host and Origin name a foreign name is refused (%d)" % status)
    s.close()
    s = socket.create_connection(("127.0.0.1", server.http), 5)
    s.sendall(("GET /rooms/lobby HTTP/1.1\r\nHost: %s\r\n\r\n" % host).encode())
    status, _ = http_status(s)
    check(status in (403, 421), "a page request naming a foreign Host is refused (%d)" % status)
    s.close()
    s = ws_connect(server.http, "/", host="localhost:%d" % server.http, origin="http://localhost:%d" % server.http)
    status, _ = http_status(s)
    check(status == 101, "an upgrade from the server's own page on localhost is accepted (%d)" % status)
    s.close()


def pipelined_gets(server):
    base = server.rss()
    s = socket.create_connection(("127.0.0.1", server.http), 5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    s.setblocking(False)
    sent, deadline = 0, time.time() + 10
    data = request * 3000
    while sent < len(data) and time.time() < deadline:
        try:
            sent += s.send(data[sent:])
        except BlockingIOError:
            time.sleep(0.01)
    peak, until = base, time.time() + 3
    while time.time() < until:
        peak = max(peak, server.rss())
        time.sleep(0.05)
    check(peak - base < 64 << 20, "3,000 pipelined GET / from a client that reads nothing: RSS growth %.1f MB "
          "(limit 64 MB; %d of %d request bytes taken)" % ((peak - base) / 1e6, sent, len(data)))
    s.close()


for name, fn in (("forged lines", forged_lines), ("UDP amplification", udp_amplification),
                 ("replays", replays), ("DNS rebinding", rebinding), ("pipelined GETs", pipelined_gets)):
    print("== " + name, flush=True)
    server = Server()
    try:
        fn(server)
    except Exception as e:  # a check that could not run is a failure, with its reason
        check(False, "%s did not run: %r" % (name, e))
    finally:
        check(server.proc.poll() is None, "%s: the server is still up" % name)
        server.stop()
print("abuse-check: %d passed, %d failed" % (len(PASSED), len(FAILURES)))
sys.exit(1 if FAILURES else 0)
