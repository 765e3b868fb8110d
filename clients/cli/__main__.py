"""``python -m clients.cli``: the same as the ``thousand`` command."""

import sys

from clients.cli.main import main

sys.exit(main())
