"""`python -m zygote_py`: the zygote-py command."""

import sys

from .cli.main import main

sys.exit(main())
