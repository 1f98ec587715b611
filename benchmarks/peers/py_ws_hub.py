"""A broadcast server on python `websockets` (its documented broadcast() recipe):
every message goes to every connected client, the sender included.

Usage: python3 py_ws_hub.py PORT
"""
import asyncio
import sys

from websockets.asyncio.server import broadcast, serve

CLIENTS = set()


async def handler(websocket):
    CLIENTS.add(websocket)
    try:
        async for message in websocket:
            broadcast(CLIENTS, message)
    finally:
        CLIENTS.discard(websocket)


async def main(port):
    async with serve(handler, "127.0.0.1", port, compression=None, backlog=4096) as server:
        print(f"python websockets hub on 127.0.0.1:{port}", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 8092))
