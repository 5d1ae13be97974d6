"""Names of a package imported on first use (PEP 562), shared by ``chaintag`` and
``chaintag.learners`` so that a command needing one learner does not import the others."""

import importlib
import importlib.util


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
