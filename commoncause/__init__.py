"""Common Cause command-line tools."""
