"""``python -m xdiv.cli``: the ``xdiv`` command line."""

import sys

from . import main

sys.exit(main())
