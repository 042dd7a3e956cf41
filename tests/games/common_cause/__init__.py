"""Tests: games/common_cause."""
