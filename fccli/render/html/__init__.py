"""`fc show TRACE --html`: the trace as one self-contained page.

    markup.py    the only way to write HTML here: every string escaped
    jsonview.py  a JSON file pretty-printed, the fields the page talks about in spans
    files.py     a step's four files side by side, linked field by field (fc diff's mapping)
    places.py    colours of call ids, anchors, where results went back, where findings point
    steps.py     a section per step: request, response, thinking, calls and their results
    page.py      head, header, banners, timeline, footer; page.css and page.js inlined

The data comes from fccli.render.html.trace_page (files, mappings, findings, a replay's edits).
"""
