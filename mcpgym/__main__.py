"""`python -m mcpgym` is the `mcpgym` command."""

import sys

from mcpgym.cli import main

sys.exit(main())
