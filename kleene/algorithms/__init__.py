"""Path algorithms written as compositions of kleene operations."""

from .bfs import bfs
from .sssp import sssp

__all__ = ["bfs", "sssp"]
