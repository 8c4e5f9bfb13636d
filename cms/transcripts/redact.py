"""Secret redaction: every text bound for a model, a map, the store or the log passes through here.

Replaces provider keys, tokens, private keys, URL and command-line passwords (`curl -u user:pw`,
`mysql -ppw`, `docker login -p pw`), Azure SAS signatures, secret-named assignments, prose such as
"my password is pw" and high-entropy strings with `[REDACTED:<kind>]`, and removes
`<private>...</private>` spans. It is idempotent and never raises on str input. Standard library
only; what a secret looks like (word lists, patterns compiled on first use) is redact_rules.py's,
so importing this module on the hook fast path costs next to nothing.
"""

from __future__ import annotations

import math

from cms.transcripts.redact_rules import (
    ASSIGN_HINTS,
    AUTH_SCHEMES,
    CANDIDATE_MIN,
    COMMAND_HINTS,
    CREDENTIAL_IDS,
    ID_PREFIXES,
    MARK,
    META_WORDS,
    PROSE_SUFFIXES,
    PROSE_WORDS,
    SECRET_PAIRS,
    SECRET_WORDS,
    TOKEN_RULES,
    RedactRules,
    get_rules,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


def _marker(kind: str) -> str:
    return f"{MARK}{kind}]"


def _shannon(text: str) -> float:
    from collections import Counter  # only for a long token: off the hook path

    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _wordiness(rules: RedactRules, text: str) -> float:
    """Share of the characters that sit in word-like runs (Abc, abcd): high for identifiers."""
    return sum(len(m) for m in rules.wordy.findall(text)) / max(len(text), 1)


def looks_random(token: str) -> bool:
    """True for a string that reads like a generated secret rather than a word, path, id or hash.
    A path is judged by its segments: one long random segment is enough."""
    rules = get_rules()
    core = token.rstrip("=")
    if "/" not in core:
        return _random_core(rules, core)
    segments = core.split("/")
    if any(len(s) >= 20 and _random_core(rules, s) for s in segments):
        return True
    if core.startswith("/") or "" in segments:
        return False
    wordy = sum(1 for s in segments if rules.path_segment.match(s) or _wordiness(rules, s) > 0.6)
    return wordy * 2 < len(segments) and _random_core(rules, core)


def _random_core(rules: RedactRules, core: str) -> bool:
    if len(core) < 20 or core.startswith(ID_PREFIXES) or rules.prefixed_id.match(core):
        return False
    if rules.hexish.match(core):  # commit SHAs, UUIDs, content hashes
        return False
    prefixed = rules.prefixed_hex.match(core)
    if prefixed:  # a token family's prefix on a hex body (dop_v1_...), unless it names content
        return not rules.content_label.match(prefixed.group("prefix"))
    parts = rules.separators.split(core)
    if len(parts) >= 3 and all(
        len(p) <= 5 or rules.hexish.match(p) or _wordiness(rules, p) > 0.6 for p in parts
    ):
        return False  # structured names such as rollout-2026-05-11T11-26-55-<uuid>
    has_upper = any(ch.isupper() for ch in core)
    has_lower = any(ch.islower() for ch in core)
    if not any(ch.isdigit() for ch in core) or not (has_upper or has_lower):
        return False
    if not (has_upper and has_lower) and len(core) < 32:
        return False
    if _wordiness(rules, core) > 0.6:
        return False
    return _shannon(core) >= min(math.log2(len(core)) - 0.75, 4.2)


def secret_name(name: str) -> bool:
    """True when an assignment's name says its value is a secret (DB_PASSWORD, apiKey, ...)."""
    words = [w.lower() for w in get_rules().name_words.findall(name)]
    if not words or words in (["pwd"], ["old", "pwd"], ["oldpwd"]):
        return False  # the shell's working directory
    last_hit = -1
    for i, word in enumerate(words):
        pair = i + 1 < len(words) and (word, words[i + 1]) in SECRET_PAIRS
        if pair:
            last_hit = i + 1
        elif (
            word in SECRET_WORDS
            or any(k in word for k in ("password", "passwd", "secret", "apikey"))
            or (word.endswith("token") and len(word) > 5)
        ):
            last_hit = i
    if last_hit < 0:
        return False
    return not (last_hit < len(words) - 1 and words[-1] in META_WORDS)


def _secret_value(rules: RedactRules, value: str, quoted: bool, prose_like: bool) -> bool:
    if not value or value.startswith(MARK) or rules.placeholder.match(value):
        return False
    if value.isdigit() and len(value) < 6:
        return False
    if not quoted:
        if any(ch in value for ch in "([{") or rules.dotted_ident.match(value):
            return False  # code: password = get_password(), key = settings.API_KEY
        if prose_like and value.isalpha() and len(value) < 12:
            return False  # prose: "the token: expired"
    return len(value) >= 3


def _redact_assignment(rules: RedactRules, match: re.Match[str]) -> str:
    whole = match.group(0)
    if not secret_name(match.group("name")):
        return whole
    group = next((g for g in ("q1", "q2", "q3") if match.group(g) is not None), "val")
    value = match.group(group)
    quoted = group != "val"
    at_line_start = match.group("lead") is not None
    if not quoted and not at_line_start:
        cut = rules.value_end.search(value)  # query strings, code: the value ends at & , ; )
        if cut:
            value = value[: cut.start()]
    sep = match.group("sep")
    # "password: the user chooses it": a colon followed by a sentence is prose, not a setting
    prose_like = sep == ":" and (
        not at_line_start or bool(rules.more_words.compiled.match(match.string, match.end(group)))
    )
    if not _secret_value(rules, value, quoted, prose_like):
        return whole
    if value.lower() in AUTH_SCHEMES and _names_auth_scheme(match.group("name")):
        return whole  # auth=basic, "auth": "oauth2"
    offset = match.start(group) - match.start()
    return whole[:offset] + _marker("secret") + whole[offset + len(value) :]


def _names_auth_scheme(name: str) -> bool:
    """True for a name whose secret word is `auth` alone (auth, http_auth, authMethod...)."""
    words = [w.lower() for w in get_rules().name_words.findall(name)]
    return "auth" in words and not any(
        w != "auth" and (w in SECRET_WORDS or w in ("key", "secret")) for w in words
    )


def _redact_url(match: re.Match[str]) -> str:
    password = match.group(2)
    if password.startswith(("$", "<", "{", MARK)) or set(password) <= {"*", "x", "X"}:
        return match.group(0)
    return f"://{match.group(1)}:{_marker('password')}@"


def _redact_slash_creds(match: re.Match[str]) -> str:
    password = match.group(2)
    if password.startswith(("$", "<", "{", MARK)) or set(password) <= {"*", "x", "X"}:
        return match.group(0)
    return f"{match.group(1)}/{_marker('password')}@"


def _redact_flag(rules: RedactRules, match: re.Match[str]) -> str:
    quote, value = match.group(2), match.group(3)
    if not _secret_value(rules, value, bool(quote), True):
        return match.group(0)
    return f"{match.group(1)}{quote}{_marker('secret')}{quote}"


def _redact_cli_user(rules: RedactRules, match: re.Match[str]) -> str:
    password = match.group(3)
    if password.isdigit() or not _secret_value(rules, password, True, False):
        return match.group(0)  # docker run -u 1000:1000, curl -u "$USER:$PASS"
    quote = match.group(2)
    return f"{match.group(1)}{_marker('password')}{quote}"


def _redact_command_password(rules: RedactRules, match: re.Match[str]) -> str:
    quote, value = match.group(2), match.group(3)
    if not _secret_value(rules, value, True, False):
        return match.group(0)
    return f"{match.group(1)}{quote}{_marker('password')}{quote}"


def _redact_commands(rules: RedactRules, text: str, low: str) -> str:
    """The command password rule, tried only where a command's name occurs (a scan of the whole
    text with the rule costs more than everything else together)."""
    if len(low) != len(text):  # lower() changed the length (rare scripts): the plain scan
        return rules.command_password.sub(lambda m: _redact_command_password(rules, m), text)
    hits = sorted({at for hint in COMMAND_HINTS for at in _find_all(low, hint)})
    out: list[str] = []
    last = 0
    for at in hits:
        match = rules.command_password.compiled.match(text, at) if at >= last else None
        if match is not None:
            out.append(text[last:at])
            out.append(_redact_command_password(rules, match))
            last = match.end()
    out.append(text[last:])
    return "".join(out)


def _find_all(text: str, word: str) -> list[int]:
    found = []
    at = text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + len(word))
    return found


def _redact_sas(match: re.Match[str]) -> str:
    if set(match.group(2).rstrip("=")) <= {"x", "X", "*", "0"}:
        return match.group(0)
    return match.group(1) + _marker("sas_signature")


def _redact_prose(rules: RedactRules, match: re.Match[str]) -> str:
    whole = match.group(0)
    quoted = match.group("quoted") is not None
    group = "quoted" if quoted else "value"
    value = match.group(group)
    if not quoted:
        value = value.rstrip(".,;:!?)]}")
    if not _secret_value(rules, value, quoted, False):
        return whole
    low = value.lower()
    if not quoted and value.isalpha() and (low in PROSE_WORDS or low.endswith(PROSE_SUFFIXES)):
        return whole  # "the password is required", "the token is expired"
    offset = match.start(group) - match.start()
    return whole[:offset] + _marker("secret") + whole[offset + len(value) :]


def _keyword_lines(rules: RedactRules, text: str, low: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the lines holding a secret-ish keyword, in order."""
    starts: set[int] = set()
    if len(low) == len(text):
        for hint in ASSIGN_HINTS:
            at = low.find(hint)
            while at >= 0:
                starts.add(text.rfind("\n", 0, at) + 1)
                at = low.find(hint, at + len(hint))
    else:  # lower() changed the length (rare scripts): fall back to the slower regex
        starts = {text.rfind("\n", 0, m.start()) + 1 for m in rules.keyword.finditer(text)}
    spans = []
    for start in sorted(starts):
        end = text.find("\n", start)
        spans.append((start, len(text) if end < 0 else end))
    return spans


def _redact_assignments(rules: RedactRules, text: str, low: str) -> str:
    """The assignment and command-line flag rules, run only on the lines that hold a secret-ish
    keyword (they are the slowest rules, and most lines of code and prose have no such word)."""
    spans = _keyword_lines(rules, text, low)
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        out.append(text[last:start])
        line = text[start:end]
        if "-" in line:
            line = rules.cli_flag.sub(lambda m: _redact_flag(rules, m), line)
        line = rules.assign.sub(lambda m: _redact_assignment(rules, m), line)
        if (
            " is " in line
            or " was " in line
            or " are " in line
            or " were " in line
            or "'s " in line
        ):
            line = rules.prose.sub(lambda m: _redact_prose(rules, m), line)
        out.append(line)
        last = end
    out.append(text[last:])
    return "".join(out)


def redact_text(text: str) -> str:
    """The text with every secret it holds replaced by `[REDACTED:<kind>]`; idempotent.

    A masked secret can uncover another (two keys written back to back), so the rules run again
    until nothing changes; a text without secrets takes one pass."""
    if not text:
        return text
    rules = get_rules()
    for _ in range(8):
        redacted = _redact_once(rules, text)
        if redacted == text:
            break
        text = redacted
    return text


def _redact_once(rules: RedactRules, text: str) -> str:
    """One pass of every rule over the text, then over each piece between the escaped line
    breaks and tabs of a JSON or log string (`\\n`, `\\t`), which end a word as white space does."""
    text = _redact_pass(rules, text)
    if "\\" in text:
        pieces = rules.escaped_space.split(text)
        if len(pieces) > 1:
            text = "".join(p if i % 2 else _redact_pass(rules, p) for i, p in enumerate(pieces))
    return text


def _redact_pass(rules: RedactRules, text: str) -> str:
    low = text.lower()
    if "private>" in low:
        text = rules.private_close.sub("", rules.private.sub("", text))
    if "PRIVATE KEY" in text:
        text = rules.pem.sub(_marker("private_key"), text)
    for index, (kind, hints, _pattern) in enumerate(TOKEN_RULES):
        if any(hint in text for hint in hints):
            text = rules.token(index).sub(_marker(kind), text)
    if "authorization" in low:
        text = rules.auth_header.sub(lambda m: m.group(1) + _marker("auth_header"), text)
    if "bearer" in low:
        text = rules.bearer.sub(lambda m: m.group(1) + _marker("bearer_token"), text)
    if "://" in text:
        text = rules.url_creds.sub(_redact_url, text)
    if "/" in text and "@" in text:
        text = rules.slash_creds.sub(_redact_slash_creds, text)
    if "password" in low and ("machine" in low or "default" in low):
        text = rules.netrc_password.sub(lambda m: m.group(1) + _marker("password"), text)
    if "-u" in text or "--user" in text or "--proxy-user" in text:
        text = rules.cli_user.sub(lambda m: _redact_cli_user(rules, m), text)
    if any(hint in low for hint in COMMAND_HINTS):
        text = _redact_commands(rules, text, low)
    if "sig=" in low:
        text = rules.sas_signature.sub(_redact_sas, text)
    if any(hint in low for hint in ASSIGN_HINTS):
        text = _redact_assignments(rules, text, text.lower())
    if MARK in text and ("\n" in text or "\\n" in text):
        text = rules.continued_token.sub(_redact_continued, text)
    if all(len(word) < CANDIDATE_MIN for word in text.split()):
        return text  # a run of token characters never spans white space: none is long enough
    return rules.candidate.sub(lambda m: _redact_candidate(rules, m), text)


def _redact_continued(match: re.Match[str]) -> str:
    """The next line's run after a masked token: its rest when it stands alone on its line or
    reads as generated (a digit among letters), else a word that stays."""
    marker, gap, run = match.groups()
    rest = match.string[match.end() :].lstrip(" \t")
    alone = not rest or rest.startswith(("\n", "\r", "\\n", "\\r"))
    generated = any(ch.isdigit() for ch in run) and any(ch.isalpha() for ch in run)
    return marker + gap + (marker if alone or generated else run)


def _redact_candidate(rules: RedactRules, match: re.Match[str]) -> str:
    """A long run of token characters: masked when it reads as random, unless it or the word
    before it names it content (a digest, an id, a data URL's payload, a public key)."""
    run = match.group(0)
    if rules.named_digest.match(run):
        return run
    before = match.string[max(0, match.start() - 24) : match.start()]
    label = rules.content_label.search(before)
    if label and not any(word in before.lower() for word in CREDENTIAL_IDS):
        return run
    return _marker("high_entropy") if looks_random(run) else run


def redact_obj(obj: object) -> object:
    """A copy of JSON-like data with every string redacted; a string value under a secret-looking
    key (password, token, api_key, ...) is masked whole."""
    if isinstance(obj, str):
        return redact_text(obj)
    if isinstance(obj, dict):
        rules = get_rules()
        out: dict[object, object] = {}
        for key, value in obj.items():
            if (
                isinstance(key, str)
                and isinstance(value, str)
                and secret_name(key)
                and _secret_value(rules, value, True, False)
            ):
                out[key] = _marker("secret")
            else:
                out[key] = redact_obj(value)
        return out
    if isinstance(obj, list | tuple):
        return [redact_obj(item) for item in obj]
    return obj
