"""The optional PyTorch dependency of the neural learners, imported only when one is used."""

from __future__ import annotations

from ...errors import MissingExtraError

#: How to install what the neural learners need.
INSTALL_HINT = "pip install 'chaintag[neural]'"


def require_torch():
    """Import and return ``torch``.

    Raises
    ------
    MissingExtraError
        When PyTorch is not installed; the message names the extra to install.
    """
    try:
        import torch
    except ImportError:
        raise MissingExtraError("the neural learners (bilstm, bilstm-crf, bilstm-sapo) need PyTorch, which is not "
                                f"installed; install the extra: {INSTALL_HINT}") from None
    return torch
