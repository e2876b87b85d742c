"""A DNS sink on 127.0.0.1:53 for ``scripts/test-agents``' network namespace.

Every name looked up is appended to ``--log`` (one JSON line: time, name, query type) and
answered NXDOMAIN at once, so a client that reaches for a host fails fast and the run can
say which client asked for which host. Nothing is forwarded anywhere.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import time


def qname(packet: bytes) -> tuple[str, int, int]:
    """The first question's name, its type, and the offset after the question."""
    labels, i = [], 12
    while i < len(packet) and packet[i]:
        n = packet[i]
        labels.append(packet[i + 1 : i + 1 + n].decode("ascii", "replace"))
        i += n + 1
    qtype = struct.unpack("!H", packet[i + 1 : i + 3])[0] if i + 3 <= len(packet) else 0
    return ".".join(labels), qtype, i + 5


def answer(packet: bytes, end: int) -> bytes:
    ident = packet[:2]
    flags = struct.pack("!H", 0x8183)  # response, recursion desired/available, NXDOMAIN
    counts = struct.pack("!HHHH", 1, 0, 0, 0)
    return ident + flags + counts + packet[12:end]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=53)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((args.host, args.port))
    while True:
        packet, peer = sock.recvfrom(4096)
        if len(packet) < 12:
            continue
        name, qtype, end = qname(packet)
        with open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"t": time.time(), "name": name, "type": qtype}) + "\n")
        sock.sendto(answer(packet, end), peer)


if __name__ == "__main__":
    main()
