"""Imports on first use: names of a package (PEP 562), shared by ``chaintag`` and
``chaintag.learners`` so that a command needing one learner does not import the others, and
the optional dependencies (scikit-learn, SciPy, matplotlib), which name their extra when missing."""

import importlib
import importlib.util

from .errors import MissingExtraError  # noqa: F401 (the error of require, named here as before)

#: Optional dependency (the top-level module) -> the name it is installed under.
DISTRIBUTIONS = {"sklearn": "scikit-learn", "scipy": "SciPy", "matplotlib": "matplotlib", "gensim": "gensim"}


def require(module, extra, needed_by):
    """Import and return ``module``, an optional dependency of ``needed_by``.

    Parameters
    ----------
    module : str
        Dotted module name (``"sklearn.linear_model"``, ``"scipy.optimize"``).
    extra : str
        The extra of chaintag that installs it (``"maxent"``, ``"lbfgs"``, ``"clusters"``, ``"plot"``).
    needed_by : str
        What needs it, for the message (``"the maxent tagger"``).

    Returns
    -------
    module

    Raises
    ------
    MissingExtraError
        When ``module`` (or the package holding it) cannot be imported: one line naming the missing
        package and the extra, ``pip install 'chaintag[EXTRA]'``. An ImportError raised inside an
        installed module (a broken install) passes through unchanged.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.partition(".")[0]
        missing = exc.name is None or exc.name == top or exc.name.startswith(top + ".")
        if not missing:
            raise
        name = DISTRIBUTIONS.get(top, top)
        raise MissingExtraError(f"{needed_by} needs {name}, which is not installed: "
                                f"pip install 'chaintag[{extra}]'") from None


def lazy_names(package, table, namespace):
    """Module-level ``__getattr__`` and ``__dir__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    table : dict of str to str
        Public name -> module of the package (relative, dotted) that defines it.
    namespace : dict
        The package's ``globals()``: a name is cached there once imported.

    Returns
    -------
    (callable, callable)
        ``__getattr__`` (raises AttributeError for a name that is neither in
        ``table`` nor a subpackage or module) and ``__dir__``.
    """
    def __getattr__(name):
        module = table.get(name)
        if module is None:
            if not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}") is not None:
                return importlib.import_module(f".{name}", package)  # a subpackage or module
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
