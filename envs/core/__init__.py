"""The rummy core every game builds on: cards, meld rules as data, the game protocol, the
seat view, card notation and the observation planes the competitive games share. Pure
Python and numpy: no gymnasium, pettingzoo or torch."""
