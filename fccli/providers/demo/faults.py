"""The classic mistakes the demo model can be told to make (`fc run --demo-fault KIND`).

A module of its own, with no imports, so that `fc run --help` can list them cheaply.
"""

DEMO_FAULTS = ("bad-json", "missing-arg", "wrong-type", "unknown-tool", "no-call", "cut-stream")
