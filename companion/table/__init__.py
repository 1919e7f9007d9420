"""From what the camera sees to record events: the tracker and the links to a game."""
