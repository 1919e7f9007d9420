"""The core knows no game: no module outside a game's package imports one (statically, at any
depth of the module), a game imports no other game, and a manifest is read without its engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"
GAMES = PACKAGE / "games"
# packages under companion/games/: each game, and the libraries the games share
GAME_PACKAGES = sorted({p.name for p in GAMES.iterdir() if (p / "__init__.py").is_file()} | {"carcassonne"})
LIBRARIES = {"carcassonne"}  # shared by tile games; not a game, and no core module may use it either


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, name: str, is_package: bool) -> set[str]:
    """Every module a source imports, relative imports made absolute."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def game_of(module: str) -> str | None:
    """The game package (or shared library) a module belongs to, if any."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["companion", "games"] and parts[2] in GAME_PACKAGES:
        return parts[2]
    return None


def crossings(path: Path, source: str) -> list[str]:
    """The imports of the module at ``path`` that cross a boundary: a core module importing a
    game (or a games' library), or a game importing another game."""
    name = module_name(path)
    home = game_of(name)
    bad = []
    for target in sorted(imported(source, name, path.name == "__init__.py")):
        other = game_of(target)
        if other is None or other == home:
            continue
        if home is None:
            bad.append(f"{name} (core) imports {target}")
        elif other not in LIBRARIES:
            bad.append(f"{name} ({home}) imports {target} of another game")
    return bad


def test_no_core_module_imports_a_game_and_no_game_another() -> None:
    assert "starwars" in GAME_PACKAGES
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += crossings(path, path.read_text(encoding="utf-8"))
    assert found == []


@pytest.mark.parametrize(
    "where, source",
    [
        ("live/table.py", "from companion.games.starwars.engine import StarWarsGame\n"),
        ("web/pages.py", "def f():\n    import companion.games.starwars.tiles\n"),
        ("games/registry.py", "from companion.games.starwars import manifest\n"),
        ("service/run.py", "from companion.games import starwars\n"),
        ("vision/gallery.py", "from companion.games.carcassonne import board\n"),
    ],
)
def test_the_check_finds_a_core_module_that_imports_a_game(where: str, source: str) -> None:
    assert crossings(PACKAGE / where, source) != []


def test_a_game_may_use_its_own_modules_and_the_shared_library() -> None:
    own = "from companion.games.starwars.board import Board\nfrom . import events\n"
    assert crossings(GAMES / "starwars" / "engine.py", own) == []
    assert crossings(GAMES / "starwars" / "board.py", "from companion.games.carcassonne import x\n") == []


def test_a_manifest_is_read_without_its_engine() -> None:
    code = (
        "import sys\n"
        "from companion.games.registry import manifests\n"
        "names = [m.name for m in manifests()]\n"
        "heavy = sorted(m for m in sys.modules if m.startswith('companion.games.') and "
        "m.rsplit('.', 1)[-1] not in ('manifest', 'base', 'registry', 'fields', 'shared_events') "
        "and m.count('.') > 2)\n"
        "print(names, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]"), out
    assert "'starwars'" in out
