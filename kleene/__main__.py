"""Command line: ``python -m kleene {demo,info,bfs,sssp,apsp,closure}`` (also ``kleene``).

Exit status: 0 success; 1 a demo check disagrees with SciPy; 2 an error, reported
as one line ``kleene <command>: <message>`` on stderr (bad arguments, a bad or
missing file, a graph too large, a negative cycle, out of memory, ...);
130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _expected_errors() -> tuple[type[BaseException], ...]:
    """What a user can cause: reported as one line, never a traceback.

    kleene's own errors (every ``KleeneError``: a bad argument, a malformed graph
    file, a graph too large, a negative cycle, no GPU) and the operating system's
    (``OSError``: a missing or unreadable file). argparse reports its own mistakes
    and exits with status 2 by itself. Anything else, a bare ``ValueError`` or
    ``TypeError`` included, is a bug in kleene and keeps its traceback for the report.
    """
    from .errors import KleeneError

    return (KleeneError, OSError)


def build_parser() -> argparse.ArgumentParser:
    from . import demo

    parser = argparse.ArgumentParser(
        prog="kleene",
        description="kleene: GraphBLAS-style semiring linear algebra for path problems "
        "(CPU via NumPy/SciPy, GPU via CuPy).",
        epilog="Exit status: 0 success, 1 a demo check failed, 2 an error (one line on "
        "stderr), 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", metavar="command")
    p_demo = sub.add_parser(
        "demo",
        help="solve SSSP, widest paths and BFS on a built-in road-like graph and check "
        "the answers against SciPy",
        description=(demo.__doc__ or "").strip().splitlines()[0],
    )
    demo.add_arguments(p_demo)
    sub.add_parser("info", help="versions of kleene, NumPy, SciPy, CuPy; is a GPU visible")
    from . import cli

    cli.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring).

    >>> main(["sssp", "grid:3x3", "--source", "abc"])
    2
    """
    command = None
    try:
        parser = build_parser()
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
        command = args.command
        return _dispatch(parser, args)
    except KeyboardInterrupt:
        _report("kleene: interrupted")
        return EXIT_INTERRUPTED
    except _expected_errors() as e:
        text = describe(e)
        if command and text.startswith(f"{command}: "):
            text = text[len(command) + 2 :]  # "kleene apsp: apsp: ..." says it twice
        _report(f"kleene{' ' + command if command else ''}: {text}")
        return EXIT_ERROR


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "info":
        from ._info import info_lines

        print("\n".join(info_lines()))
        return 0
    if args.command in ("bfs", "sssp", "apsp", "closure"):
        from . import cli

        return cli.run(args)
    from . import demo

    return demo.main(args)


def describe(e: BaseException) -> str:
    """An exception as one line that names the problem.

    >>> describe(FileNotFoundError(2, "No such file or directory", "g.mtx"))
    'g.mtx: No such file or directory'
    >>> describe(MemoryError())
    'out of memory'
    """
    if isinstance(e, OSError) and e.strerror:
        text = f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    else:
        text = str(e)
    if not text:
        text = "out of memory" if isinstance(e, MemoryError) else type(e).__name__
    return " ".join(text.split())  # one line, whatever the message held


def _report(line: str) -> None:
    """One line on stderr (a progress bar cut short has already ended its line)."""
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
