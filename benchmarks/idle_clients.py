"""Idle WebSocket clients for the benchmarks that weigh an idle connection
(idle-heap.sh, idle-bytes.sh): blocking sockets on loopback, each upgraded before the next
opens, held until the caller lets them go."""
import os
import socket
import sys
import time


def wait_for_server(port, pid, timeout=120):
    """Returns once 127.0.0.1:port accepts; exits when the process `pid` is gone or after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or not os.path.exists(f"/proc/{pid}"):
                sys.exit("server did not start")
            time.sleep(0.2)


def open_idle(port, target, count, held):
    """Opens `count` WebSocket connections to `target`, each answered 101 before the next, into `held`."""
    request = (f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode()
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                sys.exit(f"connection {len(held)} closed during the upgrade")
            answer += chunk
        if not answer.startswith(b"HTTP/1.1 101"):
            sys.exit(f"connection {len(held)}: {answer[:40]!r}")
        held.append(s)
