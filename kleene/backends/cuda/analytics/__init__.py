"""CUDA kernels behind the graph analytics (``kleene.algorithms.analytics``).

One module per algorithm family, each reached like every other primitive: listed in
``kleene.backends.cuda._HOME`` as ``"analytics.<module>"`` and looked up by the
algorithm through ``backend(xp)``, with a composed twin of kleene operations where
the back end has no compiled form.
"""
