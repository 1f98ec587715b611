"""Mints an HS256 JWT the way `switchboard token` does, for the python peers that must hold a
token whose clock starts when they are ready (python starts slowly on a loaded machine: a
token minted by the test before the peer ran may have run out before the peer connects)."""

import base64
import hashlib
import hmac
import json
import time


def mint(secret, sub, ttl, rooms=("*",)):
    """A token for `sub`, allowed in `rooms`, that runs out `ttl` seconds from now."""
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps({"sub": sub, "rooms": list(rooms), "exp": int(time.time()) + ttl}).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(signature)}"
