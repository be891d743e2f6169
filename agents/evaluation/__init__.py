"""Evaluation of agents in the simulators: Household SR / CGC / Plan and shopper next-step metrics."""
