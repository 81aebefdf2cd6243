"""Path algorithms written as compositions of kleene operations."""

from .all_pairs import apsp, transitive_closure
from .breadth_first import bfs
from .paths import reconstruct_path
from .single_source import sssp

__all__ = ["apsp", "bfs", "reconstruct_path", "sssp", "transitive_closure"]
