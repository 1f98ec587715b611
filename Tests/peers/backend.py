#!/usr/bin/env python3
"""An app's backend, written with aiohttp (PyPI): what the server's outbound HTTP client,
its webhooks and (in a section of its own) its auth hook talk to in the tests.

    python3 -u backend.py [--secret S] [--window SECONDS]

Prints `port N` once listening on 127.0.0.1 (port chosen by the kernel). Reads commands on
stdin, one a line:

    mode ok       answer webhooks 200 (the default)
    mode fail     answer webhooks 500
    mode hang     never answer webhooks (the request stays open)
    quit          exit

Endpoints:

    POST /hooks          a webhook receiver: verifies X-Switchboard-Signature
                         (HMAC-SHA256 of "TIMESTAMP.BODY" with --secret) and the
                         timestamp's age (--window, 300 s); prints `badsig WHY` and answers
                         401 when either is wrong; otherwise, in mode ok, prints one line
                         per event and answers 200:
                           event TYPE ROOM MEMBER NODE      (MEMBER/NODE `-` when absent)
                           message ROOM AUTHOR ID TEXT      (message.published)
                         in mode fail prints `answered 500 EVENTS` and answers 500.
    POST /echo           200, the request body back; X-Connections: how many TCP
                         connections /echo has been called on so far (keep-alive checks).
    POST /status/CODE    that status, body "status CODE".
    POST /hang           never answers.
    POST /big?bytes=N    200 with N bytes (Content-Length).
    POST /chunked        200 with a chunked body "one two three".

Two more listeners, for answers aiohttp will not write (any request, any path):
`close-port N` answers HTTP/1.0 without a length and closes; `garbage-port N` answers
bytes that are not HTTP.

Exits 0 on `quit` or when stdin closes.
"""
import argparse
import asyncio
import hashlib
import hmac
import json
import sys
import time

from aiohttp import web

state = {"mode": "ok", "peers": set()}


def emit(line):
    print(line, flush=True)


def verify(secret, request, body):
    """Returns None when the signature and timestamp are good, else why not."""
    stamp = request.headers.get("X-Switchboard-Timestamp", "")
    signature = request.headers.get("X-Switchboard-Signature", "")
    if not stamp.isdigit():
        return "no timestamp"
    if abs(time.time() - int(stamp)) > state["window"]:
        return "timestamp outside the window"
    expected = "sha256=" + hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "signature mismatch"
    return None


async def hooks(request):
    body = await request.read()
    why = verify(state["secret"], request, body)
    if why is not None:
        emit("badsig " + why)
        return web.Response(status=401, text=why)
    mode = state["mode"]
    batch = json.loads(body)
    if mode == "hang":
        emit("hanging %d" % len(batch["events"]))
        await asyncio.sleep(3600)
    if mode == "fail":
        emit("answered 500 %d" % len(batch["events"]))
        return web.Response(status=500, text="failing on purpose")
    for event in batch["events"]:
        kind = event["type"]
        if kind == "message.published":
            emit("message %s %s %s %s" % (event["room"], event.get("author", "-"), event.get("id", "-"), event.get("text", "")))
        else:
            emit("event %s %s %s %s" % (kind, event["room"], event.get("member", "-"), batch.get("node", "-")))
    return web.json_response({"ok": True})


async def echo(request):
    body = await request.read()
    state["peers"].add(request.transport.get_extra_info("peername"))
    return web.Response(body=body, headers={"X-Connections": str(len(state["peers"]))})


async def status(request):
    code = int(request.match_info["code"])
    return web.Response(status=code, text="status %d" % code)


async def hang(request):
    await asyncio.sleep(3600)
    return web.Response(text="late")


async def big(request):
    return web.Response(body=b"x" * int(request.query.get("bytes", "1048576")))


async def chunked(request):
    response = web.StreamResponse()
    response.enable_chunked_encoding()
    await response.prepare(request)
    for word in (b"one ", b"two ", b"three"):
        await response.write(word)
    await response.write_eof()
    return response


async def raw(reader, writer, answer):
    await reader.readuntil(b"\r\n\r\n")
    writer.write(answer)
    await writer.drain()
    writer.close()


# --- auth hook (reserved for the auth proxy's tests) --------------------------------
# The auth hook's answer endpoint goes here (or in a file of its own).
# --- end auth hook ---------------------------------------------------------------------


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", default="")
    parser.add_argument("--window", type=int, default=300)
    args = parser.parse_args()
    state["secret"] = args.secret
    state["window"] = args.window

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/hooks", hooks)
    app.router.add_post("/echo", echo)
    app.router.add_post("/status/{code}", status)
    app.router.add_post("/hang", hang)
    app.router.add_post("/big", big)
    app.router.add_post("/chunked", chunked)

    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]

    # Two answers aiohttp will not write: a close-delimited body and bytes that are not HTTP.
    close_server = await asyncio.start_server(
        lambda r, w: raw(r, w, b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"), "127.0.0.1", 0)
    garbage_server = await asyncio.start_server(lambda r, w: raw(r, w, b"SPDY/9 what\r\n\r\n"), "127.0.0.1", 0)
    emit("port %d" % port)
    emit("close-port %d" % close_server.sockets[0].getsockname()[1])
    emit("garbage-port %d" % garbage_server.sockets[0].getsockname()[1])

    loop = asyncio.get_running_loop()
    while True:
        # A thread reads stdin: a pipe, a file or /dev/null alike.
        line = await loop.run_in_executor(None, sys.stdin.buffer.readline)
        if not line:
            break
        words = line.decode().split()
        if words[:1] == ["mode"] and len(words) == 2:
            state["mode"] = words[1]
            emit("mode " + words[1])
        elif words[:1] == ["quit"]:
            break
    await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
