"""Training code for Common Cause agents."""
