"""The shape of the package, read from its imports: every import counts (lazy ones inside
functions, and those under `if TYPE_CHECKING:`, which are edges a reader follows too), and
every folder and top-level module is held to the rule its own docstring states ("May import
`a`, `b` and `c`"), read here as data. No folder is exempt and no two folders may import
each other because they sit on one rung: a folder imports only what its rule names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "openclaw_mem"
ROOT = "openclaw_mem"

# "May import `a`, `b` …" up to the end of its clause; "Command modules (…) may import …"
# is the CLI's rule for the modules that only adapt the facade.
RULE_RE = re.compile(
    r"(?P<who>Command modules[^.;]*?)?\b[Mm]ay import(?P<names>.*?)(?:[;:]|\.(?:\s|$))", re.S
)
NAME_RE = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _lazy_api(tree: ast.Module) -> set[str]:
    """The modules the package root names in `_API` (looked up on first use)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_API" for t in node.targets
        ):
            return {f"{ROOT}.{v}" for v in ast.literal_eval(node.value).values()}
    return set()


def _imports() -> dict[str, set[str]]:
    """Every package module -> the package modules it imports, anywhere in its body."""
    graph: dict[str, set[str]] = {}
    modules = _modules()
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = _tree(path)
        found: set[str] = _lazy_api(tree) if name == ROOT else set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    found.add(full if full in modules else target)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _unit(module: str) -> str:
    """A top-level module, or a subpackage as a whole: openclaw_mem.consolidate.run ->
    openclaw_mem.consolidate; the package root is its own unit."""
    return ".".join(module.split(".")[:2])


def _rules_in(docstring: str) -> tuple[set[str] | None, set[str] | None]:
    """(what the module or folder may import, what its command modules may import), as
    full module names; None where the docstring states no such rule."""
    own = commands = None
    for m in RULE_RE.finditer(docstring):
        names = {ROOT if n == ROOT else f"{ROOT}.{n}" for n in NAME_RE.findall(m["names"])}
        if m["who"]:
            commands = names
        else:
            own = names
    return own, commands


def _is_command(module: str) -> bool:
    return module.startswith(f"{ROOT}.cli.") and module.rsplit(".", 1)[1].endswith(
        ("_cmds", "_cmd")
    )


def _rules() -> dict[str, set[str]]:
    """Module or unit -> the modules its stated rule allows. A folder's rule (its
    `__init__`) is its unit's; a top-level module's docstring is its own unit's; a module
    inside a folder may state a narrower rule of its own."""
    rules: dict[str, set[str]] = {}
    commands: set[str] | None = None
    for name, path in _modules().items():
        own, for_commands = _rules_in(ast.get_docstring(_tree(path)) or "")
        if own is not None:
            rules[name] = own
        if for_commands is not None:
            commands = for_commands
    if commands is not None:
        rules.update({m: commands for m in _modules() if _is_command(m)})
    return rules


def _allows(names: set[str], target: str) -> bool:
    """A rule's name allows that module and, unless it is the package root, what is in it."""
    return target in names or any(target.startswith(f"{n}.") for n in names if n != ROOT)


def test_every_folder_and_top_level_module_states_its_rule():
    rules = _rules()
    units = {_unit(m) for m in _modules()}
    assert sorted(units - set(rules)) == []


def test_the_rules_name_only_modules_that_exist():
    modules = set(_modules())
    for who, names in _rules().items():
        assert names <= modules, (who, sorted(names - modules))


def test_the_rules_are_read_as_written():
    rules = _rules()
    # Spot checks of the reader itself: a clause ends at ';', a rule of nothing is empty.
    assert rules[f"{ROOT}.search"] == {f"{ROOT}.text"}
    assert rules[f"{ROOT}.errors"] == set()
    assert f"{ROOT}.recall" not in rules[f"{ROOT}.consolidate"]
    assert rules[f"{ROOT}.cli.log_cmds"] == rules[f"{ROOT}.cli.demo_cmd"]
    assert f"{ROOT}.services" not in rules[f"{ROOT}.cli.log_cmds"]
    assert _allows({ROOT}, ROOT) and not _allows({ROOT}, f"{ROOT}.memory")


def test_every_import_follows_its_stated_rule():
    rules = _rules()
    broken = []
    for module, targets in _imports().items():
        unit = _unit(module)
        for target in targets:
            if _unit(target) != unit and not _allows(rules[unit], target):
                broken.append(f"{module} -> {target} (not in {unit}'s rule)")
            if module != unit and module in rules and not _allows(rules[module], target):
                broken.append(f"{module} -> {target} (not in its own rule)")
    assert broken == []


def test_no_import_cycles_between_modules_or_folders():
    graph = _imports()
    assert _cycles(graph) == []
    units: dict[str, set[str]] = {}
    for module, targets in graph.items():
        units.setdefault(_unit(module), set()).update(
            _unit(t) for t in targets if _unit(t) != _unit(module)
        )
    assert _cycles(units) == []


def test_the_rules_themselves_are_layered():
    """What the rules allow has no circle either: no two folders may import each other, so
    the rules, not only today's imports, keep the package a stack."""
    rules = _rules()
    allowed = {
        unit: {_unit(n) for n in names if _unit(n) != unit}
        for unit, names in rules.items()
        if unit == _unit(unit)
    }
    assert _cycles(allowed) == []


def test_work_starts_detached_through_one_seam():
    """Only services/background.py runs the package as a process (an upward call through
    the command line would be an import no rule sees); git runs the merge driver that
    store/gitdriver.py registers."""
    spawns = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if re.search(r"""["']-m["'],\s*["']openclaw_mem["']""", text):
            spawns.append(name)
    assert spawns == [f"{ROOT}.services.background"]


def test_the_package_root_holds_at_most_ten_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 10, modules
