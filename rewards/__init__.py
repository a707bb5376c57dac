"""Programmatic, judge-free rewards: components in [0, 1] and their composition.

    from mcpgym.rewards import Rewarder
    env = gym.make("mcp/zendesk-v0", reward="dense")      # or "outcome-only", "process-only"

See docs/rewards.md for the formulas, the presets and the measurements behind them.
"""

from mcpgym.rewards.compose import PRESETS, RewardBreakdown, RewardConfig, Rewarder, score

__all__ = ["PRESETS", "RewardBreakdown", "RewardConfig", "Rewarder", "score"]
