"""Agents for Common Cause (random, heuristic, learned)."""
