"""Work cancelled when the client goes away: a check of the client's socket between batches."""

from __future__ import annotations

import select
import socket

__all__ = ["ClientGone", "client_gone"]


class ClientGone(Exception):
    """The client closed its connection before its answer was ready; the work was stopped."""


def client_gone(sock) -> bool:
    """Whether the peer of ``sock`` has closed its side (an orderly close or a reset).

    Parameters
    ----------
    sock : socket.socket
        A connected stream socket.

    Returns
    -------
    bool
        True when the socket is readable and a peek reads end of file (or an error); False when
        nothing is pending or more bytes are (a pipelined next request).
    """
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except (OSError, ValueError):  # reset, or closed on this side
        return True
