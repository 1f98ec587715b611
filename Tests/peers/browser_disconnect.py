#!/usr/bin/env python3
"""Headless Chromium: a page member removed through the server API (`serve --api-key K`,
`POST /api/disconnect`, called with curl) sees why and stays out.

usage: browser_disconnect.py HTTP_PORT TCP_PORT --api-key K [--timeout S] [--chromium PATH]
                             [--screenshots /tmp/browser_disconnect]

1. A TCP line client `ncuser` and the page, named `webuser`, chat in lobby.
2. curl posts {"user":"webuser","reason":"account closed"} to /api/disconnect; the server
   closes the page's WebSocket with 4001 "disconnected by the server: account closed".
3. The page shows that reason (a `.notice.error` and `#status`, `data-state=refused`), its
   composer is disabled, its member count is gone, and it does not connect again: not on its retry timer (its first
   retry would come within 1.25 s), not when the browser reports it is back online or
   visible. The page counts its `new WebSocket` calls (one), the line client sees no
   second join of webuser within 3 s, and its `/who` then lists ncuser alone.
4. Screenshots of the disconnected page at 1280x800 and 390x844 go to
   --screenshots-1280.png and -390.png.

The browser plumbing is browser_chat.py's. Exit 0 when everything passes; otherwise
"FAIL: reason", 1.
"""

import asyncio
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, open_page  # noqa: E402
from browser_commands import screenshot  # noqa: E402

REASON = "account closed"
SHOWN = "disconnected by the server: " + REASON
# Counts the page's WebSocket constructions, so "did not reconnect" is read, not assumed.
COUNT_SOCKETS = """
  window.__sockets = 0;
  const Original = window.WebSocket;
  window.WebSocket = function (...args) { window.__sockets += 1; return new Original(...args); };
  window.WebSocket.prototype = Original.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
"""


def joins_of(lines, name):
    """The line client's lines that announce `name` joining."""
    return [l for l in lines if l.startswith("* ") and name in l and "join" in l]


async def scenario(args):
    host = args.host
    cdp, ws, product = await browser_chat.start_chromium(args)

    line = await browser_chat.line_member(host, args.tcp_port)

    page = await open_page(cdp, f"http://{host}:{args.http_port}/", COUNT_SOCKETS)
    await page.wait_for("window.__sockets === 1", "the page's WebSocket counted")
    await browser_chat.chat_as(page, "webuser", f"hello before the disconnect {browser_chat.TAG}", line,
                               "page member")

    # 2. The app's backend removes the user.
    curl = subprocess.run(
        ["curl", "-sS", "-w", "\n%{http_code}", "-H", f"Authorization: Bearer {args.api_key}", "--json",
         json.dumps({"user": "webuser", "reason": REASON}), f"http://{host}:{args.http_port}/api/disconnect"],
        capture_output=True, text=True, timeout=30)
    body, _, code = curl.stdout.rpartition("\n")
    if curl.returncode != 0 or code != "200" or '"closed":1' not in body:
        raise Failure(f"curl /api/disconnect: exit {curl.returncode}, {code} {body!r} {curl.stderr!r}")

    # 3. The page says why and stays out.
    await browser_chat.expect_refused(page, SHOWN, "the disconnected page")
    disconnected_at = time.monotonic()
    with line.lock:
        seen = len(line.lines)
    if not await page.eval("document.getElementById('send').disabled && document.getElementById('input').disabled"):
        raise Failure("the disconnected page's composer is still enabled")
    members = await page.eval("document.getElementById('members').textContent")
    if members:
        raise Failure(f"the disconnected page still shows a member count ({members!r})")
    await page.eval("window.dispatchEvent(new Event('online')), "
                    "document.dispatchEvent(new Event('visibilitychange')), true")

    # No reconnect: a second join would reach the line client within the page's first retry
    # (1.25 s at most); three seconds is that retry twice over. Waiting ends early on a join.
    while time.monotonic() - disconnected_at < 3:
        with line.lock:
            again = joins_of(line.lines[seen:], "webuser")
        if again:
            raise Failure(f"the disconnected page joined again: {again}")
        sockets = await page.eval("window.__sockets")
        if sockets != 1:
            raise Failure(f"the disconnected page opened {sockets} WebSockets (1 expected)")
        await asyncio.sleep(0.1)
    line.send("/who")
    await line.expect(lambda l: l.startswith("* in ") and l.partition("): ")[2].split(", ") == ["ncuser"],
                      what="the /who answer listing ncuser alone")
    state = await page.eval("document.getElementById('status').dataset.state")
    if state != "refused":
        raise Failure(f"the disconnected page's status went back to {state!r}")

    # 4. What a user sees, at a desktop and a phone size.
    await screenshot(page, 1280, 800, f"{args.screenshots}-1280.png")
    await screenshot(page, 390, 844, f"{args.screenshots}-390.png")

    line.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    def add(ap):
        ap.add_argument("--api-key", required=True)
        ap.add_argument("--screenshots", default="/tmp/browser_disconnect")

    args = browser_chat.page_arguments(__doc__, 90, add)
    browser_chat.run(scenario, args, lambda product: f"a page member disconnected by the API ({product})",
                     f"; screenshots {args.screenshots}-1280.png, -390.png")


if __name__ == "__main__":
    main()
