"""``python -m host_tools``: the same as the ``spit`` command."""

import sys

from host_tools.cli import main

sys.exit(main())
