"""Secret redaction (placeholder until the transcripts work lands: masks nothing yet)."""


def redact_text(text: str) -> str:
    return text
