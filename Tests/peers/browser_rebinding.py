#!/usr/bin/env python3
"""DNS rebinding, played by headless Chromium against switchboard's Host check.

usage: browser_rebinding.py HTTP_PORT [--allowed NAME] [--timeout S] [--chromium PATH]

Chromium runs with --host-resolver-rules mapping `r.attacker.example` (and NAME) to
127.0.0.1: to the browser that is a foreign site whose name now points at the server, which
is exactly what a rebinding attacker arranges with DNS (no DNS is used here).

1. http://r.attacker.example:HTTP_PORT/ must not be the chat page: the server answers 421
   and the tab shows the reason. From that document (its origin is the attacker's site),
   a same-origin fetch('/') gets status 421, and a WebSocket to
   ws://r.attacker.example:HTTP_PORT/ (Origin and Host both the attacker's) never opens.
2. http://localhost:HTTP_PORT/ is the chat page, and its WebSocket opens.
3. With --allowed NAME (a name given to serve's --allow-host): http://NAME:HTTP_PORT/ is the
   chat page and its WebSocket opens.

The browser plumbing is browser_chat.py's. Exit 0 when everything passes; otherwise
"FAIL: reason", 1.
"""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, Page  # noqa: E402

ATTACKER = "r.attacker.example"

# Opens a WebSocket and reports how it ended: "open" once it opens, else "closed CODE".
WEBSOCKET_JS = """
new Promise(resolve => {
  const ws = new WebSocket(%s);
  ws.onopen = () => { resolve("open"); ws.close(); };
  ws.onclose = event => resolve("closed " + event.code);
  setTimeout(() => resolve("no answer"), 15000);
})
"""


async def navigate(cdp, url):
    """A tab at `url`, loaded (whatever the status), without requiring the chat page."""
    target = await cdp.call("Target.createTarget", url="about:blank")
    attached = await cdp.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
    page = Page(cdp, attached["sessionId"])
    await page.call("Page.enable")
    await page.call("Runtime.enable")
    navigation = await page.call("Page.navigate", url=url)
    if navigation.get("errorText"):
        raise Failure(f"load of {url} failed: {navigation['errorText']}")
    await page.wait_for("document.readyState === 'complete'", f"load of {url}")
    return page


async def awaited(page, expression):
    reply = await page.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
    if "exceptionDetails" in reply:
        raise Failure(f"{expression.strip()[:60]}…: {reply['exceptionDetails'].get('text')}")
    return reply["result"].get("value")


async def expect_chat_page(cdp, host, port):
    page = await navigate(cdp, f"http://{host}:{port}/")
    if not await page.eval("!!document.getElementById('name-form')"):
        text = await page.eval("document.body ? document.body.innerText : ''")
        raise Failure(f"http://{host}:{port}/ is not the chat page: {text[:200]!r}")
    ended = await awaited(page, WEBSOCKET_JS % json.dumps(f"ws://{host}:{port}/"))
    if ended != "open":
        raise Failure(f"the WebSocket from http://{host}:{port}/ did not open: {ended}")


async def scenario(args):
    names = [ATTACKER] + ([args.allowed] if args.allowed else [])
    rules = ", ".join(f"MAP {name} 127.0.0.1" for name in names)
    cdp, ws, product = await browser_chat.start_chromium(args, [f"--host-resolver-rules={rules}"])

    # 1. The rebinding page.
    page = await navigate(cdp, f"http://{ATTACKER}:{args.http_port}/")
    if await page.eval("!!document.getElementById('name-form')"):
        raise Failure(f"http://{ATTACKER}:{args.http_port}/ served the chat page")
    text = await page.eval("document.body ? document.body.innerText : ''")
    if "is not served here" not in text:
        raise Failure(f"the refused page does not say why: {text[:200]!r}")
    origin = await page.eval("location.origin")
    if origin != f"http://{ATTACKER}:{args.http_port}":
        raise Failure(f"the refused page's origin is {origin!r}")
    status = await awaited(page, "fetch('/rooms/lobby').then(r => r.status)")
    if status != 421:
        raise Failure(f"a same-origin fetch from the rebinding page got {status}, not 421")
    ended = await awaited(page, WEBSOCKET_JS % json.dumps(f"ws://{ATTACKER}:{args.http_port}/"))
    if ended == "open":
        raise Failure("the rebinding page's WebSocket opened")

    # 2. localhost, and 3. an --allow-host name, still get the page and its WebSocket.
    await expect_chat_page(cdp, "localhost", args.http_port)
    if args.allowed:
        await expect_chat_page(cdp, args.allowed, args.http_port)

    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("http_port", type=int)
    ap.add_argument("--allowed", default=None)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--chromium", default=None)
    args = ap.parse_args()

    browser_chat.run(scenario, args, lambda product: f"DNS rebinding refused ({product})")


if __name__ == "__main__":
    main()
