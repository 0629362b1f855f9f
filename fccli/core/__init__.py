"""The internal format (content blocks) and the error tree. No I/O beyond reading a JSON file."""
