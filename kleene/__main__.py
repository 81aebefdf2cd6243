"""Command line: ``python -m kleene {demo,info,bfs,sssp,apsp,closure}`` (also ``kleene``)."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    from . import demo

    parser = argparse.ArgumentParser(
        prog="kleene",
        description="kleene: GraphBLAS-style semiring linear algebra for path problems "
        "(CPU via NumPy/SciPy, GPU via CuPy).",
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
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
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


if __name__ == "__main__":
    sys.exit(main())
