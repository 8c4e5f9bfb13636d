"""Model providers: the Anthropic API, the `claude` CLI, and the offline `local` extractor."""
