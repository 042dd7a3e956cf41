"""Game environments: rules engines and their PettingZoo adapters."""
