"""Graph file I/O and conversions: Matrix Market, DIMACS/PACE ``.gr``, SNAP, CSV, networkx.

``read`` gives a square CSR adjacency ``kleene.Matrix`` (entry (u, v) is the
weight of edge u→v); ``write`` stores one. The format comes from the extension
(``.mtx``, ``.gr``, ``.txt``/``.edges``/``.el``/``.tsv``, ``.csv``) or ``format=``;
``.gz``, ``.xz`` and ``.bz2`` are handled by the suffix (``graph.mtx.gz``).
Vertex ids are 0-based in kleene: the 1-based formats (Matrix Market, DIMACS,
PACE) are shifted on read and write. PACE graphs are undirected and are stored
in both directions.

Example
-------
>>> import kleene, kleene.io, tempfile, os
>>> A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], [4, 5, 6])
>>> path = os.path.join(tempfile.mkdtemp(), "triangle.gr.xz")
>>> kleene.io.write(path, A)
>>> open(path, "rb").read(6) == b"\\xfd7zXZ\\x00"
True
>>> kleene.io.read(path).isequal(A)
True
"""

from kleene.core import interop

from ._api import FORMATS, read, write
from ._table import GraphFileError

from_graphblas = interop.from_graphblas
from_networkx = interop.from_networkx
from_scipy = interop.from_scipy
networkx_arcs = interop.networkx_arcs
to_graphblas = interop.to_graphblas
to_networkx = interop.to_networkx
to_scipy = interop.to_scipy

__all__ = [
    "FORMATS",
    "GraphFileError",
    "from_graphblas",
    "from_networkx",
    "from_scipy",
    "networkx_arcs",
    "read",
    "to_graphblas",
    "to_networkx",
    "to_scipy",
    "write",
]
