"""Tests: games."""
