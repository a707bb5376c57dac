"""Other benchmarks inside mcpgym: their backends served as mcpgym servers, their tasks as
mcpgym tasks, scored by their own checkers."""
