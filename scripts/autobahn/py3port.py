#!/usr/bin/env python3
"""Port the installed autobahntestsuite 25.10.1 (Python 2 code) to Python 3.

usage: VENV/bin/python py3port.py [--check] [--show NAME]

Run with the venv's interpreter (setup.sh does): it finds the packages through
that interpreter's installed-distribution metadata.  The PyPI release of the
Autobahn|Testsuite is Python 2 only; this program rewrites the installed copy
in place, in three passes per file:

1. literals (case modules only, on the Python 2 source): every ``str`` literal
   whose Python 2 value is not plain ASCII text -- ``\\x``/octal escapes, or
   UTF-8 text -- becomes a bytes literal with exactly the octets Python 2 had.
   These are the payloads of the UTF-8, binary and close-reason cases.  ASCII
   payloads stay ``str`` and are encoded where they are sent (py3runtime.py).
2. syntax: lib2to3's default fixers (print, except, has_key, xrange, implicit
   relative imports, raise, octal literals, dict views, unichr, ...).
3. edits: a table of exact, commented substitutions for what neither pass can
   know (bytes vs str at the report and send boundaries, MRO, ``/`` vs
   ``//``, zope ``implements``, txaio, a loopback-only fuzzing server, ...).

It also copies py3runtime.py into the package as ``_py3runtime.py``.

Safety:
* Only the pinned versions are accepted, and every file is checked against
  the sha256 in pip's RECORD before it is touched: the input is the PyPI
  release byte for byte, or the port refuses to run.
* Every edit must find its anchor exactly the stated number of times, and the
  literal pass must convert the expected number of literals; a changed
  upstream package stops the port with an error instead of half-working.
* All files are rewritten and compiled in memory first; nothing is written
  unless the whole port succeeds.
* A marker (``autobahntestsuite/.switchboard-py3port``) records the sha256 of
  this program and py3runtime.py; with a current marker the port is a no-op.
  Files ported by another version of the port are not pristine, so the port
  refuses them: reinstall the two packages (setup.sh does) and run again.

--check exits 0 if the installed packages carry a current marker, 1 if not.
--show NAME prints the ported text of one file (e.g. case/case6_2_1.py) without
writing anything (works on a pristine install only).
"""

import argparse
import ast
import base64
import glob
import hashlib
import importlib.metadata
import io
import json
import os
import re
import sys
import warnings

with warnings.catch_warnings():
    # lib2to3 is deprecated (removed in 3.13) but present in 3.11, which this targets.
    warnings.simplefilter("ignore")
    from lib2to3 import refactor
    from lib2to3.pgen2 import token as pgtoken
    from lib2to3.pgen2 import tokenize as pgtokenize

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME_SRC = os.path.join(HERE, "py3runtime.py")
RUNTIME_NAME = "_py3runtime.py"
MARKER_NAME = ".switchboard-py3port"

PINS = {"autobahntestsuite": "25.10.1", "autobahn": "0.10.9"}

# autobahntestsuite modules that `wstest` imports for its WebSocket modes
# (fuzzingclient, fuzzingserver, testeeclient/server, echo, broadcast, massconnect),
# plus every case module.  The WAMP, wsperf, serializer and import/export modes are
# not ported.
SUITE_MODULES = [
    "__init__.py", "_version.py", "choosereactor.py", "wstest.py", "testee.py",
    "fuzzing.py", "echo.py", "broadcast.py", "massconnect.py", "spectemplate.py",
    "caseset.py", "report.py", "interfaces.py",
]
CASE_GLOB = "case/*.py"
# autobahn 0.10.9 already runs on Python 3 (via six); one line needs the port.
AUTOBAHN_MODULES = ["websocket/protocol.py"]

# Number of literals the literal pass converts in 25.10.1's case modules.  A
# different count means upstream changed the cases: look at them before trusting
# the port (and update the number).
EXPECTED_LITERALS = 141


class PortError(Exception):
    pass


# --------------------------------------------------------------------------
# pass 1: Python 2 str literals with non-ASCII values -> bytes literals


def _escape_kinds(body):
    """Yield the character after each backslash escape in a literal body."""
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            yield body[i + 1]
            i += 2
        else:
            i += 1


def _bytes_literal(tok, where):
    """For a Python 2 `str` literal token: (its Python 2 value as bytes, the text of an
    equal Python 3 bytes literal, the set of escape letters used); None for u'' and b''."""
    m = re.match(r"([A-Za-z]*)(.*)\Z", tok, re.S)
    prefix, body = m.group(1), m.group(2)
    p = prefix.lower()
    if "u" in p or "b" in p:
        return None  # unicode (stays str) or already bytes
    raw = "r" in p
    out = []
    for i, ch in enumerate(body):
        if ord(ch) < 0x80:
            out.append(ch)
            continue
        # Python 2 read a str literal's non-ASCII source text as its UTF-8 octets.
        if raw or (i > 0 and body[i - 1] == "\\"):
            raise PortError("%s: cannot express non-ASCII text in %s as bytes" % (where, tok[:40]))
        out.append("".join("\\x%02x" % b for b in ch.encode("utf8")))
    text = "b" + prefix + "".join(out)
    # A Python 2 str literal and a Python 3 bytes literal know the same escapes
    # (\x, octal, \n...; \u and \N are not escapes in either), so this is exact.
    value = ast.literal_eval(text)
    kinds = set(_escape_kinds(body)) if not raw else set()
    if not (kinds & set("uUN")) and all(ord(c) < 0x80 for c in body):
        # Cross-check with an independent reading: a Python 3 str literal with
        # \xNN escapes gives U+00NN, i.e. the octet in Latin-1.
        if ast.literal_eval(tok).encode("latin-1") != value:
            raise PortError("%s: two readings of %s disagree" % (where, tok[:40]))
    return value, text, kinds


def _needs_bytes(value, kinds):
    # Octets >= 0x80 cannot be a py3 str payload; \x and octal escapes mark data
    # (e.g. '\x65\x64' joined to other bytes) even where the octets are ASCII.
    return any(b >= 0x80 for b in value) or bool(kinds & set("x01234567"))


_TEXT_NAMES = ("DESCRIPTION", "EXPECTATION")


def convert_literals(src, where):
    """Pass 1 on a case module's Python 2 source. Returns (new_src, count)."""
    toks = list(pgtokenize.generate_tokens(io.StringIO(src).readline))
    lines = src.splitlines(True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos):
        return starts[pos[0] - 1] + pos[1]

    skip = (pgtokenize.NL, pgtokenize.COMMENT)
    significant = [t for t in toks if t[0] not in skip]
    # groups of adjacent STRING tokens (implicit concatenation) by index into `significant`
    groups, i = [], 0
    while i < len(significant):
        if significant[i][0] == pgtoken.STRING:
            j = i
            while j + 1 < len(significant) and significant[j + 1][0] == pgtoken.STRING:
                j += 1
            groups.append((i, j))
            i = j + 1
        else:
            i += 1

    edits = []
    for gi, gj in groups:
        members = []
        for t in significant[gi:gj + 1]:
            lit = _bytes_literal(t[1], "%s:%d" % (where, t[2][0]))
            members.append((t, lit))
        if not any(lit and _needs_bytes(lit[0], lit[2]) for _, lit in members):
            continue
        if any(lit is None for _, lit in members):
            raise PortError("%s:%d: u''/b'' literal concatenated with a byte payload" % (where, significant[gi][2][0]))
        # The payload literals must not be report text (they would show as b'...').
        prev = [significant[k][1] for k in range(max(0, gi - 2), gi)]
        nxt = significant[gj + 1] if gj + 1 < len(significant) else None
        stmt_start = gi == 0 or significant[gi - 1][0] in (pgtoken.NEWLINE, pgtoken.INDENT, pgtoken.DEDENT)
        if (len(prev) == 2 and prev[1] in ("=", ":") and prev[0].strip("'\"") in _TEXT_NAMES) or \
                (stmt_start and (nxt is None or nxt[0] in (pgtoken.NEWLINE, pgtoken.ENDMARKER))):
            raise PortError("%s:%d: non-ASCII literal in report text or a docstring: %s"
                            % (where, significant[gi][2][0], significant[gi][1][:40]))
        for t, lit in members:
            edits.append((offset(t[2]), offset(t[3]), lit[1]))

    for a, b, text in sorted(edits, reverse=True):
        src = src[:a] + text + src[b:]
    return src, len(edits)


# --------------------------------------------------------------------------
# pass 2: lib2to3


class _Tool(refactor.RefactoringTool):
    def log_error(self, msg, *args, **kwargs):
        raise PortError("lib2to3: " + (msg % args))


def _make_tool():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixers = refactor.get_fixers_from_package("lib2to3.fixes")
        # the default set (what `2to3` applies; fix_idioms, fix_buffer... are explicit-only)
        return _Tool(fixers)


def syntax_port(tool, src, path):
    if not src.endswith("\n"):
        src += "\n"  # lib2to3 needs the final newline (case2_1.py and others lack it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # `path` lets fix_import see the sibling modules (implicit relative imports)
        return str(tool.refactor_string(src, path))


# --------------------------------------------------------------------------
# pass 3: edits.  (file, old, new, count, why); file is relative to site-packages,
# a glob for several files with `count` the total over all of them.  Anchors are
# matched against the output of passes 1 and 2.

RT = "from autobahntestsuite import _py3runtime\n"

EDITS = [
    # ---- autobahn 0.10.9
    ("autobahn/websocket/protocol.py",
     "range(payload_len / len(payload))", "range(payload_len // len(payload))", 1,
     "sendFrame(payload_len=N) repeats the payload N/len times: an int in py2, a float "
     "(TypeError in range) in py3. Used by 9.* and the length cases."),

    # ---- startup
    ("autobahntestsuite/choosereactor.py",
     "import sys, json\n",
     "import sys, json\n\n"
     "## py3 port: txaio 23 (autobahn 0.10.9's helper) no longer picks a framework by\n"
     "## itself; the testsuite is Twisted-only.\n"
     "import txaio\ntxaio.use_twisted()\n", 1,
     "txaio needs the framework chosen before autobahn.twisted is used."),
    ("autobahntestsuite/wstest.py",
     "#import wsperfmaster\nfrom . import serializer\n",
     "#import wsperfmaster\n## py3 port: the serializer mode needs autobahn's WAMP test helpers (and unittest2);\n"
     "## it is imported where that mode starts, so the WebSocket modes work without them.\n", 1,
     "serializer imports autobahn.wamp.test, which the WebSocket modes do not need."),
    ("autobahntestsuite/wstest.py",
     "         return serializer.start(",
     "         from . import serializer\n         return serializer.start(", 1,
     "the lazy import of the line above."),

    # ---- case.py: comparison of expected and received events
    ("autobahntestsuite/case/case.py",
     "import pickle\n", "import pickle\n" + RT, 1, "runtime helpers"),
    ("autobahntestsuite/case/case.py",
     "      return pickle.dumps(obj1) == pickle.dumps(obj2)",
     "      ## py3 port: values, not pickles (str vs bytes and the pickle memo differ in py3)\n"
     "      return _py3runtime.events(obj1) == _py3runtime.events(obj2)", 1,
     "expected payloads may be ASCII str, received ones are bytes; see py3runtime.events."),

    # ---- case modules
    ("autobahntestsuite/case/case*.py",
     "(object, Case, )", "(Case, )", 6,
     "type(name, (object, Case), ...): Case is a classic class in py2, a new-style one in "
     "py3, where object before its subclass has no consistent MRO."),
    ("autobahntestsuite/case/case10_1_1.py",
     "len(self.payload) / self.p.autoFragmentSize", "len(self.payload) // self.p.autoFragmentSize", 1,
     "expected frame count: py2 integer division; py3 `/` gives 50.41..., never equal to the count."),
    ("autobahntestsuite/case/case9_9_1.py",
     "from zope.interface import implements\n", "from zope.interface import implementer\n", 1,
     "class advice (implements()) does not exist on py3; 9.9.1 is disabled upstream but imported."),
    ("autobahntestsuite/case/case9_9_1.py",
     "class FrameProducer:\n\n   implements(interfaces.IPushProducer)\n",
     "@implementer(interfaces.IPushProducer)\nclass FrameProducer:\n\n", 1,
     "the decorator form of the line above."),
    # single octets: bytes[i] is an int in py3, a 1-octet str in py2
    ("autobahntestsuite/case/case6_4_[24].py",
     "PAYLOAD[12])", "PAYLOAD[12:13])", 4,
     "6.4.2/6.4.4 send (and describe) octet 12 on its own."),
    # report text: py2 put the UTF-8 octets into the UTF-8 HTML report
    ("autobahntestsuite/case/case6_2_[134].py",
     "% (PAYLOAD, binascii.b2a_hex(PAYLOAD))", "% (PAYLOAD.decode('utf8'), binascii.b2a_hex(PAYLOAD))", 3,
     "the DESCRIPTION shows the payload as text, not as b'...'."),
    ("autobahntestsuite/case/case6_2_2.py",
     "% (PAYLOAD1, binascii.b2a_hex(PAYLOAD1), PAYLOAD2, binascii.b2a_hex(PAYLOAD2))",
     "% (PAYLOAD1.decode('utf8'), binascii.b2a_hex(PAYLOAD1), PAYLOAD2.decode('utf8'), binascii.b2a_hex(PAYLOAD2))", 1,
     "as above, two fragments."),
    ("autobahntestsuite/case/case*.py",
     "binascii.b2a_hex(", "_py3runtime.hexstr(", 23,
     "hex dumps in descriptions and 7.5.1's close reason: py3's b2a_hex returns bytes (shown b'..')."),
    ("autobahntestsuite/case/case12_x_x.py",
     "binascii.hexlify(", "_py3runtime.hexstr(", 2,
     "SHA1 digests in 12.*/13.* failure messages, as above."),
    ("autobahntestsuite/case/case6_[234]_*.py",
     "import binascii\n", "import binascii\n" + RT, 10,
     "the modules above that use _py3runtime.hexstr import it."),
    ("autobahntestsuite/case/case6_x_x.py",
     "import binascii\nfrom .case import Case\n", "import binascii\nfrom .case import Case\n" + RT, 1,
     "(case6_x_x.py, whose second `import binascii` is further down)"),
    ("autobahntestsuite/case/case7_5_1.py",
     "import binascii\n", "import binascii\n" + RT, 1,
     "(case7_5_1.py)"),
    ("autobahntestsuite/case/case12_x_x.py",
     "import copy, os, pkg_resources, hashlib, binascii\n",
     "import copy, os, pkg_resources, hashlib, binascii\n" + RT, 1,
     "(case12_x_x.py)"),
    # case6_x_x.py builds UTF-8 test sequences octet by octet
    ("autobahntestsuite/case/case6_x_x.py",
     "   s = \"\"\n   for i in range(0x80, 0xbf):\n      s += chr(i)\n",
     "   s = b\"\"\n   for i in range(0x80, 0xbf):\n      s += bytes((i,))\n", 1,
     "6.8: all continuation octets; py2 chr(i) was one octet, py3 chr is a code point."),
    ("autobahntestsuite/case/case6_x_x.py",
     "      s = ''\n      for i in range(mm[0], mm[1]):\n         s += chr(i)\n         s += chr(0x20)\n",
     "      s = b''\n      for i in range(mm[0], mm[1]):\n         s += bytes((i,))\n         s += b' '\n", 1,
     "6.9: lonely start octets each followed by a space, as above."),
    ("autobahntestsuite/case/case6_x_x.py",
     "vs[1].append((False, ''.join(k)))", "vs[1].append((False, b''.join(k)))", 1,
     "6.10: concatenation of the (bytes) incomplete sequences."),
    ("autobahntestsuite/case/case6_x_x.py",
     ".tostring()", ".tobytes()", 6,
     "array.tostring was removed in py3.9 (encode() is only used by the module's self-test)."),

    # ---- fuzzing.py: send boundary, wire log and reports
    ("autobahntestsuite/fuzzing.py",
     "from autobahn.util import utcnow\n", "from autobahn.util import utcnow\n" + RT, 1, "runtime helpers"),
    ("autobahntestsuite/fuzzing.py",
     "class FuzzingProtocol:\n",
     "## py3 port: SendBytes encodes ASCII str payloads of the cases on their way into autobahn\n"
     "class FuzzingProtocol(_py3runtime.SendBytes):\n", 1,
     "the case modules pass py2-style str payloads to sendFrame/sendMessage/...; see py3runtime."),
    ("autobahntestsuite/fuzzing.py",
     "def binLogData(data, maxlen = 64):\n   ellipses = \" ...\"\n"
     "   if len(data) > maxlen - len(ellipses):\n      dd = binascii.b2a_hex(data[:maxlen]) + ellipses\n"
     "   else:\n      dd = binascii.b2a_hex(data)\n",
     "def binLogData(data, maxlen = 64):\n   ellipses = \" ...\"\n"
     "   data = _py3runtime.tobytes(data) if isinstance(data, str) else bytes(data)\n"
     "   if len(data) > maxlen - len(ellipses):\n      dd = binascii.b2a_hex(data[:maxlen]).decode('ascii') + ellipses\n"
     "   else:\n      dd = binascii.b2a_hex(data).decode('ascii')\n", 1,
     "wire-log hex dumps: str for the JSON/HTML reports."),
    ("autobahntestsuite/fuzzing.py",
     "def asciiLogData(data, maxlen = 64, replace = False):\n   ellipses = \" ...\"\n",
     "def asciiLogData(data, maxlen = 64, replace = False):\n   ## py3 port: bytes in, like py2's str; expected payloads may still be ASCII str\n"
     "   ellipses = b\" ...\"\n   data = _py3runtime.tobytes(data) if isinstance(data, str) else bytes(data)\n", 1,
     "payload excerpts in the reports: decoded as UTF-8 (else hex), as in py2."),
    ("autobahntestsuite/fuzzing.py",
     "         p = ''.join(payload)\n", "         p = b''.join(payload)\n", 1,
     "received frame payload (a list of bytes chunks)."),
    ("autobahntestsuite/fuzzing.py",
     "binascii.b2a_hex(frameHeader.mask) if frameHeader.mask else None",
     "binascii.b2a_hex(frameHeader.mask).decode('ascii') if frameHeader.mask else None", 2,
     "frame masks in the wire log, as str."),
    ("autobahntestsuite/fuzzing.py",
     "                     mmask = binascii.b2a_hex(t[6])\n",
     "                     ## py3 port: py2 hex-encoded the already hex mask again; the report stays as it was\n"
     "                     mmask = binascii.b2a_hex(t[6].encode('ascii')).decode('ascii')\n", 1,
     "the HTML wire log of received frames."),
    ("autobahntestsuite/fuzzing.py",
     "f.write('         <pre class=\"%s\">%s%s</pre>\\n' % (css_class, (2+4+len(prefix))*\" \", ll.encode('utf8')))",
     "f.write('         <pre class=\"%s\">%s%s</pre>\\n' % (css_class, (2+4+len(prefix))*\" \", ll))", 1,
     "py3 text files take str; the file is opened as UTF-8 (below)."),
    ("autobahntestsuite/fuzzing.py",
     "(c[0], case[c[0]], c[1])).encode(\"utf-8\"))", "(c[0], case[c[0]], c[1])))", 1,
     "as above (case report statistics)."),
    ("autobahntestsuite/fuzzing.py",
     "f = open(os.path.join(outdir, report_filename), 'w')",
     "f = open(os.path.join(outdir, report_filename), 'w', encoding = 'utf8')", 4,
     "index.json, index.html and the per-case reports are UTF-8 whatever the locale."),
    ("autobahntestsuite/fuzzing.py",
     '"localCloseReason": self.localCloseReason,', '"localCloseReason": _py3runtime.text(self.localCloseReason),', 1,
     "close reasons are bytes in autobahn on py3; json.dumps needs str."),
    ("autobahntestsuite/fuzzing.py",
     '"remoteCloseReason": self.remoteCloseReason,', '"remoteCloseReason": _py3runtime.text(self.remoteCloseReason),', 1,
     "as above."),
    ("autobahntestsuite/fuzzing.py",
     "self.http_request_data if hasattr", "_py3runtime.text(self.http_request_data) if hasattr", 1,
     "the opening handshake (bytes) in the case report."),
    ("autobahntestsuite/fuzzing.py",
     "self.http_response_data if hasattr", "_py3runtime.text(self.http_response_data) if hasattr", 1,
     "as above."),
    ("autobahntestsuite/fuzzing.py",
     "self.sendFrame(opcode = 1, payload = spec.get(\"payload\", \"\"), payload_len",
     "self.sendFrame(opcode = 1, payload = spec.get(\"payload\", \"\").encode(\"UTF-8\"), payload_len", 1,
     "direct command mode 'echo': a JSON (text) payload, encoded like 'sendframe' does."),
    ("autobahntestsuite/fuzzing.py",
     "   listenWS(factory, sslContext)\n",
     "   ## Switchboard: optional spec key \"interface\" (e.g. \"127.0.0.1\") to bind the fuzzing\n"
     "   ## server to one address; upstream always listens on all interfaces.\n"
     "   interface = spec.get(\"interface\", \"\")\n"
     "   listenWS(factory, sslContext, interface = interface)\n", 1,
     "loopback-only client testing (run-client-suite.sh)."),
    ("autobahntestsuite/fuzzing.py",
     "reactor.listenSSL(webport, web, sslContext)", "reactor.listenSSL(webport, web, sslContext, interface = interface)", 1,
     "the embedded web server (-u PORT) binds where the fuzzing server does."),
    ("autobahntestsuite/fuzzing.py",
     "reactor.listenTCP(webport, web)", "reactor.listenTCP(webport, web, interface = interface)", 1,
     "as above."),
    ("autobahntestsuite/fuzzing.py",
     "webdir.putChild('cwd', curdir)", "webdir.putChild(b'cwd', curdir)", 1,
     "Twisted's resource paths are bytes on py3."),
]


def _glob_files(pattern, texts):
    rx = re.compile("^" + re.escape(pattern).replace(r"\*", "[^/]*")
                    .replace(r"\[", "[").replace(r"\]", "]") + "$")
    return sorted(p for p in texts if rx.match(p))


def apply_edits(texts):
    for pattern, old, new, count, why in EDITS:
        files = _glob_files(pattern, texts)
        found = sum(texts[f].count(old) for f in files)
        if found != count:
            raise PortError("edit anchor %r found %d times in %s, expected %d (%s)"
                            % (old[:60], found, pattern, count, why))
        for f in files:
            texts[f] = texts[f].replace(old, new)


# --------------------------------------------------------------------------
# driver


def _sha256(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def _port_id():
    return _sha256(os.path.abspath(__file__), RUNTIME_SRC)


def _dist(name):
    try:
        d = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise PortError("%s is not installed for %s" % (name, sys.executable))
    if d.version != PINS[name]:
        raise PortError("%s %s installed; the port is for %s exactly" % (name, d.version, PINS[name]))
    return d


def _record(dists):
    """{path relative to site-packages: (absolute path, sha256 digest bytes)} from pip's RECORD."""
    rec = {}
    for d in dists:
        for f in d.files or []:
            if f.hash and f.hash.mode == "sha256":
                digest = base64.urlsafe_b64decode(f.hash.value + "=" * (-len(f.hash.value) % 4))
                rec[str(f).replace(os.sep, "/")] = (str(d.locate_file(f)), digest)
    return rec


_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _read_source(path, rel):
    with open(path, "rb") as f:
        raw = f.read()
    head = raw.decode("latin-1").splitlines()[:2]
    cookies = [m.group(1).lower() for m in map(_CODING.match, head) if m]
    if cookies and cookies[0].replace("_", "-") not in ("utf-8", "utf8"):
        raise PortError("%s: source encoding %s (expected UTF-8 or ASCII)" % (rel, cookies[0]))
    src = raw.decode("utf8" if cookies else "ascii")
    crlf = "\r\n" in src
    if crlf and src.count("\r\n") != src.count("\n"):
        raise PortError("%s: mixed line endings" % rel)
    return src.replace("\r\n", "\n"), crlf


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 0 iff the port is installed and current")
    ap.add_argument("--show", metavar="NAME", help="print one ported file (relative to autobahntestsuite/) and exit")
    args = ap.parse_args()

    dists = [_dist("autobahntestsuite"), _dist("autobahn")]
    pkg = str(dists[0].locate_file("autobahntestsuite"))
    site = os.path.dirname(pkg)
    marker = os.path.join(pkg, MARKER_NAME)
    port_id = _port_id()

    current = None
    if os.path.exists(marker):
        with open(marker) as f:
            current = json.load(f).get("port_id")
    if args.check:
        return 0 if current == port_id else 1
    if current == port_id and not args.show:
        print("py3port: %s already ported (port %s)" % (pkg, port_id[:12]))
        return 0
    # A marker from another version of the port is not trusted: the RECORD check
    # below requires pristine files (a reinstall leaves the marker behind, since
    # pip removes only the files it installed).

    rels = ["autobahntestsuite/" + m for m in SUITE_MODULES]
    cases = sorted(os.path.relpath(p, site).replace(os.sep, "/")
                   for p in glob.glob(os.path.join(pkg, CASE_GLOB)))
    rels += cases
    rels += ["autobahn/" + m for m in AUTOBAHN_MODULES]

    record = _record(dists)
    tool = _make_tool()
    texts, crlfs, converted = {}, {}, 0
    for rel in rels:
        if rel not in record:
            raise PortError("%s is not in the packages' RECORD" % rel)
        path, digest = record[rel]
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).digest() != digest:
                raise PortError("%s differs from the PyPI release (RECORD hash; ported by another "
                                "version of this program?); reinstall with pip install --force-reinstall "
                                "--no-deps autobahntestsuite==%s autobahn==%s"
                                % (path, PINS["autobahntestsuite"], PINS["autobahn"]))
        src, crlfs[rel] = _read_source(path, rel)
        if rel in cases:
            src, n = convert_literals(src, rel)
            converted += n
        if rel.startswith("autobahntestsuite/"):
            src = syntax_port(tool, src, path)
        texts[rel] = src
    if converted != EXPECTED_LITERALS:
        raise PortError("literal pass converted %d literals, expected %d: the case modules changed upstream"
                        % (converted, EXPECTED_LITERALS))
    apply_edits(texts)

    for rel, src in texts.items():
        try:
            compile(src, rel, "exec")
        except SyntaxError as e:
            raise PortError("ported %s does not compile: %s" % (rel, e))

    if args.show:
        key = "autobahntestsuite/" + args.show
        if key not in texts:
            raise PortError("%s is not a ported file" % key)
        sys.stdout.write(texts[key])
        return 0

    # everything is ported in memory: write it out
    for rel, src in texts.items():
        if crlfs[rel]:
            src = src.replace("\n", "\r\n")
        with open(os.path.join(site, rel), "w", encoding="utf8", newline="") as f:
            f.write(src)
    with open(RUNTIME_SRC, "rb") as f:
        runtime = f.read()
    with open(os.path.join(pkg, RUNTIME_NAME), "wb") as f:
        f.write(runtime)
    for d in {os.path.dirname(os.path.join(site, rel)) for rel in texts}:
        cache = os.path.join(d, "__pycache__")
        if os.path.isdir(cache):
            for name in os.listdir(cache):
                os.unlink(os.path.join(cache, name))
    with open(marker, "w") as f:
        json.dump({"port_id": port_id, "files": len(texts), "literals": converted,
                   "edits": len(EDITS), "versions": PINS}, f, indent=1)
        f.write("\n")
    print("py3port: ported %d files in %s (%d payload literals to bytes, %d edits, port %s)"
          % (len(texts), site, converted, len(EDITS), port_id[:12]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PortError as e:
        print("py3port: error: %s" % e, file=sys.stderr)
        sys.exit(2)
