# -*- coding: utf-8 -*-
"""Maintainer check of the port: Python 2 and the ported Python 3 cases must act alike.

Used by crosscheck-py2.sh; runs under python2.7 and python3 (keep it valid in both).

  trace-cases.py stubs DIR AUTOBAHN_SRC   write the stand-ins the pristine cases import
                                          under python2 (DIR goes first on PYTHONPATH,
                                          the suite's package directory second)
  trace-cases.py trace OUT.json           run every case class against a fake protocol
  trace-cases.py compare A.json B.json    exit 1 and show the cases that differ

`trace` instantiates each of the 517 case classes, runs onOpen and what it
schedules, echoes the expected events back as a perfect peer would, then closes
as expected, and records every call the case makes on its protocol (with the
payloads), the expected events, the verdict and the report texts.  Values are
compared by content: ASCII text and ASCII bytes count as equal (the port sends
ASCII str payloads as bytes, py3runtime.SendBytes), any other octets only equal
the same octets; a non-ASCII str where Python 2 had octets shows as a difference.
"""
import binascii
import hashlib
import json
import os
import re
import sys

PY3 = sys.version_info[0] == 3


# --------------------------------------------------------------------------
# python2 stand-ins for the modules the case package imports

STUBS = {
    "autobahn/__init__.py": "version = '0.10.9'\n",
    "autobahn/websocket/__init__.py": "",
    "autobahn/websocket/compress.py": '''
class _Offer(object):
    def __init__(self, requestNoContextTakeover=False, requestMaxWindowBits=0, *a, **kw):
        self.requestNoContextTakeover = requestNoContextTakeover
        self.requestMaxWindowBits = requestMaxWindowBits
class _Accept(object):
    def __init__(self, *a, **kw):
        self.a, self.kw = a, kw
class PerMessageDeflateOffer(_Offer): pass
class PerMessageDeflateResponse(_Offer): pass
class PerMessageDeflateOfferAccept(_Accept): pass
class PerMessageDeflateResponseAccept(_Accept): pass
''',
    "six.py": "PY3 = False\nPY2 = True\n",
    "zope/__init__.py": "",
    "zope/interface.py": "def implements(*a): pass\ndef implementer(*a): return lambda c: c\n",
    "twisted/__init__.py": "",
    "twisted/internet/__init__.py": "reactor = None\n",
    "twisted/internet/interfaces.py": "IPushProducer = object\n",
    "pkg_resources.py": '''
import os, case
def resource_filename(pkg, name):
    return os.path.join(os.path.dirname(os.path.dirname(case.__file__)), name)
''',
}


def make_stubs(target, autobahn_src):
    for rel, text in STUBS.items():
        path = os.path.join(target, rel)
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(text.lstrip("\n"))
    # the real constants and the real (pure Python) UTF-8 validator of autobahn 0.10.9
    ws = os.path.join(autobahn_src, "autobahn", "websocket")
    with open(os.path.join(ws, "protocol.py")) as f:
        consts = re.findall(r"(?m)^    ((?:STATE|CLOSE_STATUS_CODE|MESSAGE_TYPE)_\w+) = (\d+)", f.read())
    with open(os.path.join(target, "autobahn/websocket/protocol.py"), "w") as f:
        f.write("class WebSocketProtocol(object):\n" + "".join("    %s = %s\n" % c for c in consts))
    with open(os.path.join(ws, "utf8validator.py")) as src:
        with open(os.path.join(target, "autobahn/websocket/utf8validator.py"), "w") as dst:
            dst.write(src.read())


# --------------------------------------------------------------------------
# tracing

if PY3:
    text_type, bytes_types, int_types = str, (bytes, bytearray), (int,)
else:
    text_type, bytes_types, int_types = unicode, (str, bytearray), (int, long)  # noqa: F821


def _digest(b):
    if len(b) > 4096:
        return {"sha1": hashlib.sha1(b).hexdigest(), "len": len(b)}
    return None


def canon(v):
    if v is None or isinstance(v, bool) or isinstance(v, int_types) or isinstance(v, float):
        return v
    if isinstance(v, bytes_types):
        b = bytes(v)
        try:
            s = b.decode("ascii")
            return _digest(b) or {"a": s}
        except UnicodeDecodeError:
            return _digest(b) or {"b": binascii.b2a_hex(b).decode("ascii")}
    if isinstance(v, text_type):
        try:
            b = v.encode("ascii")
            return _digest(b) or {"a": b.decode("ascii")}
        except UnicodeEncodeError:
            return {"u": v}
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return sorted([[canon(k), canon(x)] for k, x in v.items()], key=lambda kv: json.dumps(kv))
    if callable(v):
        return "<callable>"
    return "<%s>" % type(v).__name__


def report_text(v):
    # Python 2's report texts were str holding UTF-8 octets
    if not PY3 and isinstance(v, str):
        return v.decode("utf8")
    return v


# argument position and keyword of the payload, per method that SendBytes wraps
PAYLOAD_ARG = {"sendFrame": (1, "payload"), "sendMessage": (0, "payload"),
               "sendMessageFrameData": (0, "payload"), "sendMessageFrame": (0, "payload"),
               "sendPing": (0, "payload"), "sendPong": (0, "payload"),
               "sendCloseFrame": (1, "reasonUtf8"), "sendData": (0, "data")}
RECORDED = list(PAYLOAD_ARG) + ["beginMessage", "beginMessageFrame", "endMessage", "sendClose",
                                "killAfter", "closeAfter", "enableWirelog", "registerProducer",
                                "failConnection", "dropConnection"]


def trace_all(out_path):
    if PY3:
        from autobahntestsuite.case import Cases
        from autobahntestsuite._py3runtime import tobytes
        from autobahn.websocket.protocol import WebSocketProtocol
    else:
        from case import Cases
        from autobahn.websocket.protocol import WebSocketProtocol

        def tobytes(x):
            return x

    class Factory(object):
        isServer = False

    class Proto(object):
        def __init__(self):
            for k in dir(WebSocketProtocol):
                if re.match(r"(STATE|CLOSE_STATUS_CODE|MESSAGE_TYPE)_", k):
                    setattr(self, k, getattr(WebSocketProtocol, k))
            self.factory = Factory()
            self.state = WebSocketProtocol.STATE_OPEN
            self.autoFragmentSize = 0
            self.txFrameStats = {0: 50, 1: 1}  # what 10.1.1 expects for 65536 / 1300
            self._perMessageCompress = None
            self.trafficStats = None
            self.log, self.later, self.sent = [], [], []

        def record(self, name, args, kw):
            if name in PAYLOAD_ARG:  # what SendBytes does on the way into autobahn
                i, key = PAYLOAD_ARG[name]
                args = list(args)
                if len(args) > i and args[i] is not None:
                    args[i] = tobytes(args[i])
                if kw.get(key) is not None:
                    kw[key] = tobytes(kw[key])
                if name == "sendMessage":
                    self.sent.append((args[0] if args else kw["payload"],
                                      args[1] if len(args) > 1 else kw.get("isBinary", False)))
            self.log.append([name, canon(list(args)), canon(kw)])

        def continueLater(self, delay, fun, tag=None):
            self.log.append(["continueLater", canon(delay), canon(tag)])
            self.later.append(fun)

    for name in RECORDED:
        setattr(Proto, name, (lambda n: lambda self, *a, **kw: self.record(n, a, kw))(name))

    def run_later(p):
        for _ in range(20):
            if not p.later:
                return
            p.later.pop(0)()

    def trace(C):
        out = {"id": C.__name__, "DESCRIPTION": report_text(getattr(C, "DESCRIPTION", None)),
               "EXPECTATION": report_text(getattr(C, "EXPECTATION", None))}
        p = Proto()
        if C.__name__.startswith(("Case12", "Case13")):
            p._perMessageCompress = "deflate"  # so the compression cases send their payloads
        stage = "init"
        try:
            c = C(p)
            stage = "onOpen"
            c.onOpen()
            run_later(p)
            out["expected"] = canon(c.expected)
            out["expectedClose"] = canon(c.expectedClose)
            stage = "echo"
            keys = sorted(c.expected)
            events = c.expected[keys[0]] if keys else []
            for ev in events:
                if ev[0] == "message":
                    c.onMessage(tobytes(ev[1]), ev[2])
                elif ev[0] in ("ping", "pong"):
                    getattr(c, "onPing" if ev[0] == "ping" else "onPong")(tobytes(ev[1]))
            if not events:
                for _ in range(2):
                    if p.sent:
                        c.onMessage(*p.sent[-1])
            run_later(p)
            stage = "close"
            p.connectionWasOpen = True
            p.closedByMe = c.expectedClose.get("closedByMe")
            p.wasClean = True
            p.remoteCloseCode = (c.expectedClose.get("closeCode") or [None])[0]
            p.droppedByMe = False
            p.localCloseReason = b"reason"
            c.onConnectionLost(False)
            out["verdict"] = canon([c.behavior, c.behaviorClose, c.result, c.resultClose])
            out["localCloseReason"] = canon(p.localCloseReason)
        except Exception as e:
            out["error"] = [stage, type(e).__name__]
        out["log"] = p.log
        return out

    res = [trace(C) for C in Cases]
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("trace-cases: python %d.%d: %d cases, %d calls, %d stopped by an exception"
          % (sys.version_info[0], sys.version_info[1], len(res), sum(len(r["log"]) for r in res),
             sum(1 for r in res if "error" in r)))


def compare(a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    if [x["id"] for x in a] != [x["id"] for x in b]:
        print("trace-cases: the case lists differ")
        return 1
    bad = [(x, y) for x, y in zip(a, b) if x != y]
    for x, y in bad[:10]:
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                print("%s %s\n  A: %s\n  B: %s" % (x["id"], k, json.dumps(x.get(k))[:300], json.dumps(y.get(k))[:300]))
    print("trace-cases: %d of %d cases differ" % (len(bad), len(a)))
    return 1 if bad else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "stubs" and len(sys.argv) == 4:
        make_stubs(sys.argv[2], sys.argv[3])
    elif cmd == "trace" and len(sys.argv) == 3:
        trace_all(sys.argv[2])
    elif cmd == "compare" and len(sys.argv) == 4:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
