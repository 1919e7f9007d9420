"""The simulated table: random legal games now; rendered camera frames later."""
