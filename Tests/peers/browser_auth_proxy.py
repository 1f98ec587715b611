#!/usr/bin/env python3
"""Headless Chromium against a server that asks an auth proxy (`serve --auth-proxy`, with
Tests/peers/auth_backend.py refusing the name `bob` with the reason `banned`).

usage: browser_auth_proxy.py HTTP_PORT TCP_PORT [--timeout S] [--chromium PATH]

1. A TCP line client names itself `ncuser` (admitted by the backend).
2. The page, named `webuser` in its name form, is admitted and chats: its message reaches
   the line client as `webuser: TEXT`.
3. Another page named `bob`: the backend refuses it, the server closes the WebSocket with
   4003 "banned", and the page shows that refusal (a `.notice.error` and
   `#status[data-state=refused]` with the reason) instead of chatting.

The browser plumbing is browser_chat.py's. Exit 0 when everything passes; otherwise
"FAIL: reason", 1.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import open_page  # noqa: E402


async def scenario(args):
    host = args.host
    cdp, ws, product = await browser_chat.start_chromium(args)

    line = await browser_chat.line_member(host, args.tcp_port)

    page = await open_page(cdp, f"http://{host}:{args.http_port}/")
    text = f"hello through the auth proxy {browser_chat.TAG}"
    await browser_chat.chat_as(page, "webuser", text, line, "page admitted by the backend")

    refused = await open_page(cdp, f"http://{host}:{args.http_port}/")
    await refused.wait_for("document.getElementById('status').dataset.state === 'online'", "second page online")
    await refused.type_into("#name", "bob")
    await refused.click("#name-form button[type=submit]")
    await browser_chat.expect_refused(refused, "banned", "the page named bob")

    line.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    args = browser_chat.page_arguments(__doc__, 90)
    browser_chat.run(scenario, args, lambda product: f"browser chat behind an auth proxy ({product})")


if __name__ == "__main__":
    main()
