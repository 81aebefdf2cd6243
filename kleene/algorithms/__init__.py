"""Path algorithms written as compositions of kleene operations."""

from .all_pairs import apsp
from .breadth_first import bfs
from .paths import reconstruct_path
from .single_source import sssp
from .transitive import transitive_closure

__all__ = ["apsp", "bfs", "reconstruct_path", "sssp", "transitive_closure"]
