#!/usr/bin/env python3
"""Opens one WebSocket to switchboard with the python `websockets` client and reports what
the server did with it, for the token and Origin tests.

usage: ws_auth_client.py URL [--bearer TOKEN] [--cookie COOKIE] [--origin ORIGIN] [--send TEXT]...
                          [--wait SECONDS] [--refresh TOKEN]...
                          [--mint-secret-file F --mint-sub NAME --mint-ttl SECONDS [--mint-refreshes N]]

With --refresh, each `token_expiring` frame is answered with a `refresh` frame carrying the
next of those tokens, in order (none left: no answer). With --mint-secret-file, the peer
mints its tokens itself (HS256, hs256_token.py) when it needs them: `{token}` in URL becomes
one that runs out --mint-ttl seconds after the connect, and the first N `token_expiring`
frames are answered with fresh ones of the same lifetime.

Prints one line per event and exits 0 (the caller judges the lines):
  STATUS <code>            the upgrade was refused with this HTTP status
  OPEN                     the upgrade was accepted
  FRAME <text>             a text frame from the server
  CLOSE <code> <reason>    the server closed the connection
  QUIET                    nothing more arrived within --wait seconds after the last send
Works with websockets 10.4 (Debian) and the current releases.
"""

import argparse
import asyncio
import json
import sys

try:
    import websockets
except ImportError:  # pragma: no cover
    print("FAIL: python module websockets is not installed")
    sys.exit(1)


def connect(url, headers, origin):
    try:
        from websockets.asyncio.client import connect as modern

        return modern(url, additional_headers=headers, origin=origin, open_timeout=10)
    except ImportError:
        return websockets.connect(url, extra_headers=headers, origin=origin, open_timeout=10)


def status_of(error):
    response = getattr(error, "response", None)
    if response is not None and hasattr(response, "status_code"):
        return response.status_code
    return getattr(error, "status_code", None)


async def run(args):
    def minted():
        from hs256_token import mint
        with open(args.mint_secret_file, "rb") as f:
            return mint(f.read(), args.mint_sub, args.mint_ttl)

    if args.mint_secret_file:
        args.url = args.url.replace("{token}", minted())
        args.refresh = [None] * args.mint_refreshes
    headers = {}
    if args.bearer:
        headers["Authorization"] = "Bearer " + args.bearer
    if args.cookie:
        headers["Cookie"] = args.cookie
    try:
        ws = await connect(args.url, headers, args.origin)
    except Exception as error:  # the refused upgrade's exception differs by version
        code = status_of(error)
        if code is None:
            print("ERROR " + repr(error))
        else:
            print("STATUS %d" % code)
        return
    print("OPEN", flush=True)
    try:
        for text in args.send:
            await ws.send(text)
        refreshes = list(args.refresh)
        while True:
            frame = await asyncio.wait_for(ws.recv(), timeout=args.wait)
            if isinstance(frame, str):
                print("FRAME " + frame, flush=True)
                if refreshes and json.loads(frame).get("type") == "token_expiring":
                    token = refreshes.pop(0) or minted()
                    await ws.send(json.dumps({"type": "refresh", "data": {"token": token}}))
    except asyncio.TimeoutError:
        print("QUIET")
        await ws.close()
    except websockets.ConnectionClosed as closed:
        rcvd = getattr(closed, "rcvd", None)
        if rcvd is not None:
            print("CLOSE %d %s" % (rcvd.code, rcvd.reason))
        else:
            print("CLOSE %d %s" % (closed.code, closed.reason))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--bearer")
    parser.add_argument("--cookie")
    parser.add_argument("--origin")
    parser.add_argument("--send", action="append", default=[])
    parser.add_argument("--wait", type=float, default=1.0)
    parser.add_argument("--refresh", action="append", default=[])
    parser.add_argument("--mint-secret-file")
    parser.add_argument("--mint-sub", default="alice")
    parser.add_argument("--mint-ttl", type=int, default=8)
    parser.add_argument("--mint-refreshes", type=int, default=0)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
