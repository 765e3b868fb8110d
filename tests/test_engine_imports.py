"""The engine stands alone: it imports no project package but itself, and its modules import one way. Above
it, imports run one way too: the codec (the engine <-> protobuf mapping) imports only the engine and the
generated ``thousand`` package, and the bot strategies (``bots``) only the engine, so server and clients can
share both, and the clients never import the server.

Read from the sources, every import statement counted (inside functions and ``if TYPE_CHECKING:`` blocks
too), so a cycle cannot hide behind an import deferred to call time.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
PROJECT = ("engine", "codec", "bots", "server", "clients", "thousand", "tests", "bench", "scripts", "deploy")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (a ``from package import name`` counts the package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            if node.module is not None:
                found.add(node.module)
    return found


def engine_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in ENGINE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for target in imports(path):
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def test_the_engine_imports_no_other_project_package() -> None:
    for path in ENGINE.rglob("*.py"):
        foreign = {m for m in imports(path) if m.split(".")[0] in PROJECT and m.split(".")[0] != "engine"}
        assert not foreign, f"{path.relative_to(ROOT)} imports {sorted(foreign)}"


def test_engine_modules_import_one_way() -> None:
    """No cycle among the engine's modules (a package's ``__init__`` re-exporting its modules aside)."""
    graph = engine_graph()
    packages = {name for name in graph if (ROOT / name.replace(".", "/") / "__init__.py").exists()}
    state: dict[str, int] = {}  # 1 on the path being walked, 2 done

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name] - packages):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError(f"import cycle: {' -> '.join(cycle)}")
            if target not in state:
                walk(target, [*path, target])
        state[name] = 2

    for name in sorted(graph.keys() - packages):
        if name not in state:
            walk(name, [name])


def foreign_imports(package: str, allowed: set[str]) -> dict[str, list[str]]:
    """Each module of ``package`` that imports a project package outside ``allowed``, with those imports."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        foreign = sorted(m for m in imports(path) if m.split(".")[0] in set(PROJECT) - allowed)
        if foreign:
            found[str(path.relative_to(ROOT))] = foreign
    return found


def test_the_codec_imports_only_the_engine_and_the_generated_package() -> None:
    assert foreign_imports("codec", {"codec", "engine", "thousand"}) == {}


def test_the_bots_import_only_the_engine() -> None:
    """The server seats the strategies and the clients run them: neither may be below them."""
    assert foreign_imports("bots", {"bots", "engine"}) == {}


def test_the_clients_never_import_the_server() -> None:
    assert foreign_imports("clients", {"clients", "codec", "bots", "engine", "thousand"}) == {}
