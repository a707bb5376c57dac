"""The reference GRPO trainer: policy, multi-turn rollouts, objective, SFT warm start, small local models."""
