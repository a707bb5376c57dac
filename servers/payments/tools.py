"""The payments tools: the reads (`reads.py`) then the writes (`writes.py`), in one registry."""

from mcpgym.servers.payments.writes import tools

__all__ = ["tools"]
