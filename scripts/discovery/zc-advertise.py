"""zc-advertise.py NAME TYPE PORT ADDRESS [KEY=VALUE...] - python-zeroconf publishes one service
(host zc-NAME.local. at ADDRESS) until SIGTERM, then sends goodbyes. Prints REGISTERED.

For scripts/discovery/interop.sh; refuses to run outside its sbmdns-* network namespaces.
"""
import signal
import socket
import sys

from zeroconf import IPVersion, ServiceInfo, Zeroconf

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

in_our_netns = import_module("zc-browse").in_our_netns


def main():
    if not in_our_netns():
        sys.exit("zc-advertise.py: refusing to run outside interop.sh's sbmdns-* network namespaces")
    name, type_, port, address = sys.argv[1], sys.argv[2].rstrip(".") + ".local.", int(sys.argv[3]), sys.argv[4]
    properties = {}
    for item in sys.argv[5:]:
        key, _, value = item.partition("=")
        properties[key] = value
    info = ServiceInfo(
        type_, name + "." + type_, port=port, properties=properties,
        server="zc-" + name.replace(" ", "-") + ".local.", addresses=[socket.inet_aton(address)])
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        zc.register_service(info, strict=False)
        print("REGISTERED", flush=True)
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        zc.unregister_service(info)
    finally:
        zc.close()


if __name__ == "__main__":
    main()
