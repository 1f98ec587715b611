#!/usr/bin/env python3
"""Drives switchboard's web chat page in headless Chromium, bridged to a TCP line client.

usage: browser_chat.py HTTP_PORT TCP_PORT [--host 127.0.0.1] [--timeout S]
                       [--screenshot /tmp/browser_chat.png] [--chromium PATH]

1. Opens http://HOST:HTTP_PORT/ and, like a user, types a name into #name and submits
   #name-form, types into #input and clicks #send. A raw TCP client on the line port
   (`iam:ncuser`) must receive `NAME: TEXT`. A line from the TCP client must then show
   up in the page's #messages as `.message.other .text`. The page's own message must be
   `.message.me`. A screenshot goes to --screenshot.
2. Opens http://HOST:TCP_PORT/ (the line port hands browsers' HTTP and the WebSocket
   upgrade to the HTTP pipeline): the page loads, its WebSocket connects, and a message
   sent there reaches the TCP client too.
3. Opens the page with ?room=dev%20room (a room the server refuses): the page shows the
   refusal with its reason (`#status[data-state=refused]`, "invalid room name") instead
   of "retry in", and stays refused when the browser reports it is back online.

Chromium is driven over the DevTools protocol with the python `websockets` client
(no selenium); it runs with its own temporary profile and is killed by PID at the end.
Exit 0 when everything passes; otherwise one line "FAIL: reason" and exit 1.
"""

import argparse
import asyncio
import base64
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

try:
    import websockets
except ImportError:  # pragma: no cover
    print("FAIL: python module websockets is not installed")
    sys.exit(1)


class Failure(Exception):
    pass


TAG = os.urandom(3).hex()
CHROME = {"proc": None, "profile": None}


def become_subreaper():
    """Chromium's helpers outlive its main process for a moment; as their subreaper this
    script can reap them instead of leaving zombies behind (PID 1 may not reap here)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass


def reap_children(timeout=3.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def cleanup():
    proc = CHROME["proc"]
    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # chromium's own helper processes, by our group id
        except ProcessLookupError:
            pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(5)
    if proc is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers of chromium's own process group
        except ProcessLookupError:
            pass
        reap_children()
    if CHROME["profile"]:
        shutil.rmtree(CHROME["profile"], ignore_errors=True)


# --- the TCP line client ------------------------------------------------------------------

class LineClient:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.lines = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        try:
            self.sock.settimeout(None)
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    with self.lock:
                        self.lines.append(line.decode("utf-8", "replace").rstrip("\r"))
        except OSError:
            pass
        self.closed = True

    def send(self, line):
        self.sock.sendall(line.encode() + b"\n")

    async def expect(self, wanted, timeout=45, what=None):
        """Waits for a line equal to `wanted` or, for a function, one it accepts."""
        matches = wanted if callable(wanted) else (lambda line: line == wanted)
        what = what or repr(wanted)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if any(matches(line) for line in self.lines):
                    return
            if self.closed:
                raise Failure(f"TCP client: connection closed while waiting for {what} (got {self.lines[-5:]})")
            await asyncio.sleep(0.05)
        raise Failure(f"TCP client: no line {what} within {timeout}s (got {self.lines[-5:]})")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# --- DevTools protocol ----------------------------------------------------------------------

class CDP:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.pending = {}
        self.events = []
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                if "id" in msg and msg["id"] in self.pending:
                    fut = self.pending.pop(msg["id"])
                    if not fut.done():
                        fut.set_result(msg)
                else:
                    self.events.append(msg)
        except websockets.ConnectionClosed:
            pass
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(Failure("DevTools connection closed"))

    async def call(self, method, session=None, timeout=45, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send(json.dumps(msg))
        try:
            reply = await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            raise Failure(f"DevTools {method} got no answer within {timeout}s")
        if "error" in reply:
            raise Failure(f"DevTools {method}: {reply['error']}")
        return reply.get("result", {})


class Page:
    def __init__(self, cdp, session):
        self.cdp = cdp
        self.session = session

    async def call(self, method, **params):
        return await self.cdp.call(method, session=self.session, **params)

    async def eval(self, expression):
        r = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise Failure(f"page script failed: {expression[:80]}: {r['exceptionDetails'].get('text')} "
                          f"{r['exceptionDetails'].get('exception', {}).get('description', '')[:200]}")
        return r.get("result", {}).get("value")

    async def wait_for(self, expression, what, timeout=45):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = await self.eval(expression)
            if last:
                return last
            await asyncio.sleep(0.1)
        state = await self.eval(
            "JSON.stringify({status: document.getElementById('status') && document.getElementById('status').textContent,"
            " messages: [...document.querySelectorAll('#messages > *')].slice(-5).map(e => e.className + ': ' + e.textContent)})")
        raise Failure(f"page: {what} not reached within {timeout}s (page: {state})")

    async def click(self, selector):
        """A real mouse click at the element's centre (Input.dispatchMouseEvent)."""
        box = await self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height]; })()")
        if not box or box[2] <= 0 or box[3] <= 0:
            raise Failure(f"page: {selector} is missing or not visible ({box})")
        x, y = box[0], box[1]
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def type_into(self, selector, text):
        await self.eval(f"document.querySelector({json.dumps(selector)}).focus()")
        ok = await self.eval(f"document.activeElement === document.querySelector({json.dumps(selector)})")
        if not ok:
            raise Failure(f"page: cannot focus {selector}")
        await self.call("Input.insertText", text=text)


async def new_tab(cdp, *domains):
    """A new blank tab, attached, with the DevTools `domains` ("Page", "Runtime", …) enabled;
    its target id is `page.target`."""
    target = await cdp.call("Target.createTarget", url="about:blank")
    attached = await cdp.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
    page = Page(cdp, attached["sessionId"])
    page.target = target["targetId"]
    for domain in domains:
        await page.call(f"{domain}.enable")
    return page


async def open_page(cdp, url, before_scripts=""):
    """A new tab on `url`, loaded; `before_scripts` (JavaScript) runs before the page's own."""
    page = await new_tab(cdp, "Page", "Runtime")
    if before_scripts:
        await page.call("Page.addScriptToEvaluateOnNewDocument", source=before_scripts)
    await page.call("Emulation.setDeviceMetricsOverride", width=900, height=700, deviceScaleFactor=1, mobile=False)
    navigation = await page.call("Page.navigate", url=url)
    if navigation.get("errorText"):  # refused, reset, empty answer: the tab shows Chromium's error page
        raise Failure(f"page: load of {url} failed: {navigation['errorText']}; {await load_diagnosis(page, url)}")
    try:
        await page.wait_for("document.readyState === 'complete' && !!document.getElementById('name-form')",
                            f"load of {url}")
    except Failure as failure:
        raise Failure(f"{failure}; {await load_diagnosis(page, url)}") from None
    return page


async def load_diagnosis(page, url):
    """What a failed page load looked like: where the tab is, and how the server answers a
    plain GET of the same URL from here (told apart: a slow browser, a silent server)."""
    try:
        tab = await page.eval("JSON.stringify({href: location.href, readyState: document.readyState,"
                              " title: document.title, text: (document.body ? document.body.innerText : '').slice(0, 200)})")
    except Failure as e:
        tab = f"unknown ({e})"
    parts = urllib.parse.urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    started = time.monotonic()
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw:
            conn = raw
            if parts.scheme == "https":  # the tests' own self-signed certificate: not verified here
                tls = ssl.create_default_context()
                tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
                conn = tls.wrap_socket(raw, server_hostname=parts.hostname)
            conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            head = conn.recv(200).split(b"\r\n", 1)[0].decode("latin-1")
        answer = f"{head!r} after {time.monotonic() - started:.2f}s"
    except OSError as e:
        answer = f"{type(e).__name__} after {time.monotonic() - started:.2f}s: {e}"
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "unknown"
    return f"tab {tab}; a plain GET: {answer}; load average {load}"


async def line_member(host, port, name="ncuser"):
    """A line client named `name`, in the room (its /who answer lists it) before anyone acts."""
    line = LineClient(host, port)
    line.send(f"iam:{name}")
    await expect_listed(line, name)
    return line


async def expect_listed(line, name):
    """Asks `/who` on the line client and waits for the answer listing `name`: in the room."""
    line.send("/who")
    await line.expect(lambda l: l.startswith("* in ") and name in l.partition("): ")[2].split(", "),
                      what=f"the /who answer listing {name}")


def messages_js(cls):
    return (f"[...document.querySelectorAll('#messages .message.{cls} .text')].map(e => e.textContent)")


async def expect_refused(page, reason, what, **wait):
    """The page ends refused, saying `reason` in a notice and in its status line."""
    await page.wait_for("document.getElementById('status').dataset.state === 'refused'", f"{what}: refused",
                        **wait)
    shown = await page.eval(
        "[...document.querySelectorAll('#messages .notice.error')].map(e => e.textContent)")
    if not any(reason in t for t in shown):
        raise Failure(f"{what}: {reason!r} is not shown (notices: {shown})")
    status = await page.eval("document.getElementById('status').textContent")
    if reason not in status:
        raise Failure(f"{what}: status {status!r} does not give the reason {reason!r}")


async def chat_as(page, name, text, line, what):
    """Name the page's user, send `text` from the page; the line client must get it."""
    await page.wait_for("document.getElementById('status').dataset.state === 'online'",
                        f"{what}: WebSocket online")
    await page.type_into("#name", name)
    await page.click("#name-form button[type=submit]")
    await page.wait_for("document.getElementById('name-form').hidden && !document.getElementById('input').disabled"
                        " && !document.getElementById('send').disabled", f"{what}: name accepted, composer enabled")
    await page.type_into("#input", text)
    await page.click("#send")
    await page.wait_for(f"{messages_js('me')}.includes({json.dumps(text)})", f"{what}: own message shown as .me")
    await line.expect(f"{name}: {text}")
    value = await page.eval("document.getElementById('input').value")
    if value:
        raise Failure(f"page: #input not cleared after sending ({value!r})")


async def start_chromium(args, extra_flags=()):
    """Starts headless Chromium with a fresh profile; returns (cdp, its websocket, product)."""
    profile = tempfile.mkdtemp(prefix="sb-chromium-")
    CHROME["profile"] = profile
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        raise Failure("chromium not found")
    cmd = [chromium, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}", "--no-sandbox",
           "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
           "--disable-extensions", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-default-apps", "--metrics-recording-only", "--no-pings",
           "--password-store=basic", "--use-mock-keychain", "--mute-audio", "--hide-scrollbars",
           "--lang=en-US", *extra_flags, "about:blank"]
    log = open(os.path.join(profile, "chromium.log"), "wb")
    CHROME["proc"] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while True:
        if CHROME["proc"].poll() is not None:
            tail = open(os.path.join(profile, "chromium.log"), "rb").read()[-300:].decode("utf-8", "replace")
            raise Failure(f"chromium exited with {CHROME['proc'].returncode}: {tail!r}")
        if os.path.exists(port_file):
            lines = open(port_file).read().split()
            if len(lines) >= 2:
                break
        if time.monotonic() > deadline:
            raise Failure("chromium wrote no DevToolsActivePort within 30s")
        await asyncio.sleep(0.1)
    devtools = f"ws://127.0.0.1:{lines[0]}{lines[1]}"
    ws = await websockets.connect(devtools, max_size=None, ping_interval=None, open_timeout=10)
    cdp = CDP(ws)
    version = await cdp.call("Browser.getVersion")
    return cdp, ws, version.get("product", "chromium")


async def close_browser(cdp, ws):
    """Asks Chromium to quit and closes the DevTools connection (cleanup() kills it anyway)."""
    try:
        await cdp.call("Browser.close", timeout=5)
    except Failure:
        pass
    await ws.close()


async def scenario(args):
    host = args.host
    cdp, ws, product = await start_chromium(args)

    line = await line_member(host, args.tcp_port)

    # 1. The page from the HTTP port.
    page = await open_page(cdp, f"http://{host}:{args.http_port}/")
    web_name, web_text = f"web-{TAG}", f"hello from the browser {TAG} ✓"
    await chat_as(page, web_name, web_text, line, "HTTP-port page")
    nc_text = f"hello from nc {TAG}"
    line.send(nc_text)
    await page.wait_for(f"{messages_js('other')}.includes({json.dumps(nc_text)})",
                        "the TCP client's line shown as .message.other")
    author = await page.eval(
        f"[...document.querySelectorAll('#messages .message.other')].filter(e => e.querySelector('.text').textContent"
        f" === {json.dumps(nc_text)}).map(e => e.querySelector('.author').textContent)[0]")
    if author != "ncuser":
        raise Failure(f"page: the TCP client's message is shown with author {author!r}, expected 'ncuser'")
    # Own messages sit on the right, others' on the left.
    sides = await page.eval(
        "(() => { const me = document.querySelector('#messages .message.me'), other = document.querySelector("
        "'#messages .message.other'), list = document.getElementById('messages').getBoundingClientRect();"
        " const a = me.getBoundingClientRect(), b = other.getBoundingClientRect();"
        " return {meRight: list.right - a.right, otherLeft: b.left - list.left, meLeft: a.left - list.left}; })()")
    if not (sides["meRight"] < sides["meLeft"] and sides["otherLeft"] < 40):
        raise Failure(f"page layout: own message not right-aligned or others' not left-aligned ({sides})")
    shot = await page.call("Page.captureScreenshot", format="png")
    with open(args.screenshot, "wb") as f:
        f.write(base64.b64decode(shot["data"]))

    # 2. The same page from the line port (HTTP and the WebSocket upgrade sniffed there).
    page2 = await open_page(cdp, f"http://{host}:{args.tcp_port}/")
    await chat_as(page2, f"linepage-{TAG}", f"via the line port {TAG}", line, "line-port page")
    # The first page sees it too, as someone else's message.
    await page.wait_for(f"{messages_js('other')}.includes({json.dumps(f'via the line port {TAG}')})",
                        "the line-port page's message on the HTTP-port page")

    # 3. A room the server would refuse (its 400 is unreadable to a browser's WebSocket): the
    # page says why in place of "retry in", and does not try again, not even back online.
    bad = await open_page(cdp, f"http://{host}:{args.http_port}/?room=dev%20room")
    await bad.wait_for("document.getElementById('status').dataset.state === 'refused'",
                       "the page for room 'dev room' refused")
    await bad.eval("window.dispatchEvent(new Event('online')), true")
    status = await bad.eval("document.getElementById('status').dataset.state + ' ' + "
                            "document.getElementById('status').textContent")
    if not status.startswith("refused ") or "invalid room name" not in status:
        raise Failure(f"page for a bad room: status {status!r}, expected the refusal with its reason")

    line.close()
    await close_browser(cdp, ws)
    return product


def page_arguments(description, timeout, add=lambda ap: None):
    """The arguments of a script that drives the page against a server's HTTP and TCP
    ports on a loopback host (others are refused: exit 1), plus what `add` adds."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("http_port", type=int)
    ap.add_argument("tcp_port", type=int)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--timeout", type=float, default=timeout)
    ap.add_argument("--chromium", default=None)
    add(ap)
    args = ap.parse_args()
    if not (args.host.startswith("127.") or args.host in ("localhost", "::1")):
        print("FAIL: loopback hosts only")
        sys.exit(1)
    return args


def main():
    args = page_arguments(__doc__, 90, lambda ap: ap.add_argument("--screenshot", default="/tmp/browser_chat.png"))

    run(scenario, args, lambda product: f"browser chat ({product})", f"; screenshot {args.screenshot}")


def run(scenario, args, describe, suffix=""):
    """Runs `scenario(args)` within args.timeout (a hard alarm too), cleans Chromium up and
    exits: 0 with "OK: …", 1 with "FAIL: reason"."""
    def on_alarm(*_):
        print(f"FAIL: hard timeout of {args.timeout:.0f}s")
        sys.stdout.flush()
        cleanup()
        os._exit(1)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(args.timeout) + 5)
    become_subreaper()
    started = time.monotonic()
    rc = 0
    try:
        product = asyncio.run(asyncio.wait_for(scenario(args), args.timeout))
        print(f"OK: {describe(product)} in {time.monotonic() - started:.1f}s{suffix}")
    except Failure as e:
        print(f"FAIL: {e}")
        rc = 1
    except asyncio.TimeoutError:
        print(f"FAIL: timeout of {args.timeout:.0f}s")
        rc = 1
    except Exception as e:
        print(f"FAIL: {type(e).__name__}: {e}")
        rc = 1
    finally:
        cleanup()
    sys.exit(rc)


if __name__ == "__main__":
    main()
