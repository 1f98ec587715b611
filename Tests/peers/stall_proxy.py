#!/usr/bin/env python3
"""A loopback TCP proxy whose server-to-client direction can be stalled.

usage: stall_proxy.py TARGET_PORT
Listens on 127.0.0.1 (kernel-chosen port, printed as "port N") and forwards every
connection to 127.0.0.1:TARGET_PORT. Its upstream sockets have a small receive buffer and
small segments, so
while stalled the server soon sees a peer that does not read. Commands on stdin:
"stall" stops reading from the server (prints "stalled"), "resume" reads again (prints
"resumed"). Client-to-server bytes always flow. Exits when stdin closes.
"""
import socket, sys, threading

target = int(sys.argv[1])
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print("port", listener.getsockname()[1], flush=True)
flowing = threading.Event()
flowing.set()

def pump(source, sink, gated):
    try:
        while True:
            if gated:
                flowing.wait()
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def accept():
    while True:
        client, _ = listener.accept()
        upstream = socket.socket()
        upstream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        # Small segments: with loopback's 64 KiB ones the server's kernel sizes its send
        # buffer in megabytes, and the stall takes that much longer to be noticed.
        upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        upstream.connect(("127.0.0.1", target))
        threading.Thread(target=pump, args=(client, upstream, False), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, True), daemon=True).start()

threading.Thread(target=accept, daemon=True).start()
for line in sys.stdin:
    if line.strip() == "stall":
        flowing.clear()
        print("stalled", flush=True)
    elif line.strip() == "resume":
        flowing.set()
        print("resumed", flush=True)
