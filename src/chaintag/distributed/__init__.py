"""Training and tagging on a Dask cluster (``pip install 'chaintag[dist]'``).

- :func:`fit_distributed`: iterative parameter mixing for the perceptron,
  MIRA, SAPO and CRF-SGD; a gradient summed over workers for crf-lbfgs.
- :func:`open_client`: an embedded ``LocalCluster`` or a client of a running
  scheduler.
"""

from .cluster import open_client
from .trainer import fit_distributed

__all__ = ["fit_distributed", "open_client"]
