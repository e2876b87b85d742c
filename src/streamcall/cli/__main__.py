"""``python -m streamcall.cli``: the ``streamcall`` command."""

import sys

from streamcall.cli import main

sys.exit(main())
