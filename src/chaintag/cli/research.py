"""The research package behind ``chaintag reproduce``, ``compare``, ``tune`` and ``plot``.

Those commands run code of the separate distribution ``chaintag-research``
(package ``chaintag_research``: the experiment runner, reports and plots),
imported only inside the command, so that the other commands and the
library need neither it nor its dependencies (SciPy, matplotlib,
scikit-learn).
"""

from __future__ import annotations

import importlib

from ..errors import ChaintagError

#: The research package's import name.
PACKAGE = "chaintag_research"

#: How to install it: it ships in the source repository (its ``research/`` folder), not in the wheel.
INSTALL_HINT = ("pip install -e ./research from a checkout of the chaintag source (the research package "
                "ships in its research/ folder, not with pip install chaintag)")


class MissingResearchError(ChaintagError, ImportError):
    """The research package is not installed, and a command that runs it was asked for."""


def require_research(module: str | None = None):
    """Import and return the research package, or one of its modules.

    Parameters
    ----------
    module : str, optional
        A module of the package (``"compare"``, ``"sapo_presets"``); the package itself when None.

    Returns
    -------
    module
        ``chaintag_research`` or ``chaintag_research.<module>``.

    Raises
    ------
    MissingResearchError
        When ``chaintag_research`` cannot be imported: one line saying how to install it (``chaintag``
        prints it after the command's name and exits 2).
    """
    try:
        package = importlib.import_module(PACKAGE)
    except ImportError as exc:
        if exc.name not in (PACKAGE, None) and not str(exc.name).startswith(PACKAGE + "."):
            raise  # the package is there, but something it imports is not: its own message says what
        raise MissingResearchError("this command needs the research package chaintag-research, which is not "
                                   f"installed: {INSTALL_HINT}") from None
    return importlib.import_module(f"{PACKAGE}.{module}") if module else package
