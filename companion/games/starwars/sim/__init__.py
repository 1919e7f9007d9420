"""The simulated Star Wars table: random legal games, the mat with hands and meeples, its frames."""
