"""The connection limits of ``chaintag serve``: a deadline for each whole request, a cap on open
connections, slots for the requests tagged at once, and the drain of the requests in progress when
the server stops. :mod:`chaintag.service.server` answers the requests."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from http.server import ThreadingHTTPServer

__all__ = ["DeadlineReader", "LimitedServer", "default_max_active"]


class DeadlineReader:
    """The connection's input, with a deadline for the whole request: a client that trickles its
    header lines or body (one byte every few seconds) gets no more than ``seconds`` in all."""

    def __init__(self, raw, sock, seconds: float, idle: float | None):
        self.raw, self.sock, self.seconds, self.idle = raw, sock, seconds, idle
        self.deadline = None

    def start(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def _arm(self) -> None:
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive within its deadline")
        self.sock.settimeout(left if self.idle is None else min(left, self.idle))  # each wait, and in all

    def readline(self, limit=-1):
        self._arm()
        return self.raw.readline(limit)

    def read(self, n=-1):
        self._arm()
        return self.raw.read(n)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class LimitedServer(ThreadingHTTPServer):
    """The threading server with a listen backlog for hundreds of clients (the standard library's is 5)
    and a cap on open connections: past it, a new connection gets 503 at once and is closed, so that
    the file descriptors never run out and the server keeps answering."""

    request_queue_size = 1024
    max_connections = 256

    def __init__(self, *args, max_active: int = 4, **kwargs):
        super().__init__(*args, **kwargs)
        self._open = 0
        self._open_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, int(max_active)))
        self._busy = 0
        self._busy_changed = threading.Condition()
        self.stopping = False

    @contextlib.contextmanager
    def working(self):
        """Count a request from its body's reading until it is answered (what :meth:`drain` waits for)."""
        with self._busy_changed:
            self._busy += 1
        try:
            yield
        finally:
            with self._busy_changed:
                self._busy -= 1
                self._busy_changed.notify_all()

    def slot(self):
        """One of the ``max_active`` slots, held while a request is tagged and answered."""
        return self._slots

    @property
    def busy(self) -> int:
        """Requests being read, tagged or answered (or waiting for a slot)."""
        with self._busy_changed:
            return self._busy

    def drain(self, seconds: float) -> int:
        """Let the requests in progress finish (their connections then close) for at most ``seconds``;
        returns how many are left. Call it once ``serve_forever`` has returned."""
        self.stopping = True
        deadline = time.monotonic() + max(0.0, float(seconds))
        with self._busy_changed:
            while self._busy and time.monotonic() < deadline:
                self._busy_changed.wait(deadline - time.monotonic())
            return self._busy

    def process_request(self, request, client_address):
        with self._open_lock:
            full = self._open >= self.max_connections
            if not full:
                self._open += 1
        if full:
            held = f"{self.max_connections} connection{'' if self.max_connections == 1 else 's'}"
            body = json.dumps({"error": f"the server holds {held}, its limit; try again later"}).encode()
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                                + body)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open -= 1


def default_max_active() -> int:
    """Requests tagged at once by default: the machine's cores (at least 2)."""
    return max(2, os.cpu_count() or 1)
