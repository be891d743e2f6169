"""Agents that train against rewardgym environments: baselines, LLM policies, offline RL."""
