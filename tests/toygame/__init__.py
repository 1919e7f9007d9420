"""A toy game registered only by the tests: it shows a game is served end to end by its package
alone. Players take turns throwing one die; the throw adds to their score, but a 1 scores
nothing and a 6 lets the same player throw again. The first to 10 wins."""
