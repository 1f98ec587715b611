#!/usr/bin/env python3
"""Ask a running `wstest -m fuzzingserver` to write its reports.

usage: update-reports.py PORT AGENT [TIMEOUT]

Opens ws://127.0.0.1:PORT/updateReports?agent=AGENT -- the last step of the
client protocol -- for a client under test that stopped before doing so, and
waits until the server closes the connection (it writes index.json before it
sends its close frame). Standard library only: a bare opening handshake, no
frames are sent.  Exit status 0 once the server closed after a 101 response.
"""

import base64
import os
import socket
import sys
import urllib.parse


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    port, agent = int(sys.argv[1]), sys.argv[2]
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    key = base64.b64encode(os.urandom(16)).decode("ascii")
    request = ("GET /updateReports?agent=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
               "Upgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (urllib.parse.quote(agent), port, key))
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request.encode("ascii"))
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            # the server's close frame (opcode 8) follows the handshake once reports exist
            head, sep, frames = data.partition(b"\r\n\r\n")
            if sep and frames[:1] and frames[0] & 0x0F == 8:
                break
    if not data.startswith(b"HTTP/1.1 101"):
        print("update-reports: no WebSocket upgrade: %r" % data[:80], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
