"""`fc convert`: a request, response or messages array translated into another format, with
what the target cannot hold said path by path (translate.py)."""
