"""An HTTP JSON tagging service for a saved model (``chaintag serve``)."""

from .server import TaggingService, make_server

__all__ = ["TaggingService", "make_server"]
