"""The one list of NetworkX tests that cannot pass through the kleene backend, and why.

Keys are ``test_file.py::Class::test_name`` (``test_file.py::test_name`` for a
module-level test, with ``[params]`` where parametrized). ``on_start_tests``
marks them xfail (strict: a test that starts passing must leave this list).
"""

XFAIL: dict[str, str] = {}
