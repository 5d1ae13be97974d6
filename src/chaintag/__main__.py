"""``python -m chaintag``: the command line, as the ``chaintag`` script."""

import sys

from chaintag.cli.main import main

sys.exit(main())
