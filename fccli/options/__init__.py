"""The options of `fc run` and `fc replay`, each declared once (declared.py); what the command
line, the settings, the manifest and a replay make of them is derived from there."""
