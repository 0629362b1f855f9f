"""`fc replay`: re-send a step of a trace with edited tool results, as a new trace.

    source.py   which step, and which of its two request files (a hand-edited one wins, said why)
    edits.py    --set / --error / --ok / --edit on the step's tool results, each recorded
    changes.py  what the view shows of the edits (plain data: render imports only this)
    prepare.py  provider, tools, options and the new trace, then the round trip from that step

Nothing here imports at package level, so `fccli.render.replay_view` can import `changes`
without pulling in providers or the engine.
"""
