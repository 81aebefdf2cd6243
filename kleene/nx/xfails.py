"""The one list of NetworkX tests that cannot pass through the kleene backend, and why.

Keys are ``test_file.py::Class::test_name`` (``test_file.py::test_name`` for a
module-level test, with ``[params]`` where parametrized). ``on_start_tests``
marks them xfail (strict: a test that starts passing must leave this list).

``XFAIL``: tests that fail whatever the fallback (none today).
``XFAIL_WITHOUT_FALLBACK``: tests of arguments kleene declines in ``can_run``. With
NetworkX's fallback off (``tests/test_nx_backend.py`` runs the analytics modules so,
off for the functions kleene claims), NetworkX xfails such a test saying the
function is "not implemented by kleene with the given arguments"; with fallback on,
NetworkX computes those calls and the test passes, so they are marked only when
``nx.config.fallback_to_nx`` is off.
"""

XFAIL: dict[str, str] = {}

XFAIL_WITHOUT_FALLBACK: dict[str, str] = {
    f"test_betweenness_centrality.py::TestWeightedEdgeBetweennessCentrality::{t}": (
        "edge betweenness of a multigraph: NetworkX splits it among the parallel edges"
    )
    for t in ("test_weighted_multigraph", "test_normalized_weighted_multigraph")
}
