#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz-token target into Tests/Fuzz/token/corpus.

The tokens are signed with the fuzz target's fixed test secret (Sources/fuzz-token), so the
fuzzer starts from inputs that reach every check: good tokens, each refusal, edge-case JSON.
Names are the SHA-1 of the content, as libFuzzer names what it adds (-merge=1).
"""
import base64
import hashlib
import hmac
import os
import sys

SECRET = b"switchboard-fuzz-secret-32-bytes"
NOW = 1767225600  # the target checks at 2026-01-01T00:00:00Z


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def signed(header, payload, secret=SECRET):
    signing_input = b64(header.encode()) + b"." + b64(payload.encode())
    return signing_input + b"." + b64(hmac.new(secret, signing_input, hashlib.sha256).digest())


HS = '{"alg":"HS256","typ":"JWT"}'
later, earlier = NOW + 600, NOW - 600
seeds = [
    signed(HS, '{"sub":"alice","exp":%d,"rooms":["team-*","lobby"]}' % later),
    signed(HS, '{"sub":"bob","exp":%d,"nbf":%d,"iat":%d}' % (later, earlier, earlier)),
    signed('{"alg":"HS256","kid":"k1"}', '{"sub":"k","exp":%d,"rooms":["*"]}' % later),
    signed(HS, '{"sub":"old","exp":%d}' % earlier),
    signed(HS, '{"sub":"soon","exp":%d,"nbf":%d}' % (later + 9000, later)),
    signed(HS, '{"sub":"future","exp":%d,"iat":%d}' % (later + 9000, later)),
    signed(HS, '{"exp":%d}' % later),
    signed(HS, '{"sub":"","exp":%d}' % later),
    signed(HS, '{"sub":"noexp"}'),
    signed(HS, '{"sub":"r","exp":%d,"rooms":"lobby"}' % later),
    signed(HS, '{"sub":"r","exp":%d,"rooms":["a b", 3]}' % later),
    signed(HS, '{"sub":"aud","exp":%d,"aud":["x","y"],"iss":"z"}' % later),
    signed(HS, '{"sub":"\\u00fc\\ud83d\\ude00","exp":%d.5,"x":{"a":[1,-2.5e3,true,false,null]}}' % later),
    signed(HS, '{"sub":"dup","sub":"dup2","exp":%d}' % later),
    signed(HS, '{"sub":"deep","exp":%d,"d":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}' % later),
    signed('{"alg":"HS256","crit":["b64"],"b64":false}', '{"sub":"c","exp":%d}' % later),
    signed('{"alg":"HS256","enc":"A128GCM"}', '{"sub":"e","exp":%d}' % later),
    signed(HS, '{"sub":"wrong","exp":%d}' % later, secret=b"another-secret-of-at-least-32-by"),
    b64(b'{"alg":"none","typ":"JWT"}') + b"." + b64(b'{"sub":"none","exp":%d}' % later) + b".",
    b64(b'{"alg":"RS256"}') + b"." + b64(b'{"sub":"rs","exp":%d}' % later) + b"." + b64(bytes(256)),
    b64(b'{"alg":"ES256"}') + b"." + b64(b'{"sub":"es","exp":%d}' % later) + b"." + b64(bytes(64)),
    b"eyJhbGciOiJIUzI1NiJ9.e30",
    b"a.b.c.d.e",
    b"e30=.e30.AA",
    b"",
    # The target's second form: header and payload JSON, signed by the target itself.
    (HS + '\n{"sub":"json","exp":%d,"rooms":["team-*"]}' % later).encode(),
    (HS + '\n{"sub":"json","exp":%d,"nbf":%d,"aud":["a"]}' % (later, earlier)).encode(),
    ('{"alg":"HS256","kid":"k"}\n{"sub":"\\u00e9","exp":1e9,"rooms":["*","a*b*c"],"x":[[{}]]}').encode(),
    ('{"alg":"HS256"}\n{"sub":"n","exp":%d.25,"iat":-1}' % later).encode(),
]

directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Fuzz", "token", "corpus")
os.makedirs(directory, exist_ok=True)
for seed in seeds:
    with open(os.path.join(directory, hashlib.sha1(seed).hexdigest()), "wb") as f:
        f.write(seed)
print("wrote %d seeds to %s" % (len(seeds), os.path.normpath(directory)), file=sys.stderr)
