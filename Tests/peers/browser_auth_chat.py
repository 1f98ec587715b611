#!/usr/bin/env python3
"""Headless Chromium against a server that checks tokens (`serve --auth-secret…`), over TLS.

usage: browser_auth_chat.py HTTPS_PORT TCP_PORT --spki BASE64 --token T --line-token T
                            [--timeout S] [--chromium PATH]

1. A TCP line client authenticates with --line-token (`auth:T`, sub `ncuser`).
2. Chromium opens https://127.0.0.1:HTTPS_PORT/?token=T (T's sub is `webuser`): the page
   must have loaded over https:, fill its name field with the token's sub, pass the token
   on to its wss:// WebSocket, and chat: its message reaches the line client as
   `webuser: TEXT` and is shown as `.message.me`; the line client's reply is shown as
   `.message.other`.
3. The same page without a token: the server closes its WebSocket with 1008
   "authentication required", and the page shows that refusal (a `.notice.error` and
   `#status[data-state=refused]`) instead of chatting.

Chromium trusts the server's key by its SPKI hash (as in browser_https_chat.py). The
browser plumbing is browser_chat.py's. Exit 0 when everything passes; otherwise
"FAIL: reason", 1.
"""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, LineClient, messages_js, open_page  # noqa: E402


async def scenario(args):
    host = "127.0.0.1"
    cdp, ws, product = await browser_chat.start_chromium(
        args, [f"--ignore-certificate-errors-spki-list={args.spki}"])

    line = LineClient(host, args.tcp_port)
    line.send("auth:" + args.line_token)
    await line.expect("* authenticated as ncuser")
    await browser_chat.expect_listed(line, "ncuser")

    # 2. With the token in the page's URL.
    page = await open_page(cdp, f"https://{host}:{args.https_port}/?token={args.token}")
    if await page.eval("location.protocol") != "https:":
        raise Failure("the page did not load over https:")
    offered = await page.eval("document.getElementById('name').value")
    if offered != "webuser":
        raise Failure(f"page: the name field offers {offered!r}, not the token's sub 'webuser'")
    await page.eval("document.getElementById('name').value = ''")
    text = f"hello with a token {browser_chat.TAG}"
    await browser_chat.chat_as(page, "webuser", text, line, "page with a token")
    reply = f"hello webuser {browser_chat.TAG}"
    line.send(reply)
    await page.wait_for(f"{messages_js('other')}.includes({json.dumps(reply)})",
                        "the line client's reply shown as .message.other")

    # 3. Without one: refused, and the page says so.
    bare = await open_page(cdp, f"https://{host}:{args.https_port}/")
    await browser_chat.expect_refused(bare, "authentication required", "the page without a token")

    line.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("https_port", type=int)
    ap.add_argument("tcp_port", type=int)
    ap.add_argument("--spki", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--line-token", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--chromium", default=None)
    args = ap.parse_args()

    browser_chat.run(scenario, args, lambda product: f"browser chat with a token ({product})")


if __name__ == "__main__":
    main()
