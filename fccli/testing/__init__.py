"""fc's pytest plugin: an agent tested against traces it recorded (docs/testing.md).

plugin.py   the hooks, options, markers and the `fc_traces` fixture (loaded by every pytest run:
            imports pytest alone at module level)
session.py  what the fixture runs: fc serve playing the traces, or fc proxy recording them
meaning.py  a request read into fc's internal form to be matched, and the report of a mismatch
network.py  the guard: the real providers' hosts refused while a test runs
"""
