#!/usr/bin/env python3
"""Typing indicators on switchboard's web chat page, in headless Chromium, against python
`websockets` members that asked for typing (docs/PROTOCOLS.md, "Typing").

usage: browser_typing.py HTTP_PORT TCP_PORT [--host 127.0.0.1] [--timeout S]
                         [--screenshots /tmp/browser_typing] [--chromium PATH]

1. Two python members join the lobby over the JSON protocol and send
   `{"type":"features","data":["typing"]}`; each must be answered with a `features` frame
   whose `enabled` holds `typing`.
2. The page's user (named like a user does) types into #input: the first member must get
   `{"type":"typing","data":{"room":"lobby","author":NAME,"active":true}}`; emptying the
   field must send it `active:false`.
3. The first member signals typing: the page's #typing shows `py-… is typing…`; the second
   too: `py-… and py2-… are typing…`. Screenshots at 1280×800 and 390×844.
4. The first member stops (`active:false`) and the second sends a message: #typing is
   empty again.
Exit 0 when everything passes; otherwise one line "FAIL: reason" and exit 1.
"""

import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, open_page  # noqa: E402
from browser_commands import screenshot  # noqa: E402

import websockets  # noqa: E402

TAG = os.urandom(3).hex()


async def member(host, port, name):
    """A JSON-protocol member of the lobby that asked for typing and got it."""
    ws = await websockets.connect(f"ws://{host}:{port}/rooms/lobby?name={name}", ping_interval=None, open_timeout=10)
    await ws.send(json.dumps({"type": "features", "data": ["typing"]}))
    answer = await expect_frame(ws, lambda f: f.get("type") in ("features", "error"), f"{name}: the features answer")
    if answer.get("type") != "features" or "typing" not in (answer.get("data") or {}).get("enabled", []):
        raise Failure(f"{name}: typing not enabled: {answer}")
    return ws


async def expect_frame(ws, predicate, what, timeout=30):
    """The first frame (a JSON object) that `predicate` accepts, read within `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Failure(f"no {what} within {timeout}s")
        try:
            raw = await asyncio.wait_for(ws.recv(), left)
        except asyncio.TimeoutError:
            raise Failure(f"no {what} within {timeout}s")
        try:
            frame = json.loads(raw)
        except ValueError:
            continue
        if isinstance(frame, dict) and predicate(frame):
            return frame


def typing_of(author, active):
    return lambda f: (f.get("type") == "typing" and isinstance(f.get("data"), dict)
                      and f["data"].get("author") == author and f["data"].get("active") is active)


async def scenario(args):
    cdp, ws, product = await browser_chat.start_chromium(args)
    py, py2 = f"py-{TAG}", f"py2-{TAG}"
    first = await member(args.host, args.http_port, py)
    second = await member(args.host, args.http_port, py2)

    page = await open_page(cdp, f"http://{args.host}:{args.http_port}/")
    me = f"web-{TAG}"
    await page.wait_for("document.getElementById('status').dataset.state === 'online'", "page online")
    await page.type_into("#name", me)
    await page.click("#name-form button[type=submit]")
    await page.wait_for("document.getElementById('name-form').hidden && !document.getElementById('input').disabled",
                        "name accepted")

    # The page asks for typing right after its name; until its answer it sends none, so
    # keep typing (a keystroke a second, as a person would) until the member hears it.
    heard = None
    deadline = time.monotonic() + 30
    while heard is None and time.monotonic() < deadline:
        await page.type_into("#input", "h")
        try:
            heard = await expect_frame(first, typing_of(me, True), "the page's typing", timeout=1.2)
        except Failure:
            pass
    if heard is None:
        raise Failure(f"{py}: the page's typing never arrived")
    if heard["data"].get("room") != "lobby":
        raise Failure(f"typing frame names the wrong room: {heard}")
    await page.eval("(() => { const i = document.getElementById('input'); i.value = '';"
                    " i.dispatchEvent(new Event('input')); return true; })()")
    await expect_frame(first, typing_of(me, False), "the page's stop (active:false)")

    await first.send(json.dumps({"type": "typing", "data": {"active": True}}))
    await page.wait_for(f"document.getElementById('typing').textContent === {json.dumps(py + ' is typing…')}",
                        "#typing: one member typing")
    await second.send(json.dumps({"type": "typing", "data": {"active": True}}))
    both = f"{py} and {py2} are typing…"
    await page.wait_for(f"document.getElementById('typing').textContent === {json.dumps(both)}",
                        "#typing: two members typing")
    visible = await page.eval("(() => { const r = document.getElementById('typing').getBoundingClientRect();"
                              " return r.height > 0 && r.bottom <= window.innerHeight; })()")
    if not visible:
        raise Failure("#typing is not visible")
    await screenshot(page, 1280, 800, f"{args.screenshots}-1280.png")
    await screenshot(page, 390, 844, f"{args.screenshots}-390.png")

    await first.send(json.dumps({"type": "typing", "data": {"active": False}}))
    await page.wait_for(f"document.getElementById('typing').textContent === {json.dumps(py2 + ' is typing…')}",
                        "#typing after a stop")
    await second.send(json.dumps({"type": "message", "data": {"text": f"done {TAG}"}}))
    await page.wait_for("document.getElementById('typing').textContent === ''", "#typing empty after the message")

    await first.close()
    await second.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    args = browser_chat.page_arguments(
        __doc__, 120, lambda ap: ap.add_argument("--screenshots", default="/tmp/browser_typing"))
    browser_chat.run(scenario, args, lambda product: f"page typing ({product})",
                     f"; screenshots {args.screenshots}-1280.png, -390.png")


if __name__ == "__main__":
    main()
