"""The classic mistakes the demo model can be told to make (`fc run --demo-fault KIND`).

A module of its own, with no imports, so that `fc run --help` can list them cheaply.
"""

DEMO_FAULTS = ("bad-json", "missing-arg", "wrong-type", "unknown-tool", "no-call", "cut-stream")

FAULT_HELP = {
    "bad-json": "the first call's arguments are cut off mid-string: not JSON",
    "missing-arg": "the first call leaves the required argument out: {}",
    "wrong-type": 'one call with the values in an array where the schema asks for a string: {"city": ["杭州"]}',
    "unknown-tool": "every call names a tool that is not offered (get_current_weather)",
    "no-call": "no call at all: a made-up weather report, and a stop as if it were the answer",
    "cut-stream": "the connection drops while the call's arguments stream in (needs --stream)",
}
"""What each kind does. All but no-call are answered with an error result the model reads; it
corrects itself in the next step. For no-call, `fc check` on the trace raises FC119."""
