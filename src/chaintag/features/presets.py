"""Every feature preset by name: the plain ones and those that read resources.

``PRESETS`` maps a name to its template specs; ``OPTIONAL`` to the specs used
only when the data has their columns (the POS attributes of ``ner``).
"""

from __future__ import annotations

from .base_presets import CHUNKING, NER, NER_POS_COLUMN, POS
from .cluster_presets import CLUSTER_OPTIONAL, CLUSTER_PRESETS

__all__ = ["PRESETS", "OPTIONAL"]

PRESETS: dict[str, list[str]] = {"chunking": CHUNKING, "pos": POS, "ner": NER, **CLUSTER_PRESETS}
OPTIONAL: dict[str, list[str]] = {"ner": NER_POS_COLUMN, **CLUSTER_OPTIONAL}
