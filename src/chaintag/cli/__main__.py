"""``python -m chaintag.cli``: the command line, as the ``chaintag`` script (inside the CLI package, which
nothing else imports)."""

import sys

from .main import main

sys.exit(main())
