#!/usr/bin/env python3
"""pcap-to-fixtures.py PCAP OUTDIR MAC=NAME [MAC=NAME ...]

Extracts the UDP payload of every mDNS packet (port 5353, IPv4 or IPv6, Ethernet link type)
from a classic pcap file and writes each distinct payload once, in capture order, as
OUTDIR/<name>-<NN>-<query|response>.bin, where <name> comes from the packet's source MAC
address. Also writes OUTDIR/manifest.tsv: file, source, IP version, UDP source port, bytes.
Standard library only, so it runs with any python3.
"""
import os
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        endian = ">"
    else:
        sys.exit("not a classic pcap file (pcapng is not supported): " + path)
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit("link type %d, expected Ethernet (1)" % linktype)
    offset = 24
    while offset + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        offset += 16
        yield data[offset:offset + caplen]
        offset += caplen


def udp_payload(frame):
    """(source MAC, IP version, UDP source port, payload) of an mDNS frame, or None."""
    if len(frame) < 14:
        return None
    source_mac = ":".join("%02x" % b for b in frame[6:12])
    ethertype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if ethertype == 0x0800 and len(ip) >= 20 and ip[9] == 17:
        version, udp = 4, ip[(ip[0] & 0x0F) * 4:]
    elif ethertype == 0x86DD and len(ip) >= 40 and ip[6] == 17:
        version, udp = 6, ip[40:]
    else:
        return None
    if len(udp) < 8:
        return None
    sport, dport, length = struct.unpack("!HHH", udp[:6])
    if 5353 not in (sport, dport) or length < 8:
        return None
    return source_mac, version, sport, bytes(udp[8:length])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    pcap, outdir = sys.argv[1], sys.argv[2]
    names = dict(arg.lower().split("=", 1) for arg in sys.argv[3:])
    os.makedirs(outdir, exist_ok=True)
    seen = set()
    counters = {}
    rows = []
    for frame in packets(pcap):
        parsed = udp_payload(frame)
        if parsed is None:
            continue
        mac, version, sport, payload = parsed
        if payload in seen or len(payload) < 12:
            continue
        seen.add(payload)
        source = names.get(mac, "other")
        counters[source] = counters.get(source, 0) + 1
        kind = "response" if payload[2] & 0x80 else "query"
        name = "%s-%02d-%s.bin" % (source, counters[source], kind)
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(payload)
        rows.append("%s\t%s\tipv%d\t%d\t%d" % (name, source, version, sport, len(payload)))
    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        f.write("# file\tsource\tip\tudp-source-port\tbytes\n")
        f.write("\n".join(rows) + "\n")
    print("%d distinct mDNS payloads written to %s" % (len(rows), outdir))


if __name__ == "__main__":
    main()
