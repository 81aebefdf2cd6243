"""The Python examples of README.md and docs/*.md run, and print what their comments say.

Each file's ```python blocks run in order in one namespace (a block may use what an
earlier one defined), in a temporary directory. The expected output of a
``print(...)`` is the comment ending its line with the comment lines right under it,
or, for a top-level statement whose prints carry no comment (a loop printing
several lines), the comment lines right under the statement. It is compared when it
shows output (see :func:`_agrees`): it may add words after the output (``# 126: the
far corner``), put a label before it (``# widest paths: [inf 6.]``), and "..."
stands for any text left out (``# counterexample: x=..., y=...``). Whitespace runs
count as one space. A comment that reads as prose (``# one row per source``) is not
compared. A commented print that never runs (an ``except`` nothing raised) fails,
and so does a warning from kleene.

A block that cannot run here is skipped by a line ``<!-- skip-test: why -->`` just
before its fence; blocks that need a GPU or Dask are found and skipped by
:data:`_NEEDS` (a failure's message lists the blocks skipped and why).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```python\s*$")
_SKIP = re.compile(r"<!--\s*skip-test:\s*(.*?)\s*-->")
# What a block needs that a CPU-only test run does not have: (pattern, reason).
_NEEDS = [
    (re.compile(r"""\.to\(\s*["']gpu["']|device\s*=\s*["']gpu["']|\bcupy\b"""), "needs a GPU"),
    (re.compile(r"\bdask\b|\bClient\(|client\s*="), "needs Dask"),
]
# A comment that shows output starts like output does; anything else is prose.
_OUTPUT_START = re.compile(r"^([\[\(\-\d'\"]|inf\b|nan\b|True\b|False\b|None\b|kleene\.)")


def _blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """(first code line, code, why skipped or None) of each python block of ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            i += 1
            continue
        before = next((x for x in reversed(lines[:i]) if x.strip()), "")
        marked = _SKIP.search(before)
        start, i = i + 1, i + 1
        while i < len(lines) and not lines[i].startswith("```"):
            i += 1
        code = "\n".join(lines[start:i]) + "\n"
        why = marked.group(1) if marked else None
        if why is None:
            why = next((reason for pat, reason in _NEEDS if pat.search(code)), None)
        blocks.append((start + 1, code, why))
        i += 1
    return blocks


def _expected(code: str, tree: ast.Module) -> dict[int, tuple[str, list[ast.Call]]]:
    """What the block says its prints print: line -> (comment text, the prints it covers).

    A print whose line ends in a comment is covered by that comment and the comment
    lines right under it. A top-level statement followed at once by comment lines
    (a loop printing several lines, the output under the print) has them cover its
    prints that carry no comment of their own, in the order they run."""
    lines = code.splitlines()
    trailing = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT and lines[tok.start[0] - 1][: tok.start[1]].strip():
            trailing[tok.start[0]] = tok.string[1:].strip()

    def under(line: int) -> list[str]:  # the comment-only lines after ``line``
        got = []
        while line < len(lines) and lines[line].strip().startswith("#"):
            got.append(lines[line].strip()[1:].strip())
            line += 1
        return got

    def prints(node: ast.AST) -> list[ast.Call]:
        return [
            n
            for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
        ]

    found: dict[int, tuple[str, list[ast.Call]]] = {}
    for call in prints(tree):
        if call.end_lineno in trailing:
            text = "\n".join([trailing[call.end_lineno], *under(call.end_lineno)])
            found[call.end_lineno] = (text, [call])
    for stmt in tree.body:
        calls = [c for c in prints(stmt) if c.end_lineno not in trailing]
        below = under(stmt.end_lineno)
        if calls and below and stmt.end_lineno not in found:
            found[stmt.end_lineno] = ("\n".join(below), calls)
    return found


def _norm(text: str) -> str:
    return " ".join(text.split())


def _agrees(printed: str, comment: str, is_error: bool) -> bool | None:
    """True/False: the comment shows this output or other output; None: it is prose."""
    out, said = _norm(printed), _norm(comment)
    if said.startswith(out) and (len(said) == len(out) or not said[len(out)].isalnum()):
        return True  # the output, then (maybe) words about it
    if said.endswith(": " + out) or said.endswith(" " + out) and out[:1] in "[(":
        return True  # a label, then the output
    if "..." in said:  # parts left out: what is shown must agree, in order
        pattern = ".*".join(re.escape(part) for part in said.split("..."))
        if re.fullmatch(pattern, out, re.S):
            return True
    if is_error or _OUTPUT_START.match(said):
        return False
    return None


def _run_file(path: Path, tmp_path: Path, monkeypatch) -> tuple[list[str], list[str]]:
    """Run the file's blocks: (its problems, the blocks skipped and why)."""
    monkeypatch.chdir(tmp_path)
    rel = path.relative_to(ROOT)
    problems, skipped = [], []
    namespace: dict = {"__name__": "__doc_example__"}
    for first, code, why in _blocks(path):
        if why is not None:
            skipped.append(f"{rel}:{first}: {why}")
            continue
        tree = ast.parse(code)
        expected = _expected(code, tree)
        for key, (_, calls) in expected.items():
            for call in calls:  # print(...) -> __doc_print__(key, ...)
                call.func = ast.Name("__doc_print__", ast.Load())
                call.args.insert(0, ast.Constant(key))
        ast.fix_missing_locations(tree)
        printed: dict[int, list[str]] = {}
        errors: set[int] = set()

        def doc_print(key, *args, _out=printed, _err=errors, **kwargs):
            buf = io.StringIO()
            print(*args, **{**kwargs, "file": buf})
            _out.setdefault(key, []).append(buf.getvalue())
            if any(isinstance(a, BaseException) for a in args):
                _err.add(key)

        namespace["__doc_print__"] = doc_print
        try:
            with warnings.catch_warnings():  # kleene should not warn in an example
                warnings.filterwarnings("error", module=r"kleene|__doc_example__")
                exec(compile(tree, f"{rel}:{first}", "exec"), namespace)  # noqa: S102
        except Exception as e:  # noqa: BLE001 - reported with where it happened
            problems.append(f"{rel}:{first}: the block raised {type(e).__name__}: {e}")
            continue
        for key, (said, _) in sorted(expected.items()):
            where = f"{rel}:{first + key - 1}"
            if key not in printed:
                problems.append(f"{where}: never printed (# {said})")
                continue
            out = "".join(printed[key])
            if _agrees(out, said, key in errors) is False:
                problems.append(f"{where}: printed {out.strip()!r}, the comment says {said!r}")
    return problems, skipped


@pytest.fixture
def quick_law_checks():
    """The examples' property checks on few examples: here they show that the examples
    run and print what they say (the checks themselves are tested in depth elsewhere).
    A failure is still shrunk: the docs show the smallest counterexample."""
    from kleene import testing

    checks = (testing.check_semiring, testing.check_monoid, testing.check_backend)
    saved = [(fn, dict(fn.__kwdefaults__)) for fn in checks]
    for fn, defaults in saved:
        fn.__kwdefaults__["max_examples"] = min(defaults["max_examples"], 25)
    yield
    for fn, defaults in saved:
        fn.__kwdefaults__.update(defaults)


@pytest.mark.usefixtures("quick_law_checks")
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_doc_examples_print_what_they_say(path, tmp_path, monkeypatch):
    problems, skipped = _run_file(path, tmp_path, monkeypatch)
    assert not problems, "\n".join(problems + [f"(skipped {s})" for s in skipped])


def test_agrees_rules():
    assert _agrees("[0. 3. 1.]\n", "[0. 3.  1.]", False)
    assert _agrees("126\n", "126: the far corner of a 64x64 grid", False)
    assert _agrees("[inf  6.]\n", "widest paths: [inf  6.]", False)
    assert _agrees("[]\n", "[]  (nothing leaves 5)", False)
    assert _agrees("closure: semiring x has a bad add; it fails\n", "closure: semiring x ...", True)
    said = "x fails\n  counterexample: a=..., b=...\n  left: ..."
    assert _agrees("x fails\n counterexample: a=1, b=2\n left: 3\n", said, True)
    assert _agrees("x fails; counterexample: a=1, b=2\n left: 3\n", said, True) is False
    assert _agrees("144 480\n", "144 600: the build of D, ..., all 600 units", False) is False
    assert _agrees("apsp: a negative cycle\n", "sssp: a negative cycle", True) is False
    assert _agrees("[[0. 1.]\n [1. 0.]]\n", "one row per source", False) is None
    assert _agrees("2\n", "20", False) is False  # a prefix of a number is not the number


def test_blocks_skip_marked_and_gpu_blocks(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(
        "text\n\n```python\nprint(1)  # 1\n```\n\n<!-- skip-test: reads a file we lack -->\n"
        '```python\nopen("x")\n```\n\n```python\nA = A.to("gpu")\n```\n'
    )
    blocks = _blocks(md)
    assert [(first, why) for first, _, why in blocks] == [
        (4, None),
        (9, "reads a file we lack"),
        (13, "needs a GPU"),
    ]
    assert blocks[0][1] == "print(1)  # 1\n"
