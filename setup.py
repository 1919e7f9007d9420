"""Packaging beside pyproject.toml, for one thing it cannot say: the top-level models/ folder is
installed as the package ``companion_models`` (its model files, one folder per game), found with
every ``companion*`` package, also in an editable install. models/training/ is not installed."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["companion", "companion.*"]), "companion_models"],
    package_dir={"companion_models": "models"},
)
