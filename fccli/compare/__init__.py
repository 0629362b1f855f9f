"""`fc compare`: two traces (or two step files) side by side; never prints (render/compare_view.py
and render/html/compare_page.py do).

facts.py       what one step did, read from a trace's step or a step file: model, format, tools,
               question, results handed back, stop reason, calls, text, tokens, time
sides.py       the two things compared, read: traces or files, a replay's original found
fields.py      two steps' facts compared field by field (arguments by JSON path, as fc diff does)
comparison.py  the steps aligned and compared, the first divergence named (Comparison)
"""
