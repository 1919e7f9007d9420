"""The code that makes and evaluates the models: data, training, export to ONNX, figures.

Never imported at run time (torch is a training dependency only); run from the repository root,
e.g. ``python -m models.training.evaluate``. The files it writes are the run-time ones beside
this folder, one folder per game (``models/starwars/``) and ``models/dice/`` for ordinary dice.
"""
