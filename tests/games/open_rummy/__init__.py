"""Tests: games/open_rummy."""
