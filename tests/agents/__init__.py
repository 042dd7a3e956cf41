"""Tests: agents."""
