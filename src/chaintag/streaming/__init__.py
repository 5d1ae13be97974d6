"""Training without holding the corpus: bounded chunks read from the file, compact arrays on disk.

:func:`fit_streamed` reads the training file three times in chunks of
sentences (vocabularies; attribute keys and their label counts; attribute ids),
never keeping more than one chunk's strings, and writes each chunk's compact
arrays (offsets, feature ranges, gold labels) to ``.npy`` files; every epoch
then maps one chunk file at a time. Peak memory is the model (weights,
attribute table, vocabularies) plus one chunk, whatever the corpus's size.
"""

from .train import fit_streamed

__all__ = ["fit_streamed"]
