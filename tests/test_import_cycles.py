"""No import cycles among olkit's modules and packages (imports at module level or inside functions).

Every module of ``src/olkit`` is parsed with :mod:`ast`; each ``import olkit.x`` / ``from .x import y``
(relative imports resolved), at any depth of the module, is an edge to the imported module.
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg`` (its
``__init__``). Importing a submodule also runs its package's ``__init__``; that is not counted, or a
package that imports its own submodules would always be "in a cycle". ``olkit/__init__.py`` imports its
public names with ``importlib`` on first use; those dynamic imports are not seen. Imports inside an
``if TYPE_CHECKING:`` block are not edges either: they never run (a type checker reads them, to name in an
annotation a class of a module that imports this one, e.g. ``evaluate_online``'s learner).

The check runs at every level of the package tree: inside package P, every module of P's subtree is
replaced by the child of P that holds it (a module of P, or a subpackage with everything below it), and
the graph among P's children must have no cycle. A cycle among modules shows up at the level of its
modules' deepest common package; a cycle between two subpackages (``kernel`` imports ``linear`` and
``linear`` imports ``kernel``) shows up even when no single chain of modules closes it.

Cycles that must remain for a while can be listed in :data:`CYCLES_ALLOWED_FOR_NOW` (with the reason);
``test_allowed_cycles_still_exist`` says when an entry is no longer needed. The three cycles of issue 7
are gone: registry <-> learners (the learners import :mod:`olkit.spec`, the registry's lookup imports the
learners), kernel <-> linear (only kernel imports linear: the SCW learners live in kernel/scw.py, their
primal step in linear/scw.py) and runner <-> tuning (both import experiment/orders.py).
"""

import ast
from pathlib import Path

import olkit

PACKAGE_DIR = Path(olkit.__file__).resolve().parent

CYCLES_ALLOWED_FOR_NOW = {}
"""{the children of one package that form a cycle: why it is still there}."""


def module_name(path):
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules():
    return {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def import_edges(name, path, modules):
    """The olkit modules that ``name`` imports anywhere in its source."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    type_checking_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }
    edges = set()
    for node in ast.walk(tree):
        if id(node) in type_checking_only:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:  # "import olkit.a.b" imports olkit.a.b
                    target = target.rpartition(".")[0]
                if target:
                    edges.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[: -(node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "olkit":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    edges.add(sub)
                elif base in modules:
                    edges.add(base)
    edges.discard(name)
    return edges


def import_graph():
    modules = all_modules()
    return {name: import_edges(name, path, modules) for name, path in modules.items()}


def strongly_connected(graph):
    """Tarjan's algorithm: the strongly connected components with more than one module."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def package_levels(graph):
    """{package: (graph among its children, {(child, child): the module imports behind that edge})};
    each child stands for its whole subtree, the package's own ``__init__`` is a node named after it."""
    packages = {m for m in graph if (PACKAGE_DIR.parent / m.replace(".", "/") / "__init__.py").exists()}
    levels = {}
    for package in packages:
        prefix = package + "."

        def child(module, package=package, prefix=prefix):
            if module == package:
                return package
            if module.startswith(prefix):
                return prefix + module[len(prefix) :].split(".")[0]
            return None

        level, because = {}, {}
        for module, targets in graph.items():
            src = child(module)
            if src is None:
                continue
            level.setdefault(src, set())
            for target in targets:
                dst = child(target)
                if dst is not None and dst != src:
                    level[src].add(dst)
                    because.setdefault((src, dst), []).append(f"{module} imports {target}")
        levels[package] = (level, because)
    return levels


def found_cycles(graph):
    """[(package, children in one cycle)] over every level of the package tree."""
    return [
        (package, frozenset(comp))
        for package, (level, _) in sorted(package_levels(graph).items())
        for comp in strongly_connected(level)
    ]


def report(graph):
    levels = package_levels(graph)
    lines = []
    for package, comp in found_cycles(graph):
        level, because = levels[package]
        allowed = "allowed for now" if comp in CYCLES_ALLOWED_FOR_NOW else "NOT ALLOWED"
        lines.append(f"in {package}: {' <-> '.join(sorted(comp))} ({allowed})")
        for src in sorted(comp):
            for dst in sorted(level[src] & comp):
                lines.append(f"    {src} -> {dst}: {'; '.join(sorted(because[src, dst]))}")
    return lines


def test_graph_sees_known_imports():
    graph = import_graph()
    assert "olkit.experiment.orders" in graph["olkit.experiment.runner"]
    assert "olkit.spec" in graph["olkit.learners.kernel.pa"]  # from ...spec import register
    assert "olkit.learners" in graph["olkit.registry"]  # inside a function: from . import learners
    assert "olkit.experiment.tuning" in graph["olkit.experiment.runner"]  # inside a function
    assert "olkit.learners.linear.base" in graph["olkit.learners.kernel.base"]  # from ..linear.base import


def test_runner_and_tuning_do_not_import_each_other():
    graph = import_graph()
    assert "olkit.experiment.runner" not in graph["olkit.experiment.tuning"]


def test_no_import_cycles():
    graph = import_graph()
    print("\n".join(["import cycles found:"] + report(graph)))
    new = [
        f"in {package}: {' <-> '.join(sorted(comp))}"
        for package, comp in found_cycles(graph)
        if comp not in CYCLES_ALLOWED_FOR_NOW
    ]
    assert not new, "import cycles among olkit modules:\n" + "\n".join(report(graph))


def test_allowed_cycles_still_exist():
    """Every entry of CYCLES_ALLOWED_FOR_NOW is still a cycle (remove the entries whose cycle is gone)."""
    found = {comp for _, comp in found_cycles(import_graph())}
    gone = [" <-> ".join(sorted(c)) for c in CYCLES_ALLOWED_FOR_NOW if c not in found]
    assert not gone, f"these cycles are gone: remove them from CYCLES_ALLOWED_FOR_NOW: {gone}"
