"""A bot author's own strategy, named where a strategy's name goes: ``path/to/mybot.py:MyBot`` (a file of
theirs, not installed anywhere) or ``package.module:MyBot`` (an importable module).

The class is made with the seat's :class:`~bots.strategy.StrategyOptions` if its constructor takes
an argument, else with none. It needs ``choose`` (Thousand: ``choose(view, rng)``; 1000 Blagogo:
``choose(view, actions, rng)``); ``observe(view)`` and ``name`` are optional (the class's name then names
it). Anything wrong (no such file, a syntax error in it, no such class, no ``choose``) is a
:class:`BotLoadError` that says which.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from bots.strategy import StrategyOptions


class BotLoadError(Exception):
    """The bot named cannot be loaded; the message says why."""


def is_bot_spec(name: str) -> bool:
    """Whether a strategy's name is a class to load (``file.py:Class`` or ``module:Class``)."""
    return ":" in name


def load_bot(spec: str, options: StrategyOptions) -> Any:
    """The strategy object of ``spec`` for one seat."""
    where, _, class_name = spec.rpartition(":")
    if not where or not class_name.isidentifier():
        raise BotLoadError(f"{spec!r}: name a bot as path/to/file.py:ClassName or module:ClassName")
    module = _module(where)
    cls: Any = getattr(module, class_name, None)
    if not inspect.isclass(cls):
        found = sorted(n for n, v in vars(module).items() if inspect.isclass(v) and hasattr(v, "choose"))
        hint = f" (classes with choose there: {', '.join(found)})" if found else ""
        raise BotLoadError(f"{where} has no class {class_name}{hint}")
    if not callable(getattr(cls, "choose", None)):
        raise BotLoadError(f"{class_name} of {where} has no choose method: a bot decides with choose()")
    try:
        takes_options = len(inspect.signature(cls).parameters) > 0
    except (TypeError, ValueError):
        takes_options = False
    factory: Any = cls  # any class with choose(): the author's
    bot = factory(options) if takes_options else factory()
    if not hasattr(bot, "name"):
        bot.name = class_name
    if not hasattr(bot, "observe"):
        bot.observe = lambda view: None
    return bot


def _module(where: str) -> ModuleType:
    path = Path(where)
    if where.endswith(".py") or path.exists():
        if not path.is_file():
            raise BotLoadError(f"no bot file {where}")
        name = f"thousand_bot_{abs(hash(path.resolve()))}"
        found = importlib.util.spec_from_file_location(name, path)
        if found is None or found.loader is None:
            raise BotLoadError(f"{where} is not a Python file")
        module = importlib.util.module_from_spec(found)
        sys.path.insert(0, str(path.resolve().parent))  # the bot's own modules beside it import too
        try:
            found.loader.exec_module(module)
        except Exception as error:
            raise BotLoadError(f"{where} failed to load: {type(error).__name__}: {error}") from error
        finally:
            sys.path.pop(0)
        return module
    try:
        return importlib.import_module(where)
    except ImportError as error:
        raise BotLoadError(f"no module {where}: {error}") from error
