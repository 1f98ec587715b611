"""Runtime half of Switchboard's Python 3 port of autobahntestsuite 25.10.1.

scripts/autobahn/py3port.py copies this file into the installed package as
``autobahntestsuite/_py3runtime.py``; the ported modules import it.  It holds
the bytes/str policy of the port in one place:

* In Python 2 every payload in the test cases was a ``str``, i.e. bytes.  The
  porter rewrote each literal whose Python 2 value is not plain ASCII (``\\x``
  or octal escapes, UTF-8 text) into a bytes literal with the same octets.
  What is left are ASCII ``str`` payloads such as ``"*" * 125`` or
  ``json.dumps(n)``; ``tobytes`` encodes those where they enter autobahn (the
  send methods of ``SendBytes``).  A non-ASCII ``str`` there is a payload the
  port missed: guessing an encoding could send octets the case never meant,
  so it raises instead.
* ``events`` makes the expected events of a case (ASCII ``str`` payloads) and
  the received ones (``bytes`` from autobahn) comparable.
* ``hexstr`` and ``text`` turn bytes into ``str`` for the HTML/JSON reports,
  which Python 2 wrote from byte strings directly.
"""

import binascii


def tobytes(data):
    """Payload for autobahn: bytes unchanged, ASCII str encoded, else an error."""
    if isinstance(data, str):
        try:
            return data.encode("ascii")
        except UnicodeEncodeError:
            raise TypeError("py3 port: non-ASCII str payload %r: its Python 2 octets are unknown "
                            "(a literal py3port.py did not convert?)" % (data[:40],)) from None
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    return data


# Event tuples whose second item is a payload (Case.onMessage/onPing/onPong).
_PAYLOAD_EVENTS = ("message", "ping", "pong")


def events(seq):
    """A case's expected or received event list, payloads as bytes, as a list of tuples.

    Case.compare compared ``pickle.dumps`` of the two lists.  Under Python 3 the
    pickles differ for str vs bytes and with the pickle memo (a payload object
    used twice pickles as a back-reference), so the port compares values.
    """
    out = []
    for event in seq:
        event = tuple(event)
        if len(event) > 1 and event[0] in _PAYLOAD_EVENTS:
            event = (event[0], tobytes(event[1])) + event[2:]
        out.append(event)
    return out


def hexstr(data):
    """binascii.b2a_hex as Python 2 used it in reports: hex digits as str."""
    return binascii.b2a_hex(tobytes(data)).decode("ascii")


def text(data):
    """bytes (HTTP handshake, close reasons) as str so json.dumps accepts them."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf8", errors="replace")
    return data


class SendBytes:
    """Mixin ahead of autobahn's WebSocketProtocol in FuzzingProtocol's MRO.

    Every way a case hands a payload to autobahn goes through ``tobytes``;
    autobahn 0.10.9 on Python 3 needs bytes (sendMessage asserts it, sendFrame
    would raise on str + bytes)."""

    def sendFrame(self, opcode, payload=b"", *args, **kwargs):
        return super().sendFrame(opcode, tobytes(payload), *args, **kwargs)

    def sendMessage(self, payload, *args, **kwargs):
        return super().sendMessage(tobytes(payload), *args, **kwargs)

    def sendMessageFrame(self, payload, *args, **kwargs):
        return super().sendMessageFrame(tobytes(payload), *args, **kwargs)

    def sendMessageFrameData(self, payload, *args, **kwargs):
        return super().sendMessageFrameData(tobytes(payload), *args, **kwargs)

    def sendPing(self, payload=None):
        return super().sendPing(None if payload is None else tobytes(payload))

    def sendPong(self, payload=None):
        return super().sendPong(None if payload is None else tobytes(payload))

    def sendCloseFrame(self, code=None, reasonUtf8=None, isReply=False):
        return super().sendCloseFrame(code, None if reasonUtf8 is None else tobytes(reasonUtf8), isReply)

    def sendData(self, data, *args, **kwargs):
        return super().sendData(tobytes(data), *args, **kwargs)
