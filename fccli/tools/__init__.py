"""Tools: a registry, argument validation, execution into results, built-in sets, user files."""
