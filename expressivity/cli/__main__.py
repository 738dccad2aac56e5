"""Allow ``python -m expressivity.cli``."""

import sys

from expressivity.cli import main

sys.exit(main())
