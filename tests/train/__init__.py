"""Tests: train."""
