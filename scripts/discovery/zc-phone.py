"""zc-phone.py NAME PORT ADDRESS TEXT - a stand-in for seed 003's iPhone app (NWListener +
NWConnection over Bonjour), made of python-zeroconf and plain UDP sockets:

  * listens on UDP PORT (the NWListener) and prints every datagram that arrives as
        RECEIVED <TAB> source-address:port <TAB> text
  * advertises NAME._networkplayground._udp.local. on PORT (host zc-NAME.local. at ADDRESS),
    prints REGISTERED;
  * browses _networkplayground._udp, and for every instance other than NAME (the app's
    `guard service.name != myName`) resolves it, prints
        FOUND <TAB> instance <TAB> address <TAB> port
    and sends TEXT once, as one UTF-8 datagram without a newline, from a socket of its own on
    an ephemeral port (what an NWConnection to `.service(name:type:domain:)` does);
  * runs until SIGTERM, then sends goodbyes.

For scripts/discovery/interop-peer.sh; refuses to run outside its sbpeer-* network namespaces.
"""
import signal
import socket
import sys
import threading

from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceListener, Zeroconf

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

in_our_netns = import_module("zc-browse").in_our_netns

TYPE = "_networkplayground._udp.local."
_output = threading.Lock()


def say(*fields):
    """One whole line on stdout: print() from several threads can interleave its parts."""
    with _output:
        sys.stdout.write("\t".join(str(f) for f in fields) + "\n")
        sys.stdout.flush()


def listen(sock):
    while True:
        data, (host, port, *_) = sock.recvfrom(65535)
        say("RECEIVED", "%s:%d" % (host, port), data.decode("utf-8", "replace"))


class Sender(ServiceListener):
    """Resolves each new instance that is not us and sends it TEXT once."""

    def __init__(self, own, text):
        self.own, self.text, self.sent, self.lock = own, text, set(), threading.Lock()

    def add_service(self, zc, type_, name):
        threading.Thread(target=self.resolve, args=(zc, type_, name), daemon=True).start()

    def update_service(self, zc, type_, name):
        self.add_service(zc, type_, name)

    def remove_service(self, zc, type_, name):
        say("REMOVED", name[: -len(type_) - 1])

    def resolve(self, zc, type_, name):
        instance = name[: -len(type_) - 1]
        with self.lock:
            if instance == self.own or instance in self.sent:
                return
            self.sent.add(instance)
        info = zc.get_service_info(type_, name, timeout=5000)
        if info is None or not info.addresses:
            say("UNRESOLVED", instance)
            with self.lock:
                self.sent.discard(instance)
            return
        address = socket.inet_ntoa(info.addresses[0])
        say("FOUND", instance, address, info.port)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as out:
            out.sendto(self.text.encode("utf-8"), (address, info.port))


def main():
    if not in_our_netns("sbpeer-"):
        sys.exit("zc-phone.py: refusing to run outside interop-peer.sh's sbpeer-* network namespaces")
    name, port, address, text = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    # Before any thread starts, so every thread inherits the mask and sigwait gets the signal.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("0.0.0.0", port))
    threading.Thread(target=listen, args=(sock,), daemon=True).start()
    info = ServiceInfo(
        TYPE, name + "." + TYPE, port=port, server="zc-" + name.replace(" ", "-") + ".local.",
        addresses=[socket.inet_aton(address)])
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        zc.register_service(info, strict=False)
        say("REGISTERED")
        browser = ServiceBrowser(zc, TYPE, Sender(name, text))
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        browser.cancel()
        zc.unregister_service(info)
    finally:
        zc.close()


if __name__ == "__main__":
    main()
