"""The typer layer: one module per command, each parsing options, calling one function of a
subsystem and handing its result to render.

    entry.py          the `fc` console script: the one place an FcError becomes an exit code
    app.py            the typer app, built for the command being run; the list read from the
                      modules that declare HELP and RANK
    help_format.py    --lang, and help pages and click's usage errors in the chosen language
    limits.py, otlp.py, watch.py, ask.py   options and steps fc run and fc replay share
    every other module: one command, named as its module (`fc diff` is diff.py)
"""
