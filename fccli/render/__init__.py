"""What fc prints: Rich on the terminal, HTML for `fc show --html`. Takes core objects, trace
readers, engine events and the differ's and checker's results; never imports a wire format's
package, a provider or the transport.

    console.py         the one Console: colour and live display only on a terminal
    transcript.py      a trace or one file as a transcript a person reads
    show_view.py       what `fc show` does with its target: transcript, wire files, JSON, page
    run_view.py        `fc run` live, step by step; stream_view.py the fragments of a stream
    replay_view.py     what `fc replay` adds around the run view
    diff_view.py, check_view.py, providers_view.py, proxy_view.py   one command's output each
    html/              the self-contained page of `fc show --html`
"""
