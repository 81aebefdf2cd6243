"""Seeded, vectorised graph generators (on the GPU when asked).

Each returns a ``kleene.Matrix`` except ``rmat``, which returns the raw edge
arrays (src, dst) as Graph500 defines them. ``from_spec`` turns a command-line
spec such as ``rmat:20``, ``grid:512x512`` or ``road:1024x1024`` into a graph.
"""

from .dense import erdos_renyi
from .geometric import geometric_graph
from .grid import grid_graph, road_graph
from .harish import random_graph, scale_free_graph
from .rmat import rmat
from .spec import SPECS, from_spec, is_spec

__all__ = [
    "SPECS",
    "erdos_renyi",
    "from_spec",
    "geometric_graph",
    "grid_graph",
    "is_spec",
    "random_graph",
    "rmat",
    "road_graph",
    "scale_free_graph",
]
