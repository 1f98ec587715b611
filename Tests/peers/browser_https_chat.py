#!/usr/bin/env python3
"""browser_chat.py over TLS: headless Chromium loads switchboard's page from https:// and
chats over wss://, bridged to a plain TCP line client.

usage: browser_https_chat.py HTTPS_PORT TCP_PORT TLS_PORT --spki BASE64 [--timeout S]

Runs browser_chat.py's scenario unchanged, with two differences: its pages open from
https://127.0.0.1:HTTPS_PORT/ (instead of http:// on the HTTP port) and from
https://127.0.0.1:TLS_PORT/ (the tls:// line port, which hands browsers' HTTP to the HTTP
pipeline just as the plaintext line port does), and Chromium trusts the server's
certificate by its public key (`--ignore-certificate-errors-spki-list`, BASE64 being the
SHA-256 of its SubjectPublicKeyInfo): the test CA cannot be installed in Chromium's
NSS store without certutil. Every page is checked to have loaded over https:, and since
Chromium refuses ws:// from an https: page (mixed content), the chat working means the
page picked wss:// itself. Exit 0 when everything passes; otherwise "FAIL: reason", 1.
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_chat  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("https_port", type=int)
    ap.add_argument("tcp_port", type=int)
    ap.add_argument("tls_port", type=int)
    ap.add_argument("--spki", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()
    host = "127.0.0.1"

    popen = subprocess.Popen

    def chromium_trusting_the_key(cmd, *rest, **kwargs):
        cmd = list(cmd[:-1]) + [f"--ignore-certificate-errors-spki-list={args.spki}", cmd[-1]]
        return popen(cmd, *rest, **kwargs)

    subprocess.Popen = chromium_trusting_the_key

    open_page = browser_chat.open_page
    urls = {f"http://{host}:{args.https_port}/": f"https://{host}:{args.https_port}/",
            f"http://{host}:{args.tcp_port}/": f"https://{host}:{args.tls_port}/",
            f"http://{host}:{args.https_port}/?room=dev%20room": f"https://{host}:{args.https_port}/?room=dev%20room"}

    async def open_over_https(cdp, url):
        if url not in urls:
            raise browser_chat.Failure(f"unexpected page {url}")
        page = await open_page(cdp, urls[url])
        protocol = await page.eval("location.protocol")
        if protocol != "https:":
            raise browser_chat.Failure(f"{urls[url]} loaded over {protocol!r}")
        return page

    browser_chat.open_page = open_over_https
    sys.argv = [sys.argv[0], str(args.https_port), str(args.tcp_port), "--host", host, "--timeout", str(args.timeout),
                "--screenshot", "/tmp/browser_https_chat.png"]
    browser_chat.main()


if __name__ == "__main__":
    main()
