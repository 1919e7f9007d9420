"""Data files bundled with the package (the demo record)."""
