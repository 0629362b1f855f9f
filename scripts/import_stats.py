"""Print the share of fccli's import statements that sit inside functions, overall and per package.

Usage: python scripts/import_stats.py [ROOT]   (ROOT: fccli/ by default)

An import inside a function is deferred to start-up's benefit (tests/commands/test_startup.py
holds what must stay deferred); every other import counts as top level, those under
`if TYPE_CHECKING:` too. A statement counts once, however many names it imports.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def count(path: Path) -> tuple[int, int]:
    """Return (imports inside functions, all imports) of one module."""
    inside = total = 0

    def visit(node: ast.AST, in_function: bool) -> None:
        nonlocal inside, total
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            total += 1
            inside += in_function
        for child in ast.iter_child_nodes(node):
            visit(child, in_function or isinstance(node, FUNCTIONS))

    visit(ast.parse(path.read_bytes(), str(path)), False)
    return inside, total


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent / "fccli")
    inside: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        package = parts[0] if len(parts) > 1 else "(top)"
        i, t = count(path)
        inside[package] += i
        total[package] += t
    width = max(map(len, total))
    print(f"{'package':<{width}}  inside  total  share")
    for package in sorted(total, key=lambda p: (-inside[p], p)):
        share = inside[package] / total[package] if total[package] else 0.0
        print(f"{package:<{width}}  {inside[package]:6}  {total[package]:5}  {share:5.1%}")
    all_inside, all_total = sum(inside.values()), sum(total.values())
    print(f"{'all':<{width}}  {all_inside:6}  {all_total:5}  {all_inside / all_total:5.1%}")


if __name__ == "__main__":
    main()
