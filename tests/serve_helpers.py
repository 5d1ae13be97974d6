"""What the tests of chaintag serve share: a server on a free loopback port in a thread."""

import contextlib
import threading

from chaintag.service import make_server


@contextlib.contextmanager
def serving(model, **options):
    """A server on a free loopback port, in a thread, for the block's length."""
    srv = make_server(model, "127.0.0.1", 0, **options)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
