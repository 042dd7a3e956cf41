"""The rummy core every game builds on: cards, meld rules as data, the game protocol, the
seat view, card notation, the observation planes the competitive games share, the pile
rummies' shared state and moves (``pile_rummy``) and copies by declaration (``clone``). Pure
Python and numpy: no gymnasium, pettingzoo or torch."""
