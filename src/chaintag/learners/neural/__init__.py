"""Neural learners: BiLSTM, BiLSTM-CRF and BiLSTM-SAPO taggers in PyTorch (the optional ``neural`` extra).

Importing this package does not import PyTorch; fitting, using or loading
a neural model does, and says which extra to install when it is missing.
"""

from .learner import NeuralTagger
from .sapo_tagger import BiLSTMSAPO
from .taggers import BiLSTM, BiLSTMCRF

__all__ = ["BiLSTM", "BiLSTMCRF", "BiLSTMSAPO", "NeuralTagger"]
