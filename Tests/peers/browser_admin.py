#!/usr/bin/env python3
"""Drives switchboard's admin console (/admin) in headless Chromium against a real server.

usage: browser_admin.py HTTP_PORT TCP_PORT UDP_PORT --password-file FILE [--host 127.0.0.1]
                        [--timeout S] [--screenshots DIR] [--chromium PATH]
       browser_admin.py HTTP_PORT TCP_PORT UDP_PORT --password-file FILE
                        --cluster TCP_PORT_2,TCP_PORT_3 [...]

The server runs `switchboard serve --admin-password-file FILE`; the page is opened at
http://HOST:HTTP_PORT/admin in a tab whose every request is recorded (DevTools
Network.requestWillBeSent).

Single node (the default):
 1. Four wrong passwords are each answered "wrong password"; the fifth fast try is slowed:
    the page shows "too many attempts, try again in N s" and holds its button for N s.
    Once it lets go, the right password logs in.
 2. A WebSocket client, a raw TCP line client (`iam:`, `/join`) and a UDP client (proving
    its address first, docs/PROTOCOLS.md) join a fresh room: the overview lists it with 3
    members, and with 2, then 1, as the WebSocket and UDP clients leave (the times it took
    are printed; each must come within the wait's deadline). With a second room, the rooms
    table sorts by members (both ways) and by name, and its filter keeps the matching room.
 3. The room's page (a click on its row's link, `#room=NAME`) lists its members with their
    transport; a line the TCP client sends appears in its messages; a notice published from
    its form reaches the TCP client, and the server API's answer (`"id"`) is shown.
 4. A page on a second local HTTP server (another port: the same site, so the browser sends
    the admin cookie) POSTs to /admin/api/publish with a form and with fetch: the server
    answers 403 and nothing is published (a later notice from the console reaches the TCP
    client, the cross-site text never does).
 5. Disconnecting the TCP member from its row (confirm dialog, a reason) closes its
    connection after `* disconnected by the server: REASON`; the answer `{"closed":1}` shows.
 6. No request of the console's tab left the server's origin. A logout behind the page's
    back (the session's token, from the page's origin) ends its stream and the page asks to
    log in again; after logging in, its Logout button shows the login form and the session
    is gone. Screenshots (overview and room, 1280x800 and 390x844, light and
    dark) go to --screenshots DIR.

With --cluster (three `serve --redis` nodes; the page on the first): a line member on each
node joins one room; the overview lists three nodes, and the room's page lists the three
members with three different nodes.

Chromium is driven over the DevTools protocol with the python `websockets` client, with its
own temporary profile, and is killed by PID at the end (browser_chat.py's helpers).
Exit 0 when everything passes; otherwise one line "FAIL: reason" and exit 1.
"""

import asyncio
import base64
import http.server
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402
from browser_chat import Failure, LineClient  # noqa: E402

import websockets  # noqa: E402

TAG = os.urandom(3).hex()


# --- peers ---------------------------------------------------------------------------------

class UDPMember:
    """A UDP client that proves its address (the server's `/ok CODE` offer), then names
    itself and joins `room`."""

    def __init__(self, host, port):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.connect((host, port))
        self.sock.settimeout(0.5)
        self.lines = []

    def _read(self):
        try:
            data = self.sock.recv(65536)
        except (socket.timeout, BlockingIOError):
            return
        self.lines.extend(data.decode("utf-8", "replace").splitlines())

    async def _await(self, predicate, what, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if predicate(line):
                    return line
            await asyncio.to_thread(self._read)
        raise Failure(f"UDP client: no {what} within {timeout}s (got {self.lines[-5:]})")

    async def join(self, name, room):
        self.sock.send(b"hello from udp " + TAG.encode())  # 12 bytes or more: the server offers a code
        offer = await self._await(lambda l: l.startswith("* send /ok "), "address offer")
        code = offer.split()[3]
        self.sock.send(f"/ok {code}".encode())
        await self._await(lambda l: l.startswith("* ok, you are in"), "proof accepted")
        self.sock.send(f"iam:{name}".encode())
        self.sock.send(f"/join {room}".encode())

    def leave(self):
        self.sock.send(b"/quit")
        self.sock.close()


async def line_in_room(host, port, name, room):
    """A raw TCP line client called `name`, moved to `room` (its /who answer lists it)."""
    line = LineClient(host, port)
    line.send(f"iam:{name}")
    line.send(f"/join {room}")
    line.send("/who")
    await line.expect(lambda l: l.startswith(f"* in {room} (") and name in l.partition("): ")[2].split(", "),
                      what=f"the /who answer of {room} listing {name}")
    return line


def hang_up(line):
    """Closes a line client's connection for the server to see: its reader thread blocks in
    recv() on the socket, and close() alone would leave the descriptor open under it."""
    try:
        line.sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    line.close()


class CrossSite:
    """A second local HTTP server (another port: another origin, the same site) whose page
    tries to publish into `room` through the admin API with the browser's cookie."""

    def __init__(self, host, admin_port, room, text):
        target = f"http://{host}:{admin_port}/admin/api/publish"
        body = json.dumps({"room": room, "text": text, "author": "mallory"})
        page = f"""<!doctype html><html><body>
<form id="f" method="POST" action="{target}" enctype="text/plain" target="sink">
<input type="hidden" name='{body[:-1]}, "pad":"' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
fetch({json.dumps(target)}, {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}})
  .then(() => {{ document.title = "fetched"; document.getElementById("f").submit(); }},
        () => {{ document.title = "fetched"; document.getElementById("f").submit(); }});
</script></body></html>""".encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# --- the page -------------------------------------------------------------------------------

async def open_admin(cdp, url):
    """A new tab on the console at the login form, every request it makes recorded."""
    page = await browser_chat.new_tab(cdp, "Page", "Runtime", "Network")
    await page.call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
    navigation = await page.call("Page.navigate", url=url)
    if navigation.get("errorText"):
        raise Failure(f"page: load of {url} failed: {navigation['errorText']}")
    # (Until the navigation commits, the tab still holds about:blank, without #login.)
    await page.wait_for("document.readyState === 'complete' && !!document.getElementById('login')"
                        " && !document.getElementById('login').hidden",
                        "the login form")
    return page


def requests_of(cdp, page):
    return [e["params"]["request"]["url"] for e in cdp.events
            if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == page.session]


def responses_of(cdp, page):
    return [(e["params"]["response"]["url"], e["params"]["response"]["status"]) for e in cdp.events
            if e.get("method") == "Network.responseReceived" and e.get("sessionId") == page.session]


async def login_try(page, password, expected, what):
    """Submits `password`; the login error line must become `expected` (a prefix; "" takes
    any answer)."""
    await page.eval("document.getElementById('login-error').textContent = 'sending'")
    await page.eval("document.getElementById('password').value = ''")
    await page.type_into("#password", password)
    await page.click("#login-submit")
    return await page.wait_for(
        f"(() => {{ const t = document.getElementById('login-error').textContent;"
        f" return t && t !== 'sending' && t.startsWith({json.dumps(expected)}) ? t : null; }})()", what)


async def log_in(page, password):
    await page.wait_for("!document.getElementById('login-submit').disabled", "the login button usable", timeout=60)
    await page.eval("document.getElementById('password').value = ''")
    await page.type_into("#password", password)
    await page.click("#login-submit")
    await page.wait_for("!document.getElementById('app').hidden && document.getElementById('login').hidden",
                        "logged in")
    await page.wait_for("document.getElementById('stream').dataset.state === 'live'", "the stream live")


def room_members_js(room):
    return (f"(() => {{ const r = document.querySelector('#rooms tr[data-room=\"{room}\"] .members');"
            " return r ? Number(r.textContent) : null; })()")


async def members_become(page, room, count, what):
    started = time.monotonic()
    await page.wait_for(f"{room_members_js(room)} === {count}", what, timeout=15)
    return time.monotonic() - started


async def chatter(line, web, count, start=0):
    """`count` messages, the TCP and the WebSocket client in turn (the WebSocket client
    alone without `line`), ten a second: something for the room's page and the charts."""
    for i in range(start, start + count):
        text = f"chatter {i} {TAG}"
        if i % 2 or line is None:
            await web.send(json.dumps({"type": "message", "data": {"text": text}}))
        else:
            line.send(text)
        await asyncio.sleep(0.1)


def compact(value):
    """JSON as the page's JSON.stringify writes it (no spaces)."""
    return json.dumps(value, separators=(",", ":"))


def rooms_order_js(prefix):
    return (f"[...document.querySelectorAll('#rooms tr[data-room]')].map(r => r.dataset.room)"
            f".filter(r => r.startsWith({json.dumps(prefix)}))")


async def sorted_and_filtered(page, host, tcp_port, room):
    """A second room with one member: the rooms table sorts by members both ways and by name,
    and the filter keeps only the rooms whose name holds its text."""
    other = f"{room}-b"
    line = await line_in_room(host, tcp_port, "loner", other)
    await members_become(page, other, 1, f"{other} listed with 1 member")
    await page.click('#rooms th[data-sort="members"] button')
    await page.wait_for(f"JSON.stringify({rooms_order_js(room)}) === {json.dumps(compact([room, other]))}",
                        "the rooms sorted by members, most first")
    await page.click('#rooms th[data-sort="members"] button')
    await page.wait_for(f"JSON.stringify({rooms_order_js(room)}) === {json.dumps(compact([other, room]))}",
                        "the rooms sorted by members, fewest first")
    await page.click('#rooms th[data-sort="room"] button')
    await page.wait_for(f"JSON.stringify({rooms_order_js(room)}) === {json.dumps(compact([room, other]))}",
                        "the rooms sorted by name")
    await page.type_into("#room-filter", f"{TAG}-B")
    await page.wait_for("JSON.stringify([...document.querySelectorAll('#rooms tr[data-room]')].map(r => r.dataset.room))"
                        f" === {json.dumps(compact([other]))}", "the filter keeping only the matching room")
    await page.eval("(() => { const f = document.getElementById('room-filter'); f.value = '';"
                    " f.dispatchEvent(new Event('input')); return true; })()")
    hang_up(line)
    await page.wait_for(f"[null, 0].includes({room_members_js(other)})", f"{other} empty once its member left")


async def screenshot(page, width, height, dark, path):
    await page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                    mobile=width < 500)
    await page.call("Emulation.setEmulatedMedia",
                    features=[{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}])
    # Two snapshots at the new size (the page redraws on each).
    await page.eval("new Promise(r => setTimeout(r, 1200))")
    shot = await page.call("Page.captureScreenshot", format="png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


async def screenshots(page, directory, view):
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    for width, height in ((1280, 800), (390, 844)):
        for dark in (False, True):
            await screenshot(page, width, height, dark,
                             os.path.join(directory, f"admin-{view}-{width}-{'dark' if dark else 'light'}.png"))
    await page.call("Emulation.setEmulatedMedia", features=[])
    await page.call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)


# --- scenarios ------------------------------------------------------------------------------

async def single_node(args, cdp, password):
    host, origin = args.host, f"http://{args.host}:{args.http_port}"
    page = await open_admin(cdp, f"{origin}/admin")

    # 1. Wrong passwords, then the fifth fast try slowed, then the right one.
    for attempt in range(1, 5):
        await login_try(page, f"wrong-{attempt}-{TAG}", "wrong password", f"wrong password #{attempt} refused")
    # The fourth failure blocks for 2 s; a loaded machine may take longer to type the fifth,
    # which is then checked and refused like the others, and doubles the next block: up to
    # four more tries reach a block longer than typing takes.
    slowed = None
    for attempt in range(5, 10):
        text = await login_try(page, f"wrong-{attempt}-{TAG}", "", f"try #{attempt} answered")
        if text.startswith("too many attempts, try again in "):
            slowed = text
            break
        if not text.startswith("wrong password"):
            raise Failure(f"page: try #{attempt} answered {text!r}")
    if slowed is None:
        raise Failure("page: no try was slowed after four wrong passwords")
    if not await page.eval("document.getElementById('login-submit').disabled"):
        raise Failure(f"page: the login button is usable while slowed ({slowed!r})")
    if not any(url == f"{origin}/admin/login" and status == 429 for url, status in responses_of(cdp, page)):
        raise Failure(f"the fifth try was not answered 429: {responses_of(cdp, page)}")
    await log_in(page, password)

    # 2. Three transports join a fresh room; the overview counts them as they come and go.
    room = f"adm-{TAG}"
    line = await line_in_room(host, args.tcp_port, "ncuser", room)
    web = await websockets.connect(f"ws://{host}:{args.http_port}/rooms/{room}?name=wsuser", open_timeout=10)
    udp = UDPMember(host, args.udp_port)
    await udp.join("udpuser", room)
    await page.wait_for(f"{room_members_js(room)} === 3", f"the overview listing {room} with 3 members")
    await web.close()
    ws_left = await members_become(page, room, 2, "2 members after the WebSocket client left")
    udp.leave()
    udp_left = await members_become(page, room, 1, "1 member after the UDP client left")
    # The WebSocket and UDP clients back for the room's page.
    web = await websockets.connect(f"ws://{host}:{args.http_port}/rooms/{room}?name=wsuser", open_timeout=10)
    udp = UDPMember(host, args.udp_port)
    await udp.join("udpuser", room)
    joined = await members_become(page, room, 3, "3 members again")
    await sorted_and_filtered(page, host, args.tcp_port, room)

    # 3. The room's page: members with their transport, messages as sent, a published notice.
    await page.click(f'#rooms tr[data-room="{room}"] a')
    await page.wait_for(f"location.hash === '#room={room}' && !document.getElementById('room-view').hidden",
                        "the room's page")
    transports = await page.wait_for(
        "(() => { const m = {}; for (const r of document.querySelectorAll('#members tr[data-member]'))"
        " m[r.dataset.member] = r.querySelector('.transport').textContent;"
        " return Object.keys(m).length === 3 ? m : null; })()", "the room's three members")
    if transports != {"ncuser": "tcp", "wsuser": "ws", "udpuser": "udp"}:
        raise Failure(f"page: the members' transports are {transports}")
    said = f"hello from nc {TAG}"
    line.send(said)
    await page.wait_for(f"[...document.querySelectorAll('#messages li .text')].some(e => e.textContent === "
                        f"{json.dumps(said)})", "the TCP client's line in the room's messages")
    author = await page.eval(f"[...document.querySelectorAll('#messages li')].filter(li => li.querySelector('.text')"
                             f".textContent === {json.dumps(said)}).map(li => li.querySelector('.author').textContent)[0]")
    if author != "ncuser":
        raise Failure(f"page: the TCP client's line is shown with author {author!r}")
    await web.send(json.dumps({"type": "message", "data": {"text": f"<b>web {TAG}</b>"}}))
    await page.wait_for(f"[...document.querySelectorAll('#messages li .text')].some(e => e.textContent === "
                        f"{json.dumps(f'<b>web {TAG}</b>')})", "the WebSocket client's message, as text")
    notice = f"maintenance at noon {TAG}"
    await page.type_into("#publish-text", notice)
    await page.type_into("#publish-author", "ops")
    await page.click("#publish-form button[type=submit]")
    await line.expect(f"ops: {notice}", what="the notice published from the page")
    await page.wait_for("document.getElementById('action-result').dataset.state === 'ok' &&"
                        " document.getElementById('action-result').textContent.includes('\"id\"')",
                        "the publish answer shown")
    await chatter(line, web, 12)
    last = f"chatter 11 {TAG}"
    await page.wait_for(f"[...document.querySelectorAll('#messages li .text')].some(e => e.textContent === "
                        f"{json.dumps(last)})", "the chatter on the room's page")
    await screenshots(page, args.screenshots, "room")

    # 4. A cross-site page tries to publish with the browser's cookie: refused, nothing published.
    forged = f"forged {TAG}"
    site = CrossSite(host, args.http_port, room, forged)
    try:
        attacker = await browser_chat.new_tab(cdp, "Network", "Page")
        await attacker.call("Page.navigate", url=f"http://{host}:{site.port}/")
        publish = f"{origin}/admin/api/publish"
        deadline = time.monotonic() + 20
        while True:
            answers = [status for url, status in responses_of(cdp, attacker) if url == publish]
            if len(answers) >= 2:
                break
            if time.monotonic() > deadline:
                raise Failure(f"the cross-site page's two POSTs got no answers ({responses_of(cdp, attacker)})")
            await asyncio.sleep(0.1)
        if any(status != 403 for status in answers):
            raise Failure(f"a cross-site POST to {publish} was answered {answers}, not 403")
        await cdp.call("Target.closeTarget", targetId=attacker.target)
    finally:
        site.close()
    after = f"after the forgery {TAG}"
    await page.eval("document.getElementById('publish-text').value = ''")
    await page.type_into("#publish-text", after)
    await page.click("#publish-form button[type=submit]")
    await line.expect(f"ops: {after}", what="the console's notice after the forgery")
    with line.lock:
        if any(forged in l for l in line.lines):
            raise Failure("the cross-site POST was published")

    # 5. Disconnect the TCP member from its row.
    reason = f"bye {TAG}"
    await page.click('#members tr[data-member="ncuser"] button.disconnect')
    await page.wait_for("document.getElementById('confirm').open", "the confirm dialog")
    await page.type_into("#confirm-reason", reason)
    await page.click("#confirm-yes")
    await line.expect(f"* disconnected by the server: {reason}", what="the disconnect line")
    deadline = time.monotonic() + 15
    while not line.closed:
        if time.monotonic() > deadline:
            raise Failure("the TCP member's connection stayed open after the disconnect")
        await asyncio.sleep(0.05)
    await page.wait_for("document.getElementById('action-result').textContent.includes('\"closed\":1')",
                        "the disconnect answer shown")
    await page.wait_for("!document.querySelector('#members tr[data-member=\"ncuser\"]')",
                        "the disconnected member gone from the list")

    # 6. The overview again (its charts now hold the chatter), nothing outside the origin, logout.
    await page.click("#back")
    await page.wait_for(f"!document.getElementById('overview').hidden && {room_members_js(room)} === 2",
                        "the overview with the room's two members left")
    if args.screenshots:  # with traffic on, for the rates
        talk = asyncio.ensure_future(chatter(None, web, 80, start=1))
        await screenshots(page, args.screenshots, "overview")
        await talk
    outside = [u for u in requests_of(cdp, page) if not u.startswith(origin + "/")]
    if outside:
        raise Failure(f"the console requested outside {origin}: {outside[:5]}")
    # The session ended elsewhere (a logout behind the page's back, as another tab would):
    # the server ends the stream and the page, finding its session gone, asks to log in.
    ended = await page.eval(
        "fetch('/admin/session').then(r => r.json()).then(s => fetch('/admin/logout',"
        " {method: 'POST', headers: {'X-CSRF-Token': s.csrf}})).then(r => r.status)")
    if ended != 204:
        raise Failure(f"a logout with the session's token answered {ended}, not 204")
    await page.wait_for("!document.getElementById('login').hidden && document.getElementById('app').hidden"
                        " && document.getElementById('login-error').textContent.includes('session has ended')",
                        "the login form once the session ended elsewhere")
    await log_in(page, password)
    await page.click("#logout")
    await page.wait_for("!document.getElementById('login').hidden && document.getElementById('app').hidden",
                        "the login form after logout")
    status = await page.eval("fetch('/admin/session').then(r => r.status)")
    if status != 401:
        raise Failure(f"GET /admin/session after logout answered {status}, not 401")
    await web.close()
    udp.leave()
    line.close()
    return f"slowed with {slowed!r}; members 3→2 in {ws_left:.1f}s, 2→1 in {udp_left:.1f}s, 1→3 in {joined:.1f}s"


async def cluster(args, cdp, password):
    host, origin = args.host, f"http://{args.host}:{args.http_port}"
    ports = [args.tcp_port] + [int(p) for p in args.cluster.split(",")]
    room = f"cluster-{TAG}"
    lines = [await line_in_room(host, port, f"n{i}user", room) for i, port in enumerate(ports)]
    page = await open_admin(cdp, f"{origin}/admin")
    await log_in(page, password)
    nodes = await page.wait_for("(() => { const n = [...document.querySelectorAll('#nodes tr[data-node]')]"
                                ".map(r => r.dataset.node); return n.length === 3 ? n : null; })()",
                                "three nodes listed", timeout=30)
    await page.wait_for(f"{room_members_js(room)} === 3", f"{room} with 3 members over the nodes", timeout=30)
    await screenshots(page, args.screenshots, "cluster-overview")
    await page.eval(f"location.hash = '#room={room}'")
    members = await page.wait_for(
        "(() => { const m = {}; for (const r of document.querySelectorAll('#members tr[data-member]'))"
        " m[r.dataset.member] = r.querySelector('.member-node').textContent;"
        " return Object.keys(m).length === 3 ? m : null; })()", "the room's members on every node", timeout=30)
    if len(set(members.values())) != 3 or not set(members.values()) <= set(nodes):
        raise Failure(f"the room's members are not one per node: {members} (nodes {nodes})")
    await screenshots(page, args.screenshots, "cluster-room")
    for line in lines:
        line.close()
    return f"nodes {nodes}"


async def scenario(args):
    with open(args.password_file) as f:
        password = f.read().strip()
    cdp, ws, product = await browser_chat.start_chromium(args)
    summary = await (cluster(args, cdp, password) if args.cluster else single_node(args, cdp, password))
    await browser_chat.close_browser(cdp, ws)
    return f"{product}; {summary}"


def main():
    def add(ap):
        ap.add_argument("udp_port", type=int)
        ap.add_argument("--password-file", required=True)
        ap.add_argument("--screenshots", default=None)
        ap.add_argument("--cluster", default=None, help="the TCP ports of the second and third node")

    args = browser_chat.page_arguments(__doc__, 150, add)
    browser_chat.run(scenario, args, lambda summary: f"admin console ({summary})")


if __name__ == "__main__":
    main()
