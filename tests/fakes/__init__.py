"""Reusable fakes for tests: a scripted Anthropic Messages API server on 127.0.0.1."""
