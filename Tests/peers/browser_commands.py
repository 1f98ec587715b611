#!/usr/bin/env python3
"""The web page's command language in headless Chromium, against an nc-style line client.

usage: browser_commands.py HTTP_PORT TCP_PORT [--host 127.0.0.1] [--timeout S]
                           [--screenshots /tmp/browser_commands] [--chromium PATH]

Typed into the page's #input as a user types: /help lists the commands (//TEXT among
them); an nc user's `/me dances` shows as `* ncuser dances` (.message.action); the page's
`/me waves` reaches the line client as `* NAME waves`; `//slash` sends `/slash`; /who and
/rooms answer in the transcript; /history 2 shows the last two as
`[ID] NAME: TEXT` notices; an unknown command is answered, not sent; /join dev moves
the page (header, and the line client sees it leave); /nick renames. Screenshots at
1280x800 and 390x844 go to --screenshots-1280.png and -390.png.
Exit 0 when everything passes; otherwise one line "FAIL: reason" and exit 1.
"""

import asyncio
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, chat_as, open_page  # noqa: E402

TAG = os.urandom(3).hex()


def notices_js():
    return "[...document.querySelectorAll('#messages .notice')].map(e => e.textContent)"


async def say(page, text):
    await page.type_into("#input", text)
    await page.click("#send")
    await page.wait_for("document.getElementById('input').value === ''", f"#input cleared after {text!r}")


async def expect_notice(page, predicate_js, what):
    await page.wait_for(f"{notices_js()}.some(t => {predicate_js})", what)


async def screenshot(page, width, height, path):
    await page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                    mobile=width < 500)
    await asyncio.sleep(0.3)  # one layout pass at the new size
    shot = await page.call("Page.captureScreenshot", format="png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


async def scenario(args):
    cdp, ws, product = await browser_chat.start_chromium(args)
    line = await browser_chat.line_member(args.host, args.tcp_port)

    page = await open_page(cdp, f"http://{args.host}:{args.http_port}/")
    me = f"web-{TAG}"
    await chat_as(page, me, f"hello {TAG}", line, "page")

    await say(page, "/help")
    for usage in ["/join ROOM", "/who", "/rooms", "/nick NAME", "/me ACTION", "/history [N]", "/help", "/quit",
                  "//TEXT"]:
        await expect_notice(page, f"t.includes({json.dumps(usage)})", f"/help listing {usage}")

    line.send("/me dances")
    await page.wait_for(
        "[...document.querySelectorAll('#messages .message.action .text')].some(e => e.textContent === "
        "'* ncuser dances')", "the nc user's action shown as * ncuser dances")
    await say(page, "/me waves")
    await line.expect(f"* {me} waves")
    await say(page, "//slash text")
    await line.expect(f"{me}: /slash text")
    await say(page, "/who")
    await expect_notice(page, f"t === '* in lobby (2): ' + {json.dumps(', '.join(sorted(['ncuser', me])))}",
                        "the /who answer")
    await say(page, "/frob")
    await expect_notice(page, "t === '! unknown command /frob (try /help)'", "the unknown command answered")
    await say(page, "/join dev room")
    await expect_notice(page, "t.startsWith('! usage: /join ROOM')", "a bad room refused on the page")
    sent = await page.eval("[...document.querySelectorAll('#messages .message .text')].map(e => e.textContent)")
    if any("frob" in t or "dev room" in t for t in sent):
        raise Failure(f"page: a command was sent as a message: {sent}")
    await screenshot(page, 1280, 800, f"{args.screenshots}-1280.png")
    await screenshot(page, 390, 844, f"{args.screenshots}-390.png")

    await say(page, "/join dev")
    await line.expect(f"* {me} has left")
    await page.wait_for("document.getElementById('room').textContent === '# dev' && location.search.includes('room=dev')",
                        "the page moved to dev")
    line.send("/join dev")
    await expect_notice(page, "t === '* ncuser has joined'", "the nc user joining dev, seen on the page")
    await say(page, "/rooms")
    await expect_notice(page, "t === '* rooms: dev (2)'", "the /rooms answer")
    await say(page, f"/nick renamed-{TAG}")
    await line.expect(f"* {me} is now renamed-{TAG}")
    await expect_notice(page, f"t === '* you are now renamed-{TAG}'", "the page told its new name")
    await say(page, f"as renamed {TAG}")
    await line.expect(f"renamed-{TAG}: as renamed {TAG}")
    line.send(f"from nc {TAG}")
    await page.wait_for(
        f"[...document.querySelectorAll('#messages .message .text')].some(e => e.textContent === 'from nc {TAG}')",
        "the nc user's message shown")
    await say(page, "/history 2")
    await expect_notice(page, f"/^\\[\\d+\\] renamed-{TAG}: as renamed {TAG}$/.test(t)", "/history's first line")
    await expect_notice(page, f"/^\\[\\d+\\] ncuser: from nc {TAG}$/.test(t)", "/history's last line")

    line.close()
    await browser_chat.close_browser(cdp, ws)
    return product


def main():
    args = browser_chat.page_arguments(
        __doc__, 120, lambda ap: ap.add_argument("--screenshots", default="/tmp/browser_commands"))
    browser_chat.run(scenario, args, lambda product: f"page commands ({product})",
                     f"; screenshots {args.screenshots}-1280.png, -390.png")


if __name__ == "__main__":
    main()
