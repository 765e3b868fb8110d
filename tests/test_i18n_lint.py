"""No literal user-facing string in the terminal clients' code (``thousand`` and ``thousand-bot``): every
text a person reads comes from the catalogues (clients/i18n; issue #29). A string constant that reads as words
(two words or more, or one capitalised word with a space or a colon) fails, except docstrings and the places
that are not text: CSS, Rich styles, key names, assertion messages and a caller's mistakes (TypeError), what a
player types (command words)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = sorted(  # the ``thousand`` and ``thousand-bot`` commands (learning.py: the environments' API)
    [
        *(ROOT / "clients" / "cli").glob("*.py"),
        *(p for p in (ROOT / "clients" / "bots").glob("*.py") if p.name != "learning.py"),
        ROOT / "clients" / "ladder.py",
        ROOT / "clients" / "connection.py",
        ROOT / "clients" / "errors.py",
        ROOT / "clients" / "fairness.py",
    ]
)
WORDS = re.compile(r"[^\W\d_]{2,}[:,.!?]*\s+[^\W\d_]{2,}")
"""Two words in a row: prose."""
STYLE = re.compile(r"^(?:(?:not )?(?:bold|dim|italic|red|green|yellow|magenta|reverse|underline)\s*)+$")
NOT_TEXT_KEYWORDS = frozenset({"style", "justify", "group", "id", "dest", "metavar", "choices"})
NOT_TEXT_CALLS = frozenset(
    {"query_one", "compile", "match", "search", "fullmatch", "getLogger", "run_worker"}
)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function, or after an
    assignment: the attribute docstrings this project writes)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.add(id(statement.value))
    return found


def exempt(tree: ast.AST) -> set[int]:
    """String constants in places that are not text a person reads."""
    out: set[int] = set()
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assert) and node.msg is not None:
            targets.append(node.msg)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            if isinstance(func, ast.Name) and func.id in {
                "AssertionError",
                "NotImplementedError",
                "TypeError",
            }:
                targets.extend(node.exc.args)
        if isinstance(node, ast.keyword) and node.arg in NOT_TEXT_KEYWORDS:
            targets.append(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in NOT_TEXT_CALLS:
                targets.extend(node.args)
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            targets.append(node.left)  # a word looked for in another program's text (gRPC's errors)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            if isinstance(func, ast.Name) and func.id == "KeyError":
                targets.extend(node.exc.args)  # a lookup by a name argparse already checked
        if isinstance(node, ast.Assign | ast.AnnAssign):
            names = [t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(t, ast.Name)]  # fmt: skip
            if any(n.endswith("CSS") for n in names):
                targets.append(node.value)  # type: ignore[arg-type]
        for target in targets:
            out |= {id(c) for c in ast.walk(target) if isinstance(c, ast.Constant)}
    return out


def literal_texts(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree) | exempt(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in skip:
            continue
        text = node.value
        if STYLE.match(text.strip()):
            continue
        if WORDS.search(text):
            found.append((node.lineno, text))
    return found


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_user_facing_literal_outside_the_catalogues(path: Path) -> None:
    found = literal_texts(path)
    assert not found, "\n".join(f"{path.name}:{line}: {text!r}" for line, text in found)


def test_the_lint_finds_a_literal_and_passes_what_is_not_text(tmp_path: Path) -> None:
    module = tmp_path / "screen.py"
    module.write_text(
        '"""A module docstring with words."""\n'
        "def f(show, t) -> None:\n"
        '    """A docstring."""\n'
        '    show("Your turn now", style="bold red")\n'
        '    show(t("cli.your_turn"), style="bold yellow")\n'
        '    assert show, "a message for developers"\n'
        '    if "connection refused" in show: pass\n',
        encoding="utf-8",
    )
    assert [text for _, text in literal_texts(module)] == ["Your turn now"]
