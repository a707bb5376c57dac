"""BFCL multi-turn inside mcpgym: the backends of the `bfcl-eval` package served as object
servers, its 800 multi-turn tasks as mcpgym tasks, episodes scored by BFCL's own checker.

The package itself is optional: `package.require_bfcl` imports it or says how to install it.
"""
