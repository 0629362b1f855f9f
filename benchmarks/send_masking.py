"""What masking a key costs `fc send` on a stream: CPU seconds to pass N chat events through
`fccli.send.post.StreamMasker`, one event a piece, as a network read may deliver them.

Usage: python benchmarks/send_masking.py [--events N]

Three streams, each a text then N tool-call argument fragments (chat-completions SSE):

  (a) the text ends as no secret begins: every event goes out as it comes;
  (b) the text ends with `s`, as the key `sk-...` begins: the events wait (16 KB at most,
      then the stream is masked whole at its end);
  (c) (a) with no key to mask: the pieces go out as they are, the floor.
"""

from __future__ import annotations

import argparse
import time

from fccli.core.secrets import Secrets
from fccli.send.post import StreamMasker
from fccli.wire.registry import FORMATS

KEY = "sk-recognisable-SECRET-0123456789"


def events(text: str, count: int) -> list[bytes]:
    head = f'data: {{"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}\n\n'
    call = 'data: {{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":"{}x"}}}}]}}}}]}}\n\n'
    return [head.encode(), *(call.format(i).encode() for i in range(count))]


def cpu(pieces: list[bytes], keys: list[str]) -> float:
    out: list[bytes] = []
    masker = StreamMasker(Secrets(keys), FORMATS["openai"], out.append)
    start = time.process_time()
    for piece in pieces:
        masker.feed(piece)
    masker.close()
    spent = time.process_time() - start
    assert b"".join(out) == b"".join(pieces)  # no key in them: nothing changes
    return spent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=5000)
    n = parser.parse_args().events
    size = sum(map(len, events("done.", n)))
    print(f"{n:,} events, {size:,} bytes")
    print(f"(a) no secret begins   {cpu(events('done.', n), [KEY]):.3f} s")
    print(f"(b) `s` ends the text  {cpu(events('it is', n), [KEY]):.3f} s")
    print(f"(c) no key             {cpu(events('done.', n), []):.3f} s")


if __name__ == "__main__":
    main()
