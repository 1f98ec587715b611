#!/usr/bin/env python3
"""PyJWT as an independent token peer for the SwitchboardAuth interop tests.

  pyjwt-peer.py mint ALG KEYFILE CLAIMS_JSON [HEADERS_JSON]   prints a token
  pyjwt-peer.py verify ALG KEYFILE TOKEN [LEEWAY]             prints "ok CLAIMS_JSON" or "error NAME"
  pyjwt-peer.py batch JOBS_FILE                               prints one JSON array of results

ALG is HS256, RS256, ES256 or none. KEYFILE holds the HMAC secret (its bytes as they are)
or a PEM key (private to mint, public to verify); "-" for none. A batch file is a JSON array
of {"op": "mint", "alg", "key", "claims", "headers"?} and {"op": "verify", "alg", "key",
"token", "leeway"?}; each result is the token, or "ok CLAIMS_JSON" / "error NAME". Verdicts
are output, not exit codes: anything else failing exits 1 with the reason on stderr.
"""
import json
import sys

import jwt


def read_key(path):
    if path == "-":
        return None
    with open(path, "rb") as f:
        return f.read()


def mint(alg, key, claims, headers=None):
    return jwt.encode(claims, read_key(key), algorithm=alg, headers=headers)


def verify(alg, key, token, leeway=0):
    try:
        claims = jwt.decode(token, read_key(key), algorithms=[alg], leeway=leeway,
                            options={"require": ["exp", "sub"]})
    except jwt.PyJWTError as error:
        return "error " + type(error).__name__
    return "ok " + json.dumps(claims, sort_keys=True)


def main(argv):
    if len(argv) == 3 and argv[1] == "batch":
        with open(argv[2]) as f:
            jobs = json.load(f)
        results = []
        for job in jobs:
            if job["op"] == "mint":
                results.append(mint(job["alg"], job["key"], job["claims"], job.get("headers")))
            else:
                results.append(verify(job["alg"], job["key"], job["token"], job.get("leeway", 0)))
        print(json.dumps(results))
        return
    if len(argv) < 5 or argv[1] not in ("mint", "verify"):
        sys.exit(__doc__)
    if argv[1] == "mint":
        print(mint(argv[2], argv[3], json.loads(argv[4]), json.loads(argv[5]) if len(argv) > 5 else None))
    else:
        print(verify(argv[2], argv[3], argv[4], int(argv[5]) if len(argv) > 5 else 0))


if __name__ == "__main__":
    main(sys.argv)
