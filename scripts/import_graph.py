"""Print the import graph of the fade package and fail on any cycle.

Every `import` and `from ... import` in fade/ counts, at module level and
inside functions alike (a lazy import is still a dependency), read with ast
so nothing is executed. An edge A -> B means module A imports module B
(`from fade import x` counts as an import of fade.x where x is a module,
else of the package fade itself).
Exits 1 and prints each cycle where there is one, else 0.

    python scripts/import_graph.py [PACKAGE_DIR]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_names(package: Path) -> dict[str, Path]:
    """Dotted name -> file of every module in the package."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package's modules that module `name` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from a import b`: the module a.b where there is one, else a
            # (b is a name defined in a).
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # a.b.c of a module a.b: a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph(package: Path) -> dict[str, set[str]]:
    names = module_names(package)
    return {name: imports_of(name, path, set(names)) for name, path in names.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each
    a cycle or several sharing modules."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(edges.get(node, ())):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def main(argv: list[str]) -> int:
    package = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "fade"
    edges = graph(package)
    for name in sorted(edges):
        print(f"{name} -> {', '.join(sorted(edges[name])) or '(nothing in the package)'}")
    found = cycles(edges)
    for group in found:
        print(f"cycle: {' <-> '.join(group)}", file=sys.stderr)
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports, "
          f"{len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
