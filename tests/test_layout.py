"""The packages' shape: imports run one way, modules and functions stay small.

scripts/import_graph.py reads every import in fade/ and in cli/ (module
level and inside functions) and fails on a cycle; this test runs it, and
checks that no module of either grows past MAX_MODULE_LINES and no function
past MAX_FUNCTION_LINES, with each exception listed here with its reason.
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fade"
COMMAND_LINE = ROOT / "cli"  # the command line, installed inside the package

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100
# Modules allowed to be longer, and why.
LONG_MODULES: dict[str, str] = {}
# Functions allowed to be longer, and why (numba kernels are exempt: a
# compiled kernel is one loop the compiler sees whole, split only at a cost).
LONG_FUNCTIONS: dict[str, str] = {}


def _is_numba_kernel(function: ast.FunctionDef) -> bool:
    return any(any(word in ast.unparse(decorator) for word in ("nb.", "numba", "njit", "jit"))
               for decorator in function.decorator_list)


def _modules() -> list[Path]:
    """Every module of fade/ and cli/."""
    return [*PACKAGE.rglob("*.py"), *COMMAND_LINE.rglob("*.py")]


def test_imports_have_no_cycles():
    for package, named in ((PACKAGE, ("fade.single -> ", "fade.frames -> ")),
                           (COMMAND_LINE, ("cli.main -> ", "cli.report -> "))):
        result = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py"),
                                 str(package)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "0 cycles" in result.stdout
        # The graph names the modules it read, so a script that read nothing fails.
        assert all(name in result.stdout for name in named), result.stdout


def test_import_graph_finds_a_cycle(tmp_path):
    """The check can fail: two modules importing each other, one of them
    inside a function, make a cycle."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    from pkg.a import g\n")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py"),
                             str(package)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "cycle: pkg.a <-> pkg.b" in result.stderr


def test_modules_stay_small():
    long = {str(path.relative_to(ROOT)): count for path in _modules()
            if (count := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert set(long) <= set(LONG_MODULES), long


def test_functions_stay_small():
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    not _is_numba_kernel(node):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert set(long) <= set(LONG_FUNCTIONS), long
