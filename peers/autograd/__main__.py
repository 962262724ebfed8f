"""`python -m peers.autograd`: run autograd's test suite against zygote_py."""

import sys

from .runner import main

sys.exit(main())
