"""`fc curl FILE`: the curl command that posts a wire-format request file to its provider, so
that it runs as printed in bash, with the key as `"$DEEPSEEK_API_KEY"` (bash expands it inside
double quotes), never the key itself."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit

from fccli.core.errors import UsageError
from fccli.i18n import Msg
from fccli.providers.aws import AUTH as AWS
from fccli.providers.aws import curl_signing, region
from fccli.providers.http import HttpProvider
from fccli.providers.profiles import profile_for
from fccli.providers.registry import resolve_base_url
from fccli.providers.urls import shown_url
from fccli.send.post import RequestFile, api_for, model_swap

if TYPE_CHECKING:
    from fccli.providers.transport import Transport


@dataclass
class CurlCommand:
    text: str
    notes: list[str] = field(default_factory=list)
    """For stderr: what the command needs that it cannot say (a key variable not set)."""


def curl_command(file: RequestFile, name: str, base_url: str | None) -> CurlCommand:
    if name == "demo":
        raise UsageError(
            Msg("the demo model is built into fc: there is no address for curl to post to"),
            hint=Msg("fc send {file} -p demo posts it offline", file=file.name),
        )
    api = api_for(file, name)
    profile = profile_for(name, api)
    url = resolve_base_url(name, base_url, strict=file.strict, api=api)
    if urlsplit(url).password is not None:
        raise UsageError(
            Msg("the base URL carries a password, and fc curl never prints a secret"),
            hint=Msg("remove user:password@ from the URL and give curl -u yourself"),
        )
    if shown_url(url) != url:
        raise UsageError(
            Msg(
                "the base URL carries a key in its query string ({url}), and fc curl "
                "never prints a secret",
                url=shown_url(url),
            ),
            hint=Msg("remove it from the URL and add it to the printed command yourself"),
        )
    variable = f"${profile.key_env}" if profile.key_env else None
    # AWS without its key variable: curl signs the request itself, from the credentials' variables.
    signing = (
        curl_signing(profile.signing_name, region())
        if profile.auth == AWS and not os.environ.get(profile.key_env or "", "").strip()
        else []
    )
    if signing:
        variable = None
    # The provider's own headers, built by the code that sends them, with the variable's name
    # where the key goes: what curl sends is what fc sends. headers() never uses the transport.
    provider = HttpProvider(
        profile, url, cast("Transport", None), strict=file.strict, key=variable, model=file.model
    )
    headers = provider.headers()
    if file.stream:
        headers["accept"] = provider.stream_accept()  # as HttpProvider.send_stream asks
    swap = model_swap(file, name)
    target = provider.endpoint_url(stream=file.stream)
    parts = [f"curl {'-N ' if file.stream else ''}{shlex.quote(target)}", *signing]
    for header, value in headers.items():
        if variable is not None and variable in value:
            # Double quotes, so bash puts the key in; the rest of the header is plain.
            parts.append(f'-H "{header}: {value}"')
        else:
            parts.append(f"-H {shlex.quote(f'{header}: {value}')}")
    notes = []
    if swap is None:
        # --data-binary: the file's bytes exactly (-d would strip its line breaks).
        parts.append(f"--data-binary {shlex.quote('@' + file.name)}")
    else:
        # A demo trace's file: sed changes the model's name, the one place fc changes (the
        # pattern is plain text: quotes, letters, spaces, a colon, a hyphen), curl reads stdin.
        parts.append("--data-binary @-")
        sed = f"s/{swap.matched.decode()}/{swap.replacement.decode()}/"
        parts[0] = f"sed {shlex.quote(sed)} {shlex.quote(file.name)} |\n{parts[0]}"
        notes.append(swap.note(file.name, name))
    if signing and "%" in urlsplit(target).path:
        notes.append(
            Msg(
                "curl's --aws-sigv4 signs the path as written ({path}), where AWS encodes it once "
                "more before signing: with the model's `:` the signature may not hold; the bearer "
                "form (${variable} set) always does",
                path=urlsplit(target).path,
                variable=profile.key_env,
            )
        )
    if profile.key_env and not os.environ.get(profile.key_env, "").strip() and not signing:
        notes.append(
            Msg(
                "${variable} is not set in this shell: export it before running this",
                variable=profile.key_env,
            )
        )
    return CurlCommand(" \\\n  ".join(parts), notes)
