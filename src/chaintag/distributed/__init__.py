"""Training and tagging on a Dask cluster (``pip install 'chaintag[dist]'``).

- :func:`fit_distributed`: iterative parameter mixing for the perceptron,
  MIRA, SAPO and CRF-SGD; a gradient summed over workers for crf-lbfgs.
- :func:`fit_distributed_file`: the same from a file read in chunks, the
  shards written to disk: the driver does not hold the corpus.
- :func:`open_client`: an embedded ``LocalCluster`` or a client of a running
  scheduler.
"""

from .cluster import open_client
from .from_file import fit_distributed_file
from .trainer import fit_distributed

__all__ = ["fit_distributed", "fit_distributed_file", "open_client"]
