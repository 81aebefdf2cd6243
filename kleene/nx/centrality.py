"""Betweenness centrality with NetworkX's semantics (``nx.betweenness_centrality``).

Computed by ``kleene.betweenness_centrality`` (Brandes' algorithm over batches of
sources as ``plus_times`` products, LAGraph's design), rescaled as NetworkX
rescales. ``k`` sampled sources are NetworkX's: ``seed.sample(list(G), k)`` picks
positions, and vertex ``i`` is node ``G.nodes[i]``, so kleene samples the same ones
from the same generator (NetworkX's ``py_random_state`` has already turned ``seed``
into a ``random.Random`` when the call reaches a backend).
"""

from __future__ import annotations

import kleene

from ._engine import host

__all__ = ["betweenness_centrality"]


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """{node: betweenness}, shortest paths by edge count (``weight=None``)."""
    if weight is not None:  # can_run declines it: kleene's betweenness counts edges
        raise NotImplementedError("kleene: weighted betweenness centrality is not supported")
    if len(G) == 0:
        return {}
    if k is not None and not 0 < k <= len(G):
        # NetworkX's own errors: random.sample refuses k > n or k < 0, and its
        # rescaling divides by k = 0 (kleene itself calls every k < 1 an InvalidValue)
        if k == 0:
            raise ZeroDivisionError("betweenness_centrality: k = 0 sources")
        raise ValueError("Sample larger than population or is negative")
    bc = kleene.betweenness_centrality(
        G.matrix(None),
        k=k,
        normalized=normalized,
        endpoints=endpoints,
        seed=seed,
        directed=G.directed,
    )
    return dict(zip(G.nodes, host(bc).tolist(), strict=True))
