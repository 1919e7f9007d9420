"""The Star Wars table reader: what the camera and the trays see -> record events, or prompts."""
