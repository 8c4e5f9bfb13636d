"""What every model provider offers: one completion call that returns text and token usage.

Providers raise ProviderError (never anything else) on network errors, timeouts, HTTP errors
or unusable answers. The offline `local` provider is not a ModelProvider: it builds ops in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    model: str


class ModelProvider(Protocol):
    name: str

    def complete(self, *, system: str, prompt: str, model: str, max_tokens: int) -> Completion:
        """One model call; raises ProviderError on any failure."""
        ...
