"""No network for examples: a socket may connect only to loopback addresses and Unix sockets.

The example worker imports this module; shell examples get it as `sitecustomize` (its folder is
put on PYTHONPATH), so every Python process they start (torchrun and its workers) is guarded too.
Localhost stays open for the distributed examples' rendezvous.
"""

import ipaddress
import socket

_connect, _connect_ex, _sendto = socket.socket.connect, socket.socket.connect_ex, socket.socket.sendto


class NetworkBlockedError(OSError):
    pass


def _is_local(address) -> bool:
    if not isinstance(address, tuple):  # a Unix socket path
        return True
    host = str(address[0])
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:  # any other host name would need a DNS query, which is network already
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(address):
    if not _is_local(address):
        raise NetworkBlockedError(f"examples have no network: connecting to {address!r} is blocked (only localhost is allowed)")


def _guarded_connect(self, address):
    _check(address)
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    _check(address)
    return _connect_ex(self, address)


def _guarded_sendto(self, data, *args):
    _check(args[-1])
    return _sendto(self, data, *args)


socket.socket.connect = _guarded_connect
socket.socket.connect_ex = _guarded_connect_ex
socket.socket.sendto = _guarded_sendto
