#!/usr/bin/env python3
"""Headless Chromium: a page whose token runs out (`serve --auth-secret-file F
--auth-leeway 0 --token-refresh-lead 3`) is told ahead and then why it was closed.

usage: browser_token_expiry.py HTTP_PORT TCP_PORT --secret-file F [--ttl 8]
                               [--timeout S] [--chromium PATH]

1. Mints an HS256 token here (python's hmac: a signer the server did not write) with
   sub `webuser`, rooms `*` and exp --ttl seconds from now, just before opening
   http://HOST:HTTP_PORT/?token=T, and chats as webuser with a TCP line client that sent
   `auth:` with a long-lived token.
2. The server's `token_expiring` frame: the page shows "your token expires in N s; this
   page cannot renew it" as a `.notice.error`.
3. At expiry the server closes with 1008 "token expired": the page shows "this page cannot
   renew its token" (notice and `#status`, `data-state=refused`) and does not reconnect.

The browser plumbing is browser_chat.py's. Exit 0 when everything passes; otherwise
"FAIL: reason", 1.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, LineClient, open_page  # noqa: E402
from hs256_token import mint  # noqa: E402

NOTICES = "[...document.querySelectorAll('#messages .notice.error')].map(e => e.textContent)"


async def scenario(args):
    host = args.host
    with open(args.secret_file, "rb") as f:
        secret = f.read()
    cdp, ws, product = await browser_chat.start_chromium(args)

    line = LineClient(host, args.tcp_port)
    line.send("auth:" + mint(secret, "ncuser", 3600))
    await line.expect("* authenticated as ncuser")
    await browser_chat.expect_listed(line, "ncuser")

    token = mint(secret, "webuser", args.ttl)
    page = await open_page(cdp, f"http://{host}:{args.http_port}/?token={token}")
    await page.eval("document.getElementById('name').value = ''")
    await browser_chat.chat_as(page, "webuser", f"hello with a short token {browser_chat.TAG}", line,
                               "page with a short-lived token")

    await page.wait_for(f"{NOTICES}.some(t => t.includes('your token expires in') &&"
                        " t.includes('this page cannot renew it'))",
                        "the token_expiring notice", timeout=args.ttl + 5)
    await browser_chat.expect_refused(page, "token expired: this page cannot renew its token",
                                      "the page at expiry", timeout=args.ttl + 5)
    await page.eval("window.dispatchEvent(new Event('online')), true")
    state = await page.eval("document.getElementById('status').dataset.state")
    if state != "refused":
        raise Failure(f"the expired page went back to {state!r} when the browser came back online")

    line.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    def add(ap):
        ap.add_argument("--secret-file", required=True)
        ap.add_argument("--ttl", type=int, default=8)

    args = browser_chat.page_arguments(__doc__, 90, add)
    browser_chat.run(scenario, args, lambda product: f"a page whose token ran out ({product})")


if __name__ == "__main__":
    main()
