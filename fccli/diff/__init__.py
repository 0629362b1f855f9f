"""`fc diff`: two documents in, diff objects out; never prints (render/diff_view.py does).

paths.py       a JSON path as segments, written `$.a[0].b`, and the value it leads to
structural.py  every added, removed and changed value of two documents, by path, in words
mapping.py     an internal document mapped onto its wire form, element by element
compare.py     which comparison two documents call for, and its result (DiffResult)
"""
