#!/usr/bin/env python3
"""A loopback TCP proxy that cuts connections with resets at random moments.

usage: reset_proxy.py TARGET_PORT [--seconds 60]
Listens on 127.0.0.1 (kernel-chosen port, printed as "port N"), forwards every
connection to 127.0.0.1:TARGET_PORT, and every 0.2-0.6 s resets about half of the open
connections on both sides (SO_LINGER 0, so the peers see RST, not FIN). Prints "reset N"
after each round. Exits by itself after --seconds.
"""
import argparse, asyncio, random, socket, struct

parser = argparse.ArgumentParser()
parser.add_argument("target", type=int)
parser.add_argument("--seconds", type=float, default=60)
args = parser.parse_args()
pairs = set()

async def pump(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except Exception:
        pass
    finally:
        writer.close()

async def handle(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", args.target)
    except OSError:
        client_writer.close()
        return
    pair = (client_writer, server_writer)
    pairs.add(pair)
    await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer))
    pairs.discard(pair)

def reset(writer):
    sock = writer.get_extra_info("socket")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    writer.transport.abort()

async def chaos():
    while True:
        await asyncio.sleep(random.uniform(0.2, 0.6))
        victims = [p for p in list(pairs) if random.random() < 0.5]
        for pair in victims:
            pairs.discard(pair)
            for w in pair:
                reset(w)
        print("reset", len(victims), flush=True)

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print("port", server.sockets[0].getsockname()[1], flush=True)
    asyncio.create_task(chaos())
    await asyncio.sleep(args.seconds)

asyncio.run(main())
