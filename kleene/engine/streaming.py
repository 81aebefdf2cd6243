"""Host-resident tiles streamed through the GPU: the op layer's handle on the CUDA back
end's tile streamer (``cuda/tile_stream.py``), for closures whose result lives in host
memory (out-of-core APSP, ``kleene.algorithms.apsp_out_of_core``)."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import backend, cupy_module
from kleene.errors import DeviceUnavailable


def _cuda():
    cp = cupy_module()
    if cp is None:
        raise DeviceUnavailable("streaming tiles through a GPU needs CuPy and a visible GPU")
    return backend(cp)


def tile_stream(sr, dtype, tile: int, preds: bool, host):
    """A ``TileStream`` over host arrays ``host`` = (D, P or None): tiles of ``tile``
    rows and columns copied to the GPU, closed/multiplied there and copied back on
    their own streams (see ``kleene/backends/cuda/tile_stream.py``)."""
    return _cuda().TileStream(sr, dtype, tile, preds, host)


def pinned_empty(shape, dtype) -> np.ndarray | None:
    """An uninitialised page-locked host array (direct DMA to and from the GPU), or None
    where the pages cannot be locked."""
    return _cuda().pinned_empty(shape, dtype)


__all__ = ["pinned_empty", "tile_stream"]
