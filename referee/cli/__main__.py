"""``python -m referee.cli``: the ``vastuz`` command."""

import sys

from referee.cli.main import main

sys.exit(main())
