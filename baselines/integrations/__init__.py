"""Adapters that let other training and serving stacks use mcpgym environments.

- `mcpgym.baselines.integrations.trl`: a `rollout_func` (multi-turn episodes, tool results and
  user turns masked from the loss) and an `environment_factory` for TRL's `GRPOTrainer`;
- `mcpgym.baselines.integrations.openenv`: an OpenEnv `Environment` over any mcpgym env id,
  served by OpenEnv's own HTTP server;
- `mcpgym.baselines.integrations.cards`: Hugging Face Hub cards for exported task sets and
  trained checkpoints.

Each module imports its third-party package lazily or at its top; none is imported here.
"""
