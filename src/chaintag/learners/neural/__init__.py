"""Neural learners: BiLSTM and BiLSTM-CRF taggers in PyTorch (the optional ``neural`` extra).

Importing this package does not import PyTorch; fitting, using or loading
a neural model does, and says which extra to install when it is missing.
"""

from .learner import NeuralTagger
from .taggers import BiLSTM, BiLSTMCRF

__all__ = ["BiLSTM", "BiLSTMCRF", "NeuralTagger"]
