"""What a secret looks like to redact.py: the token rules, the word lists and the patterns.

Data and regexes only, each regex compiled on its first use (all of them cost ~12 ms), standard
library only (on the hook fast path); must not decide or replace anything: redact.py does.
"""

from __future__ import annotations

from cms.lazypattern import DOTALL, IGNORECASE, MULTILINE, LazyPattern

MARK = "[REDACTED:"

# (kind, literal hints, pattern): the whole match becomes the marker. The regex only runs on a
# text holding one of its hints (a fast substring test). Specific providers before generic rules.
TOKEN_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
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
CANDIDATE_MIN = 20  # the shortest run of token characters judged as a possible random secret
COMMAND_HINTS = ("mysql", "mariadb", "sshpass", "login", "redis-cli")
ASSIGN_HINTS = ("pass", "pwd", "secret", "token", "key", "cred", "auth")

# Words that make an assignment's name secret (DB_PASSWORD, apiKey, client_secret, ...).
SECRET_WORDS = frozenset(
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
        "cred",
        "creds",
    ]
)
SECRET_PAIRS = frozenset(
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
META_WORDS = frozenset(
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
AUTH_SCHEMES = frozenset(
    "basic bearer digest oauth oauth2 oidc ntlm kerberos negotiate gssapi sso saml ldap jwt hmac "
    "mtls tls iam none anonymous password token apikey api_key md5 scram-sha-256 trust peer ident "
    "cert".split()
)
# Words that follow "the password is" in prose about a secret rather than in a secret.
PROSE_WORDS = frozenset(
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
PROSE_SUFFIXES = ("ed", "ing", "ly", "able", "ible", "ive", "ful", "less", "ous")
ID_PREFIXES = (
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


# Words that name a run as content, not a secret: a digest, an object id, a public key's type.
CONTENT_LABELS = (
    r"sha(?:1|224|256|384|512)?|md5|blake2[bs]?|blake3|h1|integrity|checksum|digest|hash|"
    r"narhash|outputhash|etag|fingerprint|uuid|ulid|nanoid|id|oid|objectid|blob|tree|commit|"
    r"ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)"
)


# An id named after one of these is a credential, not content (session_id=..., csrf id ...).
CREDENTIAL_IDS = ("session", "cookie", "csrf", "xsrf", "nonce", "auth", "token", "secret")


# Secret-like names (KEY=value, "key": "value", ...)
KEYWORDS = (
    r"password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|(?:signing|encryption|master|session)[_\-]?key|cred|auth|pass"
)


class RedactRules:
    """The patterns, each compiled on its first use in a process (compiling all of them costs
    ~12 ms, and most texts need only a few)."""

    tokens = tuple(LazyPattern(source) for _kind, _hints, source in TOKEN_RULES)

    def token(self, index: int) -> LazyPattern:
        """The pattern of TOKEN_RULES[index]."""
        return self.tokens[index]

    private = LazyPattern(r"<private>.*?(?:</private>|\Z)", DOTALL | IGNORECASE)

    private_close = LazyPattern(r"</private>", IGNORECASE)

    pem = LazyPattern(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END (?:[A-Z0-9]+ )*"
        r"PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\n)*)",
        DOTALL,
    )

    # Authorization headers and bare bearer tokens: keep the scheme, mask the credential.
    auth_header = LazyPattern(
        r"(?i)(\b(?:proxy-)?authorization\\?[\"']?\s*[:=]\s*\\?[\"']?\s*"
        r"(?:(?:bearer|basic|token|bot|digest)\s+)?)(?!\[REDACTED)([A-Za-z0-9._~+/\-]{8,}=*)"
    )

    bearer = LazyPattern(r"(?i)(\bbearer\s+)(?=[A-Za-z._~+/\-]*\d)([A-Za-z0-9._~+/\-]{12,}=*)")

    # scheme://user:password@host
    url_creds = LazyPattern(r"://(?<=[A-Za-z0-9]://)([^:/\s@'\"]{0,128}):([^@\s/'\"]{1,256})@")
    # user/password@host of a connect string (jdbc:oracle:thin:, sqlplus): the host has a port
    # or two dots, so a path, a file@name.ext or a package@version is not one
    slash_creds = LazyPattern(
        r"(?<![\w/@.\-])([A-Za-z][\w.\-]{0,63})/([^\s/@:'\"]{1,256})@"
        r"(?=[A-Za-z][\w\-]*(?:(?:\.[A-Za-z][\w\-]*)*:\d|(?:\.[A-Za-z][\w\-]*){2}))"
    )
    # a credentials file entry (.netrc): machine HOST [login USER] [account A] password SECRET
    netrc_password = LazyPattern(
        r"(?i)(\b(?:machine[ \t]+\S+|default)[ \t]+(?:login[ \t]+\S+[ \t]+)?"
        r"(?:account[ \t]+\S+[ \t]+)?password[ \t]+)(\S+)"
    )
    # the rest of a token wrapped onto the next line: a run of token characters that starts
    # the line right after one ending in a redaction marker (a JSON string's \n counts too);
    # redact.py keeps a run that reads as a word
    continued_token = LazyPattern(
        r"(\[REDACTED:[a-z_]+\])([ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*)([A-Za-z0-9+/_\-]{6,}={0,2})"
        r"(?=[ \t]*(?:\r?\n|\\[rnt]|$)|[ \t\"',)])"
    )
    # an escaped line break or tab in a JSON or log string (kept by split)
    escaped_space = LazyPattern(r"(\\[ntr])")
    # a short prefix (2-8 letters, an optional version) glued to a long hex body, maybe in
    # dash-separated groups: a vendor's token family (dapi..., dop_v1_..., key-..., PMAK-...);
    # redact.py keeps it when the prefix names content (blob_..., sha1-...)
    prefixed_hex = LazyPattern(
        r"^(?P<prefix>[A-Za-z]{2,8})(?:_v\d{1,2})?[_\-]?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])"
        r"[0-9a-f]{24,}(?:-[0-9a-f]{8,})*$"
    )
    # the word before a run that says what the run is: a digest or an identifier (integrity
    # sha512-..., h1:..., hash = "...", id V1St..., user_id=..., ;base64, of a data URL, a
    # public key's type): such a run is content, not a secret
    content_label = LazyPattern(
        r"(?:(?<![A-Za-z0-9])(?:" + CONTENT_LABELS + r")|[a-z0-9]_id|(?-i:[a-z]Id)|;base64,)"
        r"[\"'`]?[ \t]*(?:[:=]|=>)?[ \t]*[\"'`]?$",
        IGNORECASE,
    )
    # a run that opens with a digest's name: sha512-..., sha256:..., md5-...
    named_digest = LazyPattern(
        r"^(?:sha(?:1|224|256|384|512)|md5|blake2[bs]|blake3)[\-:]", IGNORECASE
    )

    # --password=x, --token x, --db-password x, --registry-token=x
    cli_flag = LazyPattern(
        r"(?i)((?<![\w-])--?(?!no-)(?:[a-z0-9]+-){0,3}(?:password|passwd|token|api-?key|secret|"
        r"client-secret|access-token|auth-token)(?:=|[ \t]+))"
        r"([\"']?)((?!\[REDACTED)[^\s\"'-][^\s\"']*)\2"
    )

    # curl -u user:pw, curl --user=user:pw, --proxy-user user:pw (the user is kept)
    cli_user = LazyPattern(
        r"((?<![\w-])(?:-u|--user|--proxy-user)(?:=|[ \t]+)([\"']?)[^\s:\"'@/]{1,128}:)"
        r"(?!\[REDACTED)([^\s\"']+)\2"
    )

    # The password flags of particular commands: mysql -ppw (glued), sshpass -p pw,
    # docker/podman/oc/az login -p pw, redis-cli -a pw. The command and the flag stay.
    command_password = LazyPattern(
        r"((?i:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlsh|"
        r"mariadb|mariadb-dump|mariadb-admin))\b[^\n|;&]{0,200}?[ \t]-p"
        r"|(?i:\bsshpass)\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
        r"|(?i:\blogin)\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
        r"|(?i:\bredis-cli)\b[^\n|;&]{0,200}?[ \t]-a[ \t]+)"
        r"([\"']?)((?!\[REDACTED)[^\s\"'-][^\s\"']*)\2"
    )

    # Azure (and other) shared access signatures: ...&sig=<url-encoded base64>
    sas_signature = LazyPattern(
        r"(?i)((?<![A-Za-z0-9_])sig=)(?!\[REDACTED)([A-Za-z0-9%+/_\-]{16,}=*)"
    )

    # prose: "my password is pw", "the API key for staging was `pw`", "the token is now pw"
    prose = LazyPattern(
        r"(?i)(?<![A-Za-z0-9_])(?=[ptasc])(?:password|passphrase|passcode|passwd|token|api[ _\-]?key|secret(?:[ _\-]key)?|"
        r"access[ _\-]key|credentials?)(?:(?:[ \t]+(?:for|of|to|on)[ \t]+[^\n.,;:=\"'`]{1,30}?)?"
        r"[ \t]+(?:is|was|are|were)|'s)(?:[ \t]+(?:now|still|just|actually|currently|"
        r"simply|set[ \t]+to|changed[ \t]+to))*[ \t]*:?[ \t]*"
        r"(?:(?P<q>[\"'`])(?P<quoted>(?!\[REDACTED)[^\"'`\n]{1,200})(?P=q)"
        r"|(?P<value>(?!\[REDACTED)[^\s\"'`]+))"
    )

    # KEY=value, KEY: value, "key": "value", export KEY=..., - key: value
    assign = LazyPattern(
        r"(?P<lead>^[ \t]*(?:-[ \t]+|export[ \t]+)?)?(?<![\w.\-])(?P<nq>\\?[\"']?)"
        r"(?P<name>[A-Za-z0-9_.\-]{0,40}?(?:" + KEYWORDS + r")[A-Za-z0-9_.\-]{0,40})"
        r"(?P=nq)[ \t]*(?P<sep>:=|=>|=|:)[ \t]*"
        r"(?:\\\"(?P<q1>[^\"\\\n]*)\\\"|\"(?P<q2>(?:[^\"\\\n]|\\.)*)\"|'(?P<q3>[^'\n]*)'"
        r"|(?P<val>[^\s\"'`]+))",
        IGNORECASE | MULTILINE,
    )

    # what follows a value when it is part of a sentence: a space and a word
    more_words = LazyPattern(r"[ \t]+[A-Za-z]{2,}")

    keyword = LazyPattern(KEYWORDS, IGNORECASE)

    name_words = LazyPattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")

    placeholder = LazyPattern(
        r"(?i)^(?:\$|\{\{|<|%|\*+$|x+$|\.+$|•+$|(?:none|null|nil|undefined|true|false|yes|no|"
        r"on|off|string|str|int|number|bool|boolean|any|bytes|optional|secretstr|required|"
        r"redacted|changeme|\.\.\.)$|redacted|(?:process\.env|os\.environ|os\.getenv|env\.|settings\.|"
        r"config\.|self\.|this\.|args\.|options\.))"
    )

    value_end = LazyPattern(r"[&,;)}\]]")

    dotted_ident = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")

    # high-entropy candidates: long runs of base64/base64url characters
    candidate = LazyPattern(
        rf"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{{{CANDIDATE_MIN},}}={{0,2}}(?![A-Za-z0-9+/_\-])"
    )

    wordy = LazyPattern(r"[A-Z]?[a-z]{3,}")

    hexish = LazyPattern(r"^[0-9a-fA-F_\-]+$")

    path_segment = LazyPattern(r"^[A-Za-z]?[a-z0-9_\-]*$")

    separators = LazyPattern(r"[-_]")

    prefixed_id = LazyPattern(
        r"^[a-z]+(?:_[a-z]+)*_01[A-Za-z0-9]{20,26}$"
    )  # agent_msg_01..., toolu_01...


_rules: RedactRules | None = None


def get_rules() -> RedactRules:
    """The process's one RedactRules, made on the first call."""
    global _rules
    if _rules is None:
        _rules = RedactRules()
    return _rules
