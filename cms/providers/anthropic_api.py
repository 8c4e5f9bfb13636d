"""The `anthropic` provider: one Messages API call through the official SDK (imported only here).

Credentials come from ANTHROPIC_API_KEY, or ANTHROPIC_AUTH_TOKEN with ANTHROPIC_BASE_URL. Every
failure (HTTP error, timeout, connection, SDK error) becomes a one-line ProviderError. It never
logs and never records usage; providers/model_calls.py does both.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

import anthropic

from cms.config import ProviderConfig
from cms.errors import ProviderError
from cms.providers.base import Completion


def _one_line(text: object, limit: int = 240) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _error_message(body: object) -> str:
    """The API's error message from an error body (the SDK passes the inner "error" object)."""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if body.get("message"):
            return str(body["message"])
    return ""


class AnthropicProvider:
    """Calls the Messages API (streaming, so a trickling answer is cut at the deadline)."""

    name = "anthropic"

    def __init__(self, config: ProviderConfig, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self._timeout = config.timeout_seconds
        self._retries = config.max_retries
        api_key = env.get("ANTHROPIC_API_KEY") or None
        auth_token = env.get("ANTHROPIC_AUTH_TOKEN") or None
        self._missing = ""
        self._client: anthropic.Anthropic | None = None
        if not api_key and not auth_token:
            self._missing = (
                "anthropic provider needs ANTHROPIC_API_KEY, or ANTHROPIC_AUTH_TOKEN with"
                " ANTHROPIC_BASE_URL"
            )
            return
        try:
            self._client = anthropic.Anthropic(
                api_key=api_key,
                auth_token=auth_token,
                base_url=env.get("ANTHROPIC_BASE_URL") or None,
                timeout=self._timeout,
                max_retries=self._retries,
            )
        except Exception as exc:  # noqa: BLE001 - the SDK validates its arguments here
            self._missing = f"cannot set up the anthropic client: {_one_line(exc)}"

    def complete(self, *, system: str, prompt: str, model: str, max_tokens: int) -> Completion:
        if self._client is None:
            raise ProviderError(self._missing)
        # Each read is bounded by the timeout; the whole call by the timeout per attempt.
        limit = self._timeout * (self._retries + 1)
        deadline = time.monotonic() + limit
        try:
            with self._client.messages.stream(
                model=model,
                max_tokens=max_tokens,
                system=system,
                messages=[{"role": "user", "content": prompt}],
            ) as stream:
                for _event in stream:
                    if time.monotonic() > deadline:
                        raise ProviderError(f"anthropic API answer took longer than {limit:g}s")
                message = stream.get_final_message()
        except ProviderError:
            raise
        except anthropic.APITimeoutError:
            raise ProviderError(
                f"anthropic API timed out after {self._timeout:g}s"
                f" ({self._retries} retr{'y' if self._retries == 1 else 'ies'})"
            ) from None
        except anthropic.APIStatusError as exc:
            detail = _error_message(exc.body)
            raise ProviderError(
                f"anthropic API HTTP {exc.status_code}: {_one_line(detail or exc.message)}"
            ) from None
        except anthropic.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ProviderError(f"cannot reach the anthropic API: {_one_line(cause)}") from None
        except Exception as exc:  # noqa: BLE001 - mid-stream errors are not SDK-wrapped
            raise ProviderError(
                f"anthropic API call failed: {type(exc).__name__}: {_one_line(exc)}"
            ) from None
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        input_tokens = (
            usage.input_tokens
            + (usage.cache_creation_input_tokens or 0)
            + (usage.cache_read_input_tokens or 0)
        )
        return Completion(
            text=text,
            input_tokens=input_tokens,
            output_tokens=usage.output_tokens,
            model=message.model or model,
        )
