"""chaintag: linear-chain sequence labelers (structured perceptron, SAPO, ...).

The numeric core (emission scoring, Viterbi, weight updates) is compiled with
numba over flat numpy arrays; everything else is plain Python.
"""

__version__ = "0.1.0"
