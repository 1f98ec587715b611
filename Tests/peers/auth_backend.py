#!/usr/bin/env python3
"""An app's backend for `switchboard serve --auth-proxy` (docs/API.md, "Auth proxy"), on
aiohttp: it answers the server's POSTs by rules the test gives, and records every request.

usage: auth_backend.py [--rules JSON] [--path /auth]

Prints `LISTENING <port>` (127.0.0.1, a port the kernel chose) once it serves. Rules are a
JSON object, by the request's name ("" for none; "*" for any other name):
  {"allow": true, "name"?: ..., "rooms"?: [...]}   answered as it is
  {"allow": false, "reason": ...}                   answered as it is
  {"status": 500}                                   that HTTP status, a JSON error body
  {"raw": "text"}                                   200 with this body (a malformed answer)
  {"delay": SECONDS, ...}                           wait this long first, then the rest
  {"cookie": "c=v", "then": RULE, "else": RULE}     RULE when the Cookie header is exactly c=v
  {"bearer": "T", "then": RULE, "else": RULE}       the same for `Authorization: Bearer T`
  {"room": "R", "then": RULE, "else": RULE}         the same for the request's room
Without a rule for the name: allow. The control endpoints, for the test:
  GET  /requests   every request body received so far, a JSON array, in order
  POST /rules      replaces the rules (a JSON object as above)
Exits on SIGTERM. Hard timeout of its own: --lifetime seconds (default 300).
"""

import argparse
import asyncio
import json
import signal
import sys

try:
    from aiohttp import web
except ImportError:  # pragma: no cover
    print("FAIL: python module aiohttp is not installed")
    sys.exit(1)


class Backend:
    def __init__(self, rules):
        self.rules = rules
        self.requests = []

    def rule_for(self, body, request):
        name = body.get("name") or ""
        rule = self.rules.get(name, self.rules.get("*", {"allow": True}))
        while "then" in rule:
            if "cookie" in rule:
                hit = (body.get("headers") or {}).get("cookie") == rule["cookie"]
            elif "room" in rule:
                hit = body.get("room") == rule["room"]
            else:
                hit = (body.get("headers") or {}).get("authorization") == "Bearer " + rule["bearer"]
            rule = rule["then"] if hit else rule.get("else", {"allow": False, "reason": "who are you?"})
        return rule

    async def auth(self, request):
        body = await request.json()
        self.requests.append(body)
        rule = dict(self.rule_for(body, request))
        delay = rule.pop("delay", 0)
        if delay:
            await asyncio.sleep(delay)
        if "status" in rule:
            return web.json_response({"error": "backend says no"}, status=rule["status"])
        if "raw" in rule:
            return web.Response(text=rule["raw"], content_type="application/json")
        return web.json_response(rule)

    async def get_requests(self, request):
        return web.json_response(self.requests)

    async def set_rules(self, request):
        self.rules = await request.json()
        return web.json_response({"ok": True})


async def main(args):
    backend = Backend(json.loads(args.rules))
    app = web.Application()
    app.router.add_post(args.path, backend.auth)
    app.router.add_get("/requests", backend.get_requests)
    app.router.add_post("/rules", backend.set_rules)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print("LISTENING %d" % port, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.lifetime)
    except asyncio.TimeoutError:
        pass
    await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", default="{}")
    parser.add_argument("--path", default="/auth")
    parser.add_argument("--lifetime", type=float, default=300)
    asyncio.run(main(parser.parse_args()))
