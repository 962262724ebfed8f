"""The `zygote-py` command line: grad (standalone modules), ir, check."""
