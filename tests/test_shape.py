"""The house's shape, beside the import rules of test_structure.py (issue 44): small
functions and modules, and provider names written in one place, so a provider registered
by a third party is one the settings, the CLI and the library all accept."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "openclaw_mem"
LONGEST_FUNCTION = 80  # lines, from `def` to its last line
LONGEST_MODULE = 900


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE.parent).as_posix(), path.read_text(encoding="utf-8")


def test_no_function_is_over_80_lines_from_def_to_its_end():
    long = [
        f"{rel}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for rel, text in _sources()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION
    ]
    assert long == []


def test_no_module_is_over_900_lines():
    long = [
        f"{rel} ({n} lines)"
        for rel, text in _sources()
        if (n := len(text.splitlines())) > LONGEST_MODULE
    ]
    assert long == []


PROVIDER_NAMES = {"auto", "none", "local", "openai", "offline"}


def test_provider_names_are_listed_only_by_the_registry():
    """A literal that lists two provider names or more is a second list to keep in step
    (a registered provider would be refused by it): only providers/__init__.py has one."""
    lists = []
    for rel, text in _sources():
        if rel == "openclaw_mem/providers/__init__.py":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                words = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if len(words & PROVIDER_NAMES) >= 2:
                    lists.append(f"{rel}:{node.lineno} {sorted(words & PROVIDER_NAMES)}")
    assert lists == []


def test_a_registered_consolidation_provider_is_a_setting_and_a_flag(ws, monkeypatch):
    from openclaw_mem import providers as registry
    from openclaw_mem.config import load_config
    from openclaw_mem.consolidate import providers
    from openclaw_mem.consolidate.providers.offline import OfflineProvider

    monkeypatch.setattr(registry, "_NAMES", {k: list(v) for k, v in registry._NAMES.items()})
    monkeypatch.setattr(providers, "_FACTORIES", dict(providers._FACTORIES))
    made = []

    class Scripted(OfflineProvider):
        pass

    def factory(settings, env):
        made.append(settings["model"])
        return Scripted()

    providers.register("scripted", factory)
    config = load_config(None, {"MEM_CONSOLIDATE_PROVIDER": "scripted"})
    assert config["consolidate.provider"] == "scripted" and not config.warnings
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I moved to Porto last month")
    ws("consolidate", "--provider", "scripted", "--now", "2026-11-30T12:00")
    monkeypatch.setenv("MEM_CONSOLIDATE_PROVIDER", "scripted")
    ws("consolidate", "--now", "2026-11-30T12:00")
    assert made == ["gpt-4o-mini", "gpt-4o-mini"]


def test_the_library_takes_every_request_field_the_front_ends_send():
    """Memory.recall and Memory.context take each field of a read request (recall/reads.py)
    their op uses, and each option `mem recall`/`mem context` declares (serve/turns.py) that
    is such a field: a field added there cannot miss the library. They list none of their
    own: their keywords are the request's (Read.ask), so each is tried by calling."""
    import inspect

    from openclaw_mem.memory import Memory
    from openclaw_mem.recall.reads import _FIELDS, Read, fields_of
    from openclaw_mem.serve.turns import TURNS

    context_only, get_only = {"budget", "all_recent"}, {"spec"}
    wanted = {
        "recall": set(_FIELDS) - context_only - get_only - {"query"} | {"current"},
        "context": set(_FIELDS) - get_only - {"query"} | {"current"},
    }
    samples = {"k": 3, "budget": 300, "min_score": 0.1, "now": "2026-11-28T09:00:00"}
    for op, fields in wanted.items():
        declared = {o.dest for o in TURNS[op].options if o.dest in _FIELDS or o.dest == "current"}
        assert fields | declared <= set(fields_of(op)), (op, sorted(fields | declared))
        kinds = {p.kind for p in inspect.signature(getattr(Memory, op)).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD in kinds  # the request's fields, not a list
        for name in fields | declared:
            flag = _FIELDS.get(name) == (bool,) or name == "current"
            value = (
                True
                if flag
                else samples.get(name, "2026-11-20" if name in ("since", "until", "as_of") else "x")
            )
            assert getattr(Read.ask(op, query="q", **{name: value}), name) == value


def test_a_library_recall_can_show_what_forget_hid(memory):
    from datetime import datetime

    memory.log("My salary is 50k a year", role="user", at=datetime(2026, 11, 24, 9, 0))
    memory.forget("salary")
    hidden = memory.recall("salary", now=datetime(2026, 11, 25))
    shown = memory.recall("salary", now=datetime(2026, 11, 25), include_forgotten=True)
    assert not any("50k" in h.snippet for h in hidden.hits)
    assert any("50k" in h.snippet for h in shown.hits)
