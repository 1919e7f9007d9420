"""Star Wars tile art drawn by the simulator, in four families of styles (docs/vision.md)."""
