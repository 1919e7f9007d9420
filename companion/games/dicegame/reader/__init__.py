"""The Dice Game's table reader: dice enrolled from photographs, trays read as record events."""
