"""A real provider over HTTP: a profile, a base URL, a key from the environment, a transport."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fccli.core.body import Body

from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from fccli.providers.aws import Signer
from fccli.providers.base import ProviderInfo, Reply
from fccli.providers.profiles import Profile
from fccli.providers.transport import HttpFailure, Transport, as_provider_error
from fccli.providers.urls import endpoint, shown_url


@dataclass
class HttpProvider:
    profile: Profile
    base_url: str
    transport: Transport
    strict: bool = False
    key: str | None = field(default=None, repr=False)
    """The key's value: kept out of repr, never written, masked if a server echoes it."""
    model: str | None = None
    """The model asked, for a provider that names it in the URL (Gemini); None: its default."""
    signer: Signer | None = field(default=None, repr=False)
    """Signs each request (SigV4 for AWS, without a key); None: the key's header says who."""

    @property
    def info(self) -> ProviderInfo:
        p = self.profile
        return ProviderInfo(
            p.name, p.wire_format, p.default_model, shown_url(self.base_url), p.key_env
        )

    @property
    def url(self) -> str:
        return self.endpoint_url(stream=False)

    def endpoint_url(self, *, stream: bool) -> str:
        """Return where the body goes; with the model (and the stream) in the path where the profile
        says so (Gemini: `/v1beta/models/{model}:streamGenerateContent?alt=sse`)."""
        p = self.profile
        path = p.stream_path if stream and p.stream_path else p.path
        if p.model_in_url:
            path = path.replace("{model}", quote(self.model or p.default_model, safe=""))
        query = ""
        if "?" in path:
            path, query = path.split("?", 1)
        url = endpoint(self.base_url, path)
        if query:
            url += ("&" if "?" in url else "?") + query
        return url

    def headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "application/json"}
        headers.update(self.profile.extra_headers)
        if self.strict:
            headers.update(self.profile.strict_headers)
        if self.key is not None and self.profile.auth in ("bearer", "aws"):
            headers["authorization"] = f"Bearer {self.key}"
        elif self.key is not None and self.profile.auth in ("x-api-key", "x-goog-api-key"):
            headers[self.profile.auth] = self.key
        return headers

    def mask(self, text: str) -> str:
        return self.transport.mask(text)

    def send(self, body: Body, *, step: int) -> Reply:
        return self._post(body, step, self.headers(), None)

    def send_stream(self, body: Body, *, step: int, on_bytes: Callable[[bytes], None]) -> Reply:
        headers = self.headers()
        headers["accept"] = self.stream_accept()
        return self._post(body, step, headers, on_bytes)

    def stream_accept(self) -> str:
        """Return the content type a stream comes in (NDJSON for Ollama's own API, AWS's event
        stream for Bedrock)."""
        from fccli.wire.registry import get_format

        return get_format(self.profile.wire_format).stream_media_type

    def _post(
        self,
        body: Body,
        step: int,
        headers: dict[str, str],
        on_bytes: Callable[[bytes], None] | None,
    ) -> Reply:
        url = self.endpoint_url(stream=on_bytes is not None)
        if self.signer is not None:
            headers = self.signer.sign(url, bytes(body), headers)
        outcome = self.transport.post(url, body, headers, on_bytes=on_bytes)
        if isinstance(outcome, HttpFailure):
            raise as_provider_error(
                outcome,
                provider=self.profile.name,
                step=step,
                key_env=self.profile.key_env,
                url=shown_url(url),
            )
        stored = outcome.stored
        if on_bytes is not None and self.transport.secrets:
            from fccli.wire.registry import get_format

            own = get_format(self.profile.wire_format).mask_stream(
                outcome.body, self.transport.secrets
            )
            if own is not None:  # a stream framed its own way: masked by its format
                stored = own if own != outcome.body else None
        return Reply(outcome.body, outcome.attempts, stored, outcome.cut, outcome.interrupted)

    def close(self) -> None:
        self.transport.close()
