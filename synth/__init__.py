"""Task synthesis from the servers themselves: the tool dependency graph (graph.py, draw.py)."""
