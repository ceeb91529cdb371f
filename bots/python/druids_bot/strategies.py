"""Strategies by name, for the ``druids-bot`` command.

Built in: ``random`` (uniform among the legal actions) and ``first`` (the first
legal action: deterministic). Any other name is loaded from a file or module:
``path/to/bot.py`` or ``path/to/bot.py:function``, ``package.module`` or
``package.module:function`` (the function defaults to ``choose``), e.g. the
examples: ``--strategy examples/heuristic_bot.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
from pathlib import Path

from ._pb import druids_pb2 as pb
from .seat import Choice, Chooser


def choose_random(legal_actions: list[pb.LegalAction], state: pb.StateView) -> Choice:
    """Uniformly among the legal actions (seed it with ``random.seed``)."""
    return random.choice(legal_actions)


def choose_first(legal_actions: list[pb.LegalAction], state: pb.StateView) -> Choice:
    """The first legal action."""
    return legal_actions[0]


#: The built-in strategies.
BUILTIN: dict[str, Chooser] = {"random": choose_random, "first": choose_first}


def load_strategy(spec: str) -> Chooser:
    """The strategy named ``spec`` (see the module's docstring).

    Raises ValueError when it cannot be found.
    """
    if spec in BUILTIN:
        return BUILTIN[spec]
    target, _, function = spec.partition(":")
    function = function or "choose"
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"no strategy file {target}")
        module_spec = importlib.util.spec_from_file_location(f"druids_strategy_{path.stem}", path)
        if module_spec is None or module_spec.loader is None:
            raise ValueError(f"cannot load {target}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as e:
            raise ValueError(
                f"unknown strategy {spec!r}: {', '.join(BUILTIN)}, FILE.py[:function] or module[:function] ({e})"
            ) from None
    chooser = getattr(module, function, None)
    if not callable(chooser):
        raise ValueError(f"{target} has no function {function}()")
    return chooser  # type: ignore[no-any-return]
