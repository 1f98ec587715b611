#!/usr/bin/env python3
"""A loopback WebSocket proxy that delays a client's first chat message past a reconnect.

usage: late_message_proxy.py TARGET_PORT [--seconds 60]
Listens on 127.0.0.1 (kernel-chosen port, printed as "port N") and forwards every
connection to 127.0.0.1:TARGET_PORT. On the first connection it holds back the client's
first frame carrying {"type":"message" ...} and cuts that connection on both sides
(printed "held"): the client has sent, the server has not received, no ack can come. On
the next connection it forwards the held frame just before the client's own next message
frame (printed "released"), so the server gets the first send late, then the client's
retry of it. Everything else passes unchanged. Exits by itself after --seconds.
"""
import argparse, asyncio, struct

parser = argparse.ArgumentParser()
parser.add_argument("target", type=int)
parser.add_argument("--seconds", type=float, default=60)
args = parser.parse_args()
held = None
connections = 0


def frame(buffer):
    """(length, payload) of the client frame at the start of buffer, or None if incomplete."""
    if len(buffer) < 2:
        return None
    length, offset = buffer[1] & 0x7F, 2
    if length == 126:
        if len(buffer) < 4:
            return None
        length, offset = struct.unpack(">H", buffer[2:4])[0], 4
    elif length == 127:
        if len(buffer) < 10:
            return None
        length, offset = struct.unpack(">Q", buffer[2:10])[0], 10
    mask = b"\0\0\0\0"
    if buffer[1] & 0x80:
        if len(buffer) < offset + 4:
            return None
        mask, offset = buffer[offset:offset + 4], offset + 4
    if len(buffer) < offset + length:
        return None
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[offset:offset + length]))
    return offset + length, payload


async def pump(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except Exception:
        pass
    finally:
        writer.close()


async def upstream(reader, writer, number, client_writer):
    """Client to server: the handshake as is, then frame by frame."""
    global held
    buffer = b""
    try:
        while b"\r\n\r\n" not in buffer:
            data = await reader.read(65536)
            if not data:
                return
            buffer += data
        end = buffer.index(b"\r\n\r\n") + 4
        writer.write(buffer[:end])
        buffer = buffer[end:]
        while True:
            while (parsed := frame(buffer)) is not None:
                length, payload = parsed
                raw, buffer = buffer[:length], buffer[length:]
                is_message = b'"type":"message"' in payload
                if is_message and number == 1 and held is None:
                    held = raw
                    print("held", flush=True)
                    client_writer.transport.abort()
                    writer.transport.abort()
                    return
                if is_message and number > 1 and held is not None:
                    writer.write(held)
                    held = None
                    print("released", flush=True)
                writer.write(raw)
            await writer.drain()
            data = await reader.read(65536)
            if not data:
                return
            buffer += data
    except Exception:
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    global connections
    connections += 1
    number = connections
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", args.target)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(
        upstream(client_reader, server_writer, number, client_writer), pump(server_reader, client_writer))


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print("port", server.sockets[0].getsockname()[1], flush=True)
    await asyncio.sleep(args.seconds)


asyncio.run(main())
