"""The shape of the package, read from its imports (lazy ones inside functions included):
no cycles, a CLI that only adapts the facade, an MCP server that only adapts the facade."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "openclaw_mem"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_nodes(tree: ast.AST):
    """Every node, but those under `if TYPE_CHECKING:` (imports for annotations only)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _imports() -> dict[str, set[str]]:
    """Every package module -> the package modules it imports at run time, anywhere in its
    body (lazy imports inside functions included)."""
    graph: dict[str, set[str]] = {}
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
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
    openclaw_mem.consolidate."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_import_cycles_between_modules_or_packages():
    graph = _imports()
    assert _cycles(graph) == []
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        packages.setdefault(_unit(module), set()).update(
            _unit(t) for t in targets if _unit(t) != _unit(module)
        )
    assert _cycles(packages) == []


# What a command module may import from the package: the facade, the error types, plain-text
# helpers, and the CLI's own app (state, parsing) and renderer.
CLI_ALLOWED = {
    "openclaw_mem",
    "openclaw_mem.memory",
    "openclaw_mem.serve",
    "openclaw_mem.serve.turns",  # the per-turn commands' one declaration
    "openclaw_mem.serve.fast_output",  # and how they print
    "openclaw_mem.recall.reads",  # the typed request every front end sends
    "openclaw_mem.errors",
    "openclaw_mem.text",
    "openclaw_mem.cli.app",
    "openclaw_mem.cli.render",
    "openclaw_mem.cli.turn_cmds",
}


def test_cli_commands_only_adapt_the_facade():
    graph = _imports()
    commands = [m for m in graph if m.startswith("openclaw_mem.cli.") and m.endswith("_cmds")]
    commands.append("openclaw_mem.cli.demo_cmd")
    assert len(commands) >= 6
    for module in commands:
        assert graph[module] <= CLI_ALLOWED, (module, graph[module] - CLI_ALLOWED)


def test_the_mcp_server_imports_only_the_facade_and_its_types():
    graph = _imports()
    allowed = {"openclaw_mem", "openclaw_mem.memory", "openclaw_mem.errors"}
    assert graph["openclaw_mem.serve.mcp_server"] <= allowed


# The layers, lowest first: a package may import only its own layer's modules (no cycle,
# checked above) and the layers below. docs/library.md's architecture section draws these.
LAYERS = (
    {"errors", "text", "openai_client"},
    {"store"},
    {"safety"},
    {"format"},
    {"search", "embed", "config"},
    {"index", "environment", "funnel"},
    {"recall", "consolidate", "upkeep"},
    {"services"},
    {"memory", ""},  # the facade; "" is the package itself (`from openclaw_mem import Memory`)
    {"serve"},
    {"cli"},
    {"entry", "__main__"},
)


def _layer(unit: str) -> int:
    name = unit.removeprefix("openclaw_mem").removeprefix(".")
    found = [i for i, names in enumerate(LAYERS) if name in names]
    assert found, f"{unit} is in no layer: add it to LAYERS"
    return found[0]


def test_dependencies_point_down_the_layers():
    graph = _imports()
    for module, targets in graph.items():
        for target in targets:
            a, b = _unit(module), _unit(target)
            if a != b:
                assert _layer(a) >= _layer(b), f"{module} ({a}) reaches up to {target}"


def test_the_package_root_holds_at_most_ten_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 10, modules
