"""AWS for a provider that lives there (Bedrock): its region, and requests signed with SigV4.

A Bedrock API key (`$AWS_BEARER_TOKEN_BEDROCK`) goes as a bearer token like any key. Without
one, the request is signed with the usual AWS credentials (environment, ~/.aws, a role) by
botocore, the AWS SDK's own signer (the `fccli[bedrock]` extra), never by hand. botocore is
imported only when a request is signed: `fc --help` and every other provider never load it.
"""

from __future__ import annotations

import os
from typing import Any

from fccli.core.errors import UsageError
from fccli.i18n import Msg

DEFAULT_REGION = "us-east-1"
AUTH = "aws"
"""A profile's `auth` for AWS: its key as a bearer token when set, else SigV4."""
REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")


def region() -> str:
    """Return the region asked in the environment, as the AWS SDKs read it; else us-east-1."""
    for name in REGION_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return DEFAULT_REGION


def with_region(url: str, where: str | None = None) -> str:
    """Return a base URL with `{region}` filled in: `where`, else the environment's."""
    return url.replace("{region}", where or region())


class Signer:
    """Signs each request with SigV4 (botocore's SigV4Auth): service `service`, region `where`."""

    def __init__(self, service: str, where: str) -> None:
        try:
            import botocore.session
        except ImportError:
            raise UsageError(
                Msg("signing a request for AWS needs botocore, which is not installed"),
                hint=Msg(
                    "pip install 'fccli[bedrock]', or set $AWS_BEARER_TOKEN_BEDROCK to a "
                    "Bedrock API key"
                ),
            ) from None
        found = botocore.session.Session().get_credentials()
        if found is None:
            raise UsageError(
                Msg("no AWS credentials found to sign the request with"),
                hint=Msg(
                    "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or "
                    "set $AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key"
                ),
            )
        self.credentials = found.get_frozen_credentials()
        self.service = service
        self.region = where

    def secrets(self) -> list[str]:
        """Return what no trace or message may hold: the secret key and the session token."""
        frozen = self.credentials
        return [s for s in (frozen.secret_key, frozen.token) if s]

    def sign(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        """Return `headers` with the signature's (authorization, x-amz-date, the token)."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
        SigV4Auth(self.credentials, self.service, self.region).add_auth(request)
        signed: dict[str, Any] = dict(request.headers.items())
        return {k.lower(): str(v) for k, v in signed.items()}


def curl_signing(service: str, where: str) -> list[str]:
    """Return the curl options that sign a request as fc does, the credentials as variables
    bash expands (curl's own SigV4, `--aws-sigv4`)."""
    parts = [
        f'--aws-sigv4 "aws:amz:{where}:{service}"',
        '--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"',
    ]
    if os.environ.get("AWS_SESSION_TOKEN"):
        parts.append('-H "x-amz-security-token: $AWS_SESSION_TOKEN"')
    return parts
