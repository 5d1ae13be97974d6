"""Distributional word resources: Brown-style cluster paths, k-means cluster ids of word vectors.

Templates read them through the functions ``brownK`` (the first K bits of a
word's path in a binary cluster hierarchy) and ``kmN`` (the id of a word's
cluster among N k-means clusters of word vectors); see
:mod:`chaintag.resources.wordmaps`. :mod:`chaintag.resources.files` reads
the files users bring, :mod:`chaintag.resources.induce` induces the clusters
from raw text (``chaintag clusters``). :mod:`chaintag.resources.cached` reads
word-vector files and computes their k-means ids through a cache keyed by the
files' content (:mod:`chaintag.resources.store`, ``<cache>/resources``);
:mod:`chaintag.resources.discover` names the known resources of the data
directory (GloVe 6B 50d), taken when templates need one and none is given.
"""
