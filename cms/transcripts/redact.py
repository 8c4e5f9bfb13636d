"""Secret redaction: every text bound for a model, a map, the store or the log passes through here.

Replaces provider keys, tokens, private keys, URL and command-line passwords (`curl -u user:pw`,
`mysql -ppw`, `docker login -p pw`), Azure SAS signatures, secret-named assignments, prose such as
"my password is pw" and high-entropy strings with `[REDACTED:<kind>]`, and removes
`<private>...</private>` spans. It is idempotent and never raises on str input. Standard library only; the regexes are compiled once,
on first use, so importing this module on the hook fast path costs next to nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cached_property

MARK = "[REDACTED:"

# (kind, literal hints, pattern): the whole match becomes the marker. The regex only runs on a
# text holding one of its hints (a fast substring test). Specific providers before generic rules.
_TOKEN_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("anthropic_key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    (
        "openai_key",
        ("sk-",),
        r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{20,}",
    ),
    (
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("gitlab_token", ("glpat-",), r"glpat-[A-Za-z0-9_\-]{20,}"),
    ("slack_token", ("xox",), r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    (
        "slack_webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}",
    ),
    (
        "aws_access_key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
    ),
    ("google_api_key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}"),
    (
        "stripe_key",
        ("_live_", "_test_", "whsec_"),
        r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,})",
    ),
    ("npm_token", ("npm_",), r"(?<![\w-])npm_[A-Za-z0-9]{36}"),
    ("huggingface_token", ("hf_",), r"(?<![\w-])hf_[A-Za-z0-9]{30,}"),
    ("sendgrid_key", ("SG.",), r"(?<![\w-])SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    (
        "jwt",
        ("eyJ",),
        r"(?<![\w-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}",
    ),
)
_COMMAND_HINTS = ("mysql", "mariadb", "sshpass", "login", "redis-cli")
_ASSIGN_HINTS = ("pass", "pwd", "secret", "token", "key", "credential", "auth")

# Words that make an assignment's name secret (DB_PASSWORD, apiKey, client_secret, ...).
_SECRET_WORDS = frozenset(
    [
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "secrets",
        "token",
        "apikey",
        "credential",
        "credentials",
        "auth",
        "pass",
        "privatekey",
        "accesskey",
        "secretkey",
    ]
)
_SECRET_PAIRS = frozenset(
    (first, second)
    for first, second in (
        pair.split("+")
        for pair in [
            "api+key",
            "access+key",
            "private+key",
            "secret+key",
            "auth+key",
            "client+secret",
            "signing+key",
            "encryption+key",
            "master+key",
            "session+key",
            "account+key",
        ]
    )
)
# A name ending in one of these talks about the secret, not holds it (token_count, password_file).
_META_WORDS = frozenset(
    [
        "type",
        "mode",
        "method",
        "provider",
        "url",
        "uri",
        "endpoint",
        "enabled",
        "required",
        "scheme",
        "flow",
        "domain",
        "server",
        "file",
        "path",
        "dir",
        "name",
        "names",
        "count",
        "limit",
        "length",
        "len",
        "size",
        "usage",
        "budget",
        "id",
        "ids",
        "index",
        "ttl",
        "expiry",
        "expires",
        "timeout",
        "policy",
        "prompt",
        "source",
        "env",
        "var",
        "field",
        "label",
        "header",
        "ref",
        "help",
        "hint",
        "placeholder",
        "min",
        "max",
        "regex",
        "pattern",
        "format",
        "style",
        "class",
        "icon",
        "input",
        "strength",
    ]
)
# Values of an `auth` setting that name a scheme, not a credential (auth=basic, auth: oauth2).
_AUTH_SCHEMES = frozenset(
    "basic bearer digest oauth oauth2 oidc ntlm kerberos negotiate gssapi sso saml ldap jwt hmac "
    "mtls tls iam none anonymous password token apikey api_key md5 scram-sha-256 trust peer ident "
    "cert".split()
)
# Words that follow "the password is" in prose about a secret rather than in a secret.
_PROSE_WORDS = frozenset(
    "a an the this that these those it its my our your their his her not no in on at to of for "
    "from by with as and or but if so too very also only just still now set out up down off safe "
    "stored saved kept hashed encrypted required needed optional mandatory missing empty blank "
    "wrong right correct incorrect valid invalid expired revoked rotated stale old new same "
    "different unique random generated secure insecure weak strong long short good bad fine ok "
    "okay case sensitive visible hidden unknown known available unavailable shared temporary "
    "permanent static dynamic there here gone what which where when how why who never always "
    "usually probably likely part one two something nothing anything whatever sent passed read "
    "written ignored needs must should".split()
)
_PROSE_SUFFIXES = ("ed", "ing", "ly", "able", "ible", "ive", "ful", "less", "ous")
_ID_PREFIXES = (
    "toolu_",
    "srvtoolu_",
    "msg_",
    "req_",
    "call_",
    "fc_",
    "fco_",
    "resp_",
    "ws_",
    "rs_",
)


# Secret-like names (KEY=value, "key": "value", ...)
_KEYWORDS = (
    r"password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|(?:signing|encryption|master|session)[_\-]?key|credential|auth|pass"
)


class _Rules:
    """The patterns, each compiled on its first use in a process (compiling all of them costs
    ~12 ms, and most texts need only a few)."""

    def __init__(self) -> None:
        self._tokens: list[re.Pattern[str] | None] = [None] * len(_TOKEN_RULES)

    def token(self, index: int) -> re.Pattern[str]:
        """The pattern of _TOKEN_RULES[index]."""
        compiled = self._tokens[index]
        if compiled is None:
            compiled = self._tokens[index] = re.compile(_TOKEN_RULES[index][2])
        return compiled

    @cached_property
    def private(self) -> re.Pattern[str]:
        return re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)

    @cached_property
    def private_close(self) -> re.Pattern[str]:
        return re.compile(r"</private>", re.IGNORECASE)

    @cached_property
    def pem(self) -> re.Pattern[str]:
        return re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END (?:[A-Z0-9]+ )*"
            r"PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\n)*)",
            re.DOTALL,
        )

    # Authorization headers and bare bearer tokens: keep the scheme, mask the credential.
    @cached_property
    def auth_header(self) -> re.Pattern[str]:
        return re.compile(
            r"(?i)(\b(?:proxy-)?authorization\\?[\"']?\s*[:=]\s*\\?[\"']?\s*"
            r"(?:(?:bearer|basic|token|bot|digest)\s+)?)(?!\[REDACTED)([A-Za-z0-9._~+/\-]{8,}=*)"
        )

    @cached_property
    def bearer(self) -> re.Pattern[str]:
        return re.compile(r"(?i)(\bbearer\s+)(?=[A-Za-z._~+/\-]*\d)([A-Za-z0-9._~+/\-]{12,}=*)")

    # scheme://user:password@host
    @cached_property
    def url_creds(self) -> re.Pattern[str]:
        return re.compile(r"://(?<=[A-Za-z0-9]://)([^:/\s@'\"]{1,128}):([^@\s/'\"]{1,256})@")

    # --password=x, --token x, --db-password x, --registry-token=x
    @cached_property
    def cli_flag(self) -> re.Pattern[str]:
        return re.compile(
            r"(?i)((?<![\w-])--?(?!no-)(?:[a-z0-9]+-){0,3}(?:password|passwd|token|api-?key|secret|"
            r"client-secret|access-token|auth-token)(?:=|[ \t]+))"
            r"([\"']?)((?!\[REDACTED)[^\s\"'-][^\s\"']*)\2"
        )

    # curl -u user:pw, curl --user=user:pw, --proxy-user user:pw (the user is kept)
    @cached_property
    def cli_user(self) -> re.Pattern[str]:
        return re.compile(
            r"((?<![\w-])(?:-u|--user|--proxy-user)(?:=|[ \t]+)([\"']?)[^\s:\"'@/]{1,128}:)"
            r"(?!\[REDACTED)([^\s\"']+)\2"
        )

    # The password flags of particular commands: mysql -ppw (glued), sshpass -p pw,
    # docker/podman/oc/az login -p pw, redis-cli -a pw. The command and the flag stay.
    @cached_property
    def command_password(self) -> re.Pattern[str]:
        return re.compile(
            r"((?i:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlsh|"
            r"mariadb|mariadb-dump|mariadb-admin))\b[^\n|;&]{0,200}?[ \t]-p"
            r"|(?i:\bsshpass)\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
            r"|(?i:\blogin)\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
            r"|(?i:\bredis-cli)\b[^\n|;&]{0,200}?[ \t]-a[ \t]+)"
            r"([\"']?)((?!\[REDACTED)[^\s\"'-][^\s\"']*)\2"
        )

    # Azure (and other) shared access signatures: ...&sig=<url-encoded base64>
    @cached_property
    def sas_signature(self) -> re.Pattern[str]:
        return re.compile(r"(?i)((?<![A-Za-z0-9_])sig=)(?!\[REDACTED)([A-Za-z0-9%+/_\-]{16,}=*)")

    # prose: "my password is pw", "the API key for staging was `pw`", "the token is now pw"
    @cached_property
    def prose(self) -> re.Pattern[str]:
        return re.compile(
            r"(?i)(?<![A-Za-z0-9_])(?=[ptasc])(?:password|passphrase|passcode|passwd|token|api[ _\-]?key|secret(?:[ _\-]key)?|"
            r"access[ _\-]key|credentials?)(?:(?:[ \t]+(?:for|of|to|on)[ \t]+[^\n.,;:=\"'`]{1,30}?)?"
            r"[ \t]+(?:is|was|are|were)|'s)(?:[ \t]+(?:now|still|just|actually|currently|"
            r"simply|set[ \t]+to|changed[ \t]+to))*[ \t]*:?[ \t]*"
            r"(?:(?P<q>[\"'`])(?P<quoted>(?!\[REDACTED)[^\"'`\n]{1,200})(?P=q)"
            r"|(?P<value>(?!\[REDACTED)[^\s\"'`]+))"
        )

    # KEY=value, KEY: value, "key": "value", export KEY=..., - key: value
    @cached_property
    def assign(self) -> re.Pattern[str]:
        return re.compile(
            r"(?P<lead>^[ \t]*(?:-[ \t]+|export[ \t]+)?)?(?<![\w.\-])(?P<nq>\\?[\"']?)"
            r"(?P<name>[A-Za-z0-9_.\-]{0,40}?(?:" + _KEYWORDS + r")[A-Za-z0-9_.\-]{0,40})"
            r"(?P=nq)[ \t]*(?P<sep>:=|=>|=|:)[ \t]*"
            r"(?:\\\"(?P<q1>[^\"\\\n]*)\\\"|\"(?P<q2>(?:[^\"\\\n]|\\.)*)\"|'(?P<q3>[^'\n]*)'"
            r"|(?P<val>[^\s\"'`]+))",
            re.IGNORECASE | re.MULTILINE,
        )

    # what follows a value when it is part of a sentence: a space and a word
    @cached_property
    def more_words(self) -> re.Pattern[str]:
        return re.compile(r"[ \t]+[A-Za-z]{2,}")

    @cached_property
    def keyword(self) -> re.Pattern[str]:
        return re.compile(_KEYWORDS, re.IGNORECASE)

    @cached_property
    def name_words(self) -> re.Pattern[str]:
        return re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")

    @cached_property
    def placeholder(self) -> re.Pattern[str]:
        return re.compile(
            r"(?i)^(?:\$|\{\{|<|%|\*+$|x+$|\.+$|•+$|(?:none|null|nil|undefined|true|false|yes|no|"
            r"on|off|string|str|int|number|bool|boolean|any|bytes|optional|secretstr|required|"
            r"redacted|changeme|\.\.\.)$|redacted|(?:process\.env|os\.environ|os\.getenv|env\.|settings\.|"
            r"config\.|self\.|this\.|args\.|options\.))"
        )

    @cached_property
    def value_end(self) -> re.Pattern[str]:
        return re.compile(r"[&,;)}\]]")

    @cached_property
    def dotted_ident(self) -> re.Pattern[str]:
        return re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")

    # high-entropy candidates: long runs of base64/base64url characters
    @cached_property
    def candidate(self) -> re.Pattern[str]:
        return re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/_\-])")

    @cached_property
    def wordy(self) -> re.Pattern[str]:
        return re.compile(r"[A-Z]?[a-z]{3,}")

    @cached_property
    def hexish(self) -> re.Pattern[str]:
        return re.compile(r"^[0-9a-fA-F_\-]+$")

    @cached_property
    def path_segment(self) -> re.Pattern[str]:
        return re.compile(r"^[A-Za-z]?[a-z0-9_\-]*$")

    @cached_property
    def separators(self) -> re.Pattern[str]:
        return re.compile(r"[-_]")

    @cached_property
    def prefixed_id(self) -> re.Pattern[str]:
        return re.compile(
            r"^[a-z]+(?:_[a-z]+)*_01[A-Za-z0-9]{20,26}$"
        )  # agent_msg_01..., toolu_01...


_rules: _Rules | None = None


def _get_rules() -> _Rules:
    global _rules
    if _rules is None:
        _rules = _Rules()
    return _rules


def _marker(kind: str) -> str:
    return f"{MARK}{kind}]"


def _shannon(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _wordiness(rules: _Rules, text: str) -> float:
    """Share of the characters that sit in word-like runs (Abc, abcd): high for identifiers."""
    return sum(len(m) for m in rules.wordy.findall(text)) / max(len(text), 1)


def looks_random(token: str) -> bool:
    """True for a string that reads like a generated secret rather than a word, path, id or hash.
    A path is judged by its segments: one long random segment is enough."""
    rules = _get_rules()
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


def _random_core(rules: _Rules, core: str) -> bool:
    if len(core) < 20 or core.startswith(_ID_PREFIXES) or rules.prefixed_id.match(core):
        return False
    if rules.hexish.match(core):  # commit SHAs, UUIDs, content hashes
        return False
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
    words = [w.lower() for w in _get_rules().name_words.findall(name)]
    if not words or words in (["pwd"], ["old", "pwd"], ["oldpwd"]):
        return False  # the shell's working directory
    last_hit = -1
    for i, word in enumerate(words):
        pair = i + 1 < len(words) and (word, words[i + 1]) in _SECRET_PAIRS
        if pair:
            last_hit = i + 1
        elif (
            word in _SECRET_WORDS
            or any(k in word for k in ("password", "passwd", "secret", "apikey"))
            or (word.endswith("token") and len(word) > 5)
        ):
            last_hit = i
    if last_hit < 0:
        return False
    return not (last_hit < len(words) - 1 and words[-1] in _META_WORDS)


def _secret_value(rules: _Rules, value: str, quoted: bool, prose_like: bool) -> bool:
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


def _redact_assignment(rules: _Rules, match: re.Match[str]) -> str:
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
        not at_line_start or bool(rules.more_words.match(match.string, match.end(group)))
    )
    if not _secret_value(rules, value, quoted, prose_like):
        return whole
    if value.lower() in _AUTH_SCHEMES and _names_auth_scheme(match.group("name")):
        return whole  # auth=basic, "auth": "oauth2"
    offset = match.start(group) - match.start()
    return whole[:offset] + _marker("secret") + whole[offset + len(value) :]


def _names_auth_scheme(name: str) -> bool:
    """True for a name whose secret word is `auth` alone (auth, http_auth, authMethod...)."""
    words = [w.lower() for w in _get_rules().name_words.findall(name)]
    return "auth" in words and not any(
        w != "auth" and (w in _SECRET_WORDS or w in ("key", "secret")) for w in words
    )


def _redact_url(match: re.Match[str]) -> str:
    password = match.group(2)
    if password.startswith(("$", "<", "{", MARK)) or set(password) <= {"*", "x", "X"}:
        return match.group(0)
    return f"://{match.group(1)}:{_marker('password')}@"


def _redact_flag(rules: _Rules, match: re.Match[str]) -> str:
    quote, value = match.group(2), match.group(3)
    if not _secret_value(rules, value, bool(quote), True):
        return match.group(0)
    return f"{match.group(1)}{quote}{_marker('secret')}{quote}"


def _redact_cli_user(rules: _Rules, match: re.Match[str]) -> str:
    password = match.group(3)
    if password.isdigit() or not _secret_value(rules, password, True, False):
        return match.group(0)  # docker run -u 1000:1000, curl -u "$USER:$PASS"
    quote = match.group(2)
    return f"{match.group(1)}{_marker('password')}{quote}"


def _redact_command_password(rules: _Rules, match: re.Match[str]) -> str:
    quote, value = match.group(2), match.group(3)
    if not _secret_value(rules, value, True, False):
        return match.group(0)
    return f"{match.group(1)}{quote}{_marker('password')}{quote}"


def _redact_commands(rules: _Rules, text: str, low: str) -> str:
    """The command password rule, tried only where a command's name occurs (a scan of the whole
    text with the rule costs more than everything else together)."""
    if len(low) != len(text):  # lower() changed the length (rare scripts): the plain scan
        return rules.command_password.sub(lambda m: _redact_command_password(rules, m), text)
    hits = sorted({at for hint in _COMMAND_HINTS for at in _find_all(low, hint)})
    out: list[str] = []
    last = 0
    for at in hits:
        match = rules.command_password.match(text, at) if at >= last else None
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


def _redact_prose(rules: _Rules, match: re.Match[str]) -> str:
    whole = match.group(0)
    quoted = match.group("quoted") is not None
    group = "quoted" if quoted else "value"
    value = match.group(group)
    if not quoted:
        value = value.rstrip(".,;:!?)]}")
    if not _secret_value(rules, value, quoted, False):
        return whole
    low = value.lower()
    if not quoted and value.isalpha() and (low in _PROSE_WORDS or low.endswith(_PROSE_SUFFIXES)):
        return whole  # "the password is required", "the token is expired"
    offset = match.start(group) - match.start()
    return whole[:offset] + _marker("secret") + whole[offset + len(value) :]


def _keyword_lines(rules: _Rules, text: str, low: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the lines holding a secret-ish keyword, in order."""
    starts: set[int] = set()
    if len(low) == len(text):
        for hint in _ASSIGN_HINTS:
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


def _redact_assignments(rules: _Rules, text: str, low: str) -> str:
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
    rules = _get_rules()
    for _ in range(8):
        redacted = _redact_once(rules, text)
        if redacted == text:
            break
        text = redacted
    return text


def _redact_once(rules: _Rules, text: str) -> str:
    low = text.lower()
    if "private>" in low:
        text = rules.private_close.sub("", rules.private.sub("", text))
    if "PRIVATE KEY" in text:
        text = rules.pem.sub(_marker("private_key"), text)
    for index, (kind, hints, _pattern) in enumerate(_TOKEN_RULES):
        if any(hint in text for hint in hints):
            text = rules.token(index).sub(_marker(kind), text)
    if "authorization" in low:
        text = rules.auth_header.sub(lambda m: m.group(1) + _marker("auth_header"), text)
    if "bearer" in low:
        text = rules.bearer.sub(lambda m: m.group(1) + _marker("bearer_token"), text)
    if "://" in text:
        text = rules.url_creds.sub(_redact_url, text)
    if "-u" in text or "--user" in text or "--proxy-user" in text:
        text = rules.cli_user.sub(lambda m: _redact_cli_user(rules, m), text)
    if any(hint in low for hint in _COMMAND_HINTS):
        text = _redact_commands(rules, text, low)
    if "sig=" in low:
        text = rules.sas_signature.sub(_redact_sas, text)
    if any(hint in low for hint in _ASSIGN_HINTS):
        text = _redact_assignments(rules, text, text.lower())
    return rules.candidate.sub(
        lambda m: _marker("high_entropy") if looks_random(m.group(0)) else m.group(0), text
    )


def redact_obj(obj: object) -> object:
    """A copy of JSON-like data with every string redacted; a string value under a secret-looking
    key (password, token, api_key, ...) is masked whole."""
    if isinstance(obj, str):
        return redact_text(obj)
    if isinstance(obj, dict):
        rules = _get_rules()
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
