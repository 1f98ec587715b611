"""zc-peer.py SECONDS - a python-zeroconf peer for scripts/discovery/capture-fixtures.sh.

Advertises two DNS-SD services, browses for both types (its own and anybody else's, e.g.
avahi's), resolves what it finds, prints one line per resolved instance:
    FOUND <TAB> instance name <TAB> server <TAB> port <TAB> TXT strings
then unregisters (zeroconf sends goodbyes, TTL 0) and exits 0.

  zc chat ☕._switchboard._tcp.local.        port 7200, TXT version=1, flag (key only), note= (empty value)
  zc peer._networkplayground._udp.local.     port 7201, empty TXT (one zero byte on the wire)

_networkplayground is 17 characters, over RFC 6763's 15: zeroconf refuses it unless
strict=False, which is what real peers (an iOS app's service type) need.

Refuses to run anywhere but in the capture script's sbdns-* network namespaces (never in
the machine's root namespace): multicast must stay inside them.
"""
import os
import socket
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceListener, Zeroconf

TYPES = ["_switchboard._tcp.local.", "_networkplayground._udp.local."]


sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

_netns_guard = import_module("zc-browse").in_our_netns


def in_our_netns() -> bool:
    """True only inside a namespace named sbdns-* (capture-fixtures.sh's)."""
    return _netns_guard("sbdns-")


class Collector(ServiceListener):
    def __init__(self):
        self.names = set()

    def add_service(self, zc, type_, name):
        self.names.add((type_, name))

    def update_service(self, zc, type_, name):
        self.names.add((type_, name))

    def remove_service(self, zc, type_, name):
        pass


def main():
    if not in_our_netns():
        sys.exit("zc-peer.py: refusing to run outside the capture's sbdns-* network namespaces")
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
    address = os.environ.get("ZC_ADDRESS", "10.231.7.2")
    host = "zc-host.local."
    services = [
        ServiceInfo(
            TYPES[0], "zc chat \u2615." + TYPES[0], port=7200,
            properties={"version": "1", "flag": None, "note": ""},
            server=host, addresses=[socket.inet_aton(address)]),
        ServiceInfo(
            TYPES[1], "zc peer." + TYPES[1], port=7201, properties={},
            server=host, addresses=[socket.inet_aton(address)]),
    ]
    zc = Zeroconf(ip_version=IPVersion.All)
    try:
        for info in services:
            zc.register_service(info, strict=False)
        print("REGISTERED", flush=True)
        collector = Collector()
        browsers = [ServiceBrowser(zc, t, collector) for t in TYPES]
        time.sleep(seconds)
        for type_, name in sorted(collector.names):
            info = zc.get_service_info(type_, name, timeout=3000)
            if info is None:
                print("UNRESOLVED\t" + name, flush=True)
                continue
            txt = []
            raw = info.text or b""
            index = 0
            while index < len(raw):
                length = raw[index]
                txt.append(raw[index + 1:index + 1 + length].decode("utf-8", "replace"))
                index += 1 + length
            print("FOUND\t%s\t%s\t%d\t%s" % (name, info.server, info.port, " ".join(txt)), flush=True)
        for browser in browsers:
            browser.cancel()
        zc.unregister_all_services()
    finally:
        zc.close()


if __name__ == "__main__":
    main()
