"""zc-browse.py TYPE SECONDS - python-zeroconf browses TYPE (e.g. _switchboard._tcp) for
SECONDS, resolves each instance and prints one line per resolved one:
    FOUND <TAB> instance name <TAB> server <TAB> port <TAB> addresses <TAB> TXT strings
Exit 0 when something was resolved, 1 when nothing was found.

For scripts/discovery/interop.sh. Refuses to run anywhere but in that script's sbmdns-*
network namespaces (never in the machine's root namespace): multicast must stay inside.
"""
import os
import socket
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf


def in_our_netns(prefix: str = "sbmdns-") -> bool:
    """True only inside a namespace named PREFIX* made with `ip netns add` (interop.sh's
    sbmdns-*, capture-fixtures.sh's sbdns-*), never in the root namespace."""
    try:
        me = os.stat("/proc/self/ns/net")
        for name in os.listdir("/run/netns"):
            st = os.stat(os.path.join("/run/netns", name))
            if name.startswith(prefix) and (st.st_dev, st.st_ino) == (me.st_dev, me.st_ino):
                return True
    except OSError:
        pass
    return False


class Collector(ServiceListener):
    def __init__(self):
        self.names = set()

    def add_service(self, zc, type_, name):
        self.names.add(name)

    def update_service(self, zc, type_, name):
        self.names.add(name)

    def remove_service(self, zc, type_, name):
        self.names.discard(name)


def main():
    if not in_our_netns():
        sys.exit("zc-browse.py: refusing to run outside interop.sh's sbmdns-* network namespaces")
    type_ = sys.argv[1].rstrip(".") + ".local."
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    found = 0
    try:
        collector = Collector()
        browser = ServiceBrowser(zc, type_, collector)
        time.sleep(seconds)
        for name in sorted(collector.names):
            info = zc.get_service_info(type_, name, timeout=3000)
            if info is None:
                print("UNRESOLVED\t" + name, flush=True)
                continue
            raw = info.text or b""
            txt, index = [], 0
            while index < len(raw):
                length = raw[index]
                if length:
                    txt.append(raw[index + 1:index + 1 + length].decode("utf-8", "replace"))
                index += 1 + length
            addresses = ",".join(socket.inet_ntoa(a) for a in info.addresses)
            print("FOUND\t%s\t%s\t%d\t%s\t%s" % (name, info.server, info.port, addresses, " ".join(txt)), flush=True)
            found += 1
        browser.cancel()
    finally:
        zc.close()
    sys.exit(0 if found else 1)


if __name__ == "__main__":
    main()
