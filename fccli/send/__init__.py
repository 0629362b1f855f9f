"""`fc send` and `fc curl`: a wire-format request file sent as it is.

post.py    reading the file, choosing the provider, posting its bytes through the transport
curl.py    the curl command that sends the same bytes, the key as "$ENV_VAR"
output.py  where the response body goes: stdout (bytes, or escaped on a terminal) or a file
"""
