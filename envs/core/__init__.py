"""The rummy core every game builds on: cards, meld rules as data, the game protocol, the
seat view and card notation. Pure Python: no gymnasium, pettingzoo or torch."""
