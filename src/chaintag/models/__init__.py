"""Models by name: the built-in taggers shipped in this package, and the ones built into the user's cache.

- :mod:`chaintag.models.catalog`: every known name, what it tags, the dataset and settings
  that make it, its measured accuracy and the licence of its data;
- :mod:`chaintag.models.cache`: the user's cache folder (``CHAINTAG_CACHE``, else
  ``$XDG_CACHE_HOME/chaintag``);
- :mod:`chaintag.models.resolve`: a model argument (a file or a name) to the file to load.

The built-in model files (``en-pos.npz``, ``en-upos.npz``) lie in this package folder with the
licence and attribution of the data they were trained on (``ATTRIBUTION-UD-EWT.txt``,
``LICENSE-CC-BY-SA-4.0.txt``). Training and listing with the data directory are
:mod:`chaintag.api.builtin_models` (``chaintag models``).
"""
