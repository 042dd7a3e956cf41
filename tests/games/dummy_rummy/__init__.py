"""Tests: games/dummy_rummy."""
