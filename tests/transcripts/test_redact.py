"""Secret redaction: each kind of secret is masked, ordinary text is left alone, and redacting
twice changes nothing."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cms.transcripts.redact import looks_random, redact_obj, redact_text, secret_name

# Built at run time so no complete secret-shaped literal sits in the repository.
ALNUM = string.ascii_letters + string.digits
RANDOM40 = "Xk9fQ2mZ7pLw4RtY8vB3nC6hJ1sD5gE0aQ7zW2eR"


def fake(prefix: str, length: int, alphabet: str = ALNUM) -> str:
    """A made-up credential: the provider's prefix and a seeded random body."""
    rng = random.Random(f"{prefix}{length}")
    return prefix + "".join(rng.choice(alphabet) for _ in range(length))


SECRETS = [
    ("anthropic_key", fake("sk-ant-api03-", 40, ALNUM + "-_")),
    ("openai_key", fake("sk-", 48)),
    ("openai_key", fake("sk-proj-", 60, ALNUM + "-_")),
    ("github_token", fake("ghp_", 36)),
    ("github_token", fake("gho_", 36)),
    ("github_token", fake("ghs_", 36)),
    ("github_token", fake("github_pat_", 60, ALNUM + "_")),
    ("gitlab_token", fake("glpat-", 20)),
    ("slack_token", "xoxb-" + "123456789012-" + fake("", 24)),
    ("slack_token", "xoxp-" + "123456789012-" + fake("", 24)),
    ("aws_access_key", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key", "ASIA" + "Y34FZKBOKMUTVV7A"),
    ("google_api_key", fake("AIza", 35)),
    ("stripe_key", fake("sk_live_", 24)),
    ("stripe_key", fake("rk_live_", 24)),
    ("npm_token", fake("npm_", 36)),
    ("huggingface_token", fake("hf_", 34)),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9."
        + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("high_entropy", RANDOM40),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_provider_secret_is_masked_with_its_kind(kind: str, secret: str) -> None:
    text = f"here it is: {secret} (keep it safe)"
    out = redact_text(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert out.startswith("here it is: ") and out.endswith(" (keep it safe)")


def test_secret_inside_an_env_assignment_keeps_the_name() -> None:
    key = fake("sk-proj-", 50)
    assert redact_text(f"OPENAI_API_KEY={key}") == "OPENAI_API_KEY=[REDACTED:openai_key]"


def test_bearer_token_in_authorization_header_keeps_the_scheme() -> None:
    out = redact_text("curl -H 'Authorization: Bearer abc123def456ghi789jkl' https://api.x.io")
    assert out == "curl -H 'Authorization: Bearer [REDACTED:auth_header]' https://api.x.io"
    json_header = redact_text('{"authorization": "Bearer 7f8e9d0c1b2a3f4e5d6c"}')
    assert "7f8e9d0c1b2a3f4e5d6c" not in json_header


def test_bare_bearer_token_is_masked() -> None:
    out = redact_text("send it with bearer q1w2e3r4t5y6u7i8o9p0 as header")
    assert out == "send it with bearer [REDACTED:bearer_token] as header"


def test_pem_private_key_block_is_masked_whole() -> None:
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
        "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END RSA PRIVATE KEY-----"
    )
    out = redact_text(f"key:\n{block}\nafter")
    assert out == "key:\n[REDACTED:private_key]\nafter"


def test_truncated_pem_block_is_masked_to_its_end() -> None:
    out = redact_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n")
    assert "b3BlbnNz" not in out and "[REDACTED:private_key]" in out


def test_url_password_is_masked_and_user_kept() -> None:
    out = redact_text("DATABASE_URL=postgres://admin:hunter2@db.example.com:5432/app")
    assert "hunter2" not in out
    assert "postgres://admin:[REDACTED:password]@db.example.com:5432/app" in out


def test_url_with_placeholder_password_is_left_alone() -> None:
    text = "connect to postgres://admin:${DB_PASS}@db:5432/app"
    assert redact_text(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED:secret]"),
        ("export GITHUB_TOKEN=abcd1234", "export GITHUB_TOKEN=[REDACTED:secret]"),
        ("  password: supersecret", "  password: [REDACTED:secret]"),
        ("- client_secret: s3cr3t", "- client_secret: [REDACTED:secret]"),
        ('{"password": "my pass"}', '{"password": "[REDACTED:secret]"}'),
        ("apiKey: 'abcd1234xyz'", "apiKey: '[REDACTED:secret]'"),
        ('STRIPE_SECRET="whatever-it-is"', 'STRIPE_SECRET="[REDACTED:secret]"'),
        ("GET /v1?api_key=abc123&page=2", "GET /v1?api_key=[REDACTED:secret]&page=2"),
        ('{\\"token\\": \\"abc12345\\"}', '{\\"token\\": \\"[REDACTED:secret]\\"}'),
        ("./deploy --password hunter22 -v", "./deploy --password [REDACTED:secret] -v"),
        (
            "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED:secret]",
        ),
    ],
)
def test_secret_named_assignment_value_is_masked(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the token: expired yesterday",
        "password = get_password()",
        "api_key = settings.API_KEY",
        "PWD=/home/dev/proj",
        '{"token_count": 123456, "max_tokens": 4096, "input_tokens": 10210}',
        "show_password: false",
        "token_type: bearer",
        "The author: Jane Doe",
        "passport: 1234",
        "password_file=/etc/app/pass.txt",
        "API_KEY=${OPENAI_API_KEY}",
        "password: <your password here>",
    ],
)
def test_non_secret_assignment_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "commit 3bda296 fixed it; see e96d2d9a1b2c3d4e5f60718293a4b5c6d7e8f901",
        "session 077d02e5-c8a8-4f6f-b531-7e25e526cae5 resumed",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "/home/marco/projects/spotter/worktrees/spotter-4te/lib/SpotterWeb/Live/session_live.ex",
        "src/agents/plugins/codemie-code-hooks/shell-hooks-source.ts",
        "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        "SpotterWebTerminalChannelTest2 and getUserAccountById2FactorAuth",
        "test_redaction_of_secret_values_v2 passed",
        "toolu_01FHpVtawG6NqQ943umBMky8 and call_Y2p6KmqwoTtpi6atpDPuxC5M",
        "https://github.com/xtermjs/xterm.js/issues/1343",
        "Use Postgres, not Dynamo. Switched the plan to Postgres 16 with pgbouncer.",
        "Bearer authentication is configured in the gateway.",
        "café, naïve, 中文, русский 🎉 — ordinary prose stays as it is.",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


PASS = "Zq8pLm3Rt1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"curl -u deploy:{PASS} https://x.io", "curl -u deploy:[REDACTED:password] https://x.io"),
        (f"curl --user=deploy:{PASS} x", "curl --user=deploy:[REDACTED:password] x"),
        (f"mysql -u root -p{PASS} app", "mysql -u root -p[REDACTED:password] app"),
        (f"mysqldump -u root -p'{PASS}' app", "mysqldump -u root -p'[REDACTED:password]' app"),
        (
            f"docker login -u ci -p {PASS} registry.io",
            "docker login -u ci -p [REDACTED:password] registry.io",
        ),
        (f"sshpass -p {PASS} ssh host", "sshpass -p [REDACTED:password] ssh host"),
        (f"redis-cli -h cache -a {PASS} ping", "redis-cli -h cache -a [REDACTED:password] ping"),
        (f"app --db-password {PASS} -v", "app --db-password [REDACTED:secret] -v"),
        (
            "https://a.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=AbCd%2BEf1234567890abcdEFGH%3D",
            "https://a.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=[REDACTED:sas_signature]",
        ),
        (f"My password is {PASS}", "My password is [REDACTED:secret]"),
        ("my password is swordfish.", "my password is [REDACTED:secret]."),
        (
            "The password for staging is `pa ss word`",
            "The password for staging is `[REDACTED:secret]`",
        ),
        (f"the API key was changed to {PASS}.", "the API key was changed to [REDACTED:secret]."),
    ],
)
def test_command_line_and_prose_passwords_are_masked(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "password: the user chooses it",
        "auth=basic",
        "auth: oauth2",
        "The password is required.",
        "the token is expired",
        "the password is in 1Password",
        "a small token of appreciation can brighten someone's day",
        "docker run -u 1000:1000 image",
        "git push -u origin main",
        "mkdir -p build && ssh -p 2222 host",
        "mysql -P 3306 -p app",
        "docker login -u ci --password-stdin registry.io",
        'curl -u "$USER:$PASS" https://x.io',
        "pwd is /home/dev",
    ],
)
def test_talk_about_passwords_and_ordinary_flags_are_left_alone(text: str) -> None:
    assert redact_text(text) == text


def test_private_span_is_removed_entirely_across_lines() -> None:
    out = redact_text("before <private>my diary\nsecond line</private> after")
    assert out == "before  after"


def test_unclosed_private_tag_hides_the_rest() -> None:
    assert redact_text("visible <private>hidden forever\nstill hidden") == "visible "


def test_random_looking_token_is_detected_but_identifiers_are_not() -> None:
    assert looks_random(RANDOM40)
    assert not looks_random("ThisIsALongCamelCaseIdentifier123")
    assert not looks_random("0123456789abcdef0123456789abcdef01234567")


def test_secret_name_reads_the_words_of_a_name() -> None:
    assert secret_name("DB_PASSWORD") and secret_name("apiKey") and secret_name("x-api-key")
    assert secret_name("oauthToken") and secret_name("client_secret")
    assert not secret_name("author") and not secret_name("max_tokens")
    assert not secret_name("token_count") and not secret_name("PWD")


def test_redact_obj_masks_values_under_secret_keys_and_strings_everywhere() -> None:
    data = {
        "password": "hunter2",
        "nested": [{"api_key": "zzzzzz"}, f"key {fake('ghp_', 36)}"],
        "count": 3,
        "token_count": "12",
    }
    out = redact_obj(data)
    assert out == {
        "password": "[REDACTED:secret]",
        "nested": [{"api_key": "[REDACTED:secret]"}, "key [REDACTED:github_token]"],
        "count": 3,
        "token_count": "12",
    }


def test_redaction_of_empty_text_is_empty() -> None:
    assert redact_text("") == ""


def test_large_text_with_one_secret_is_masked() -> None:
    key = fake("sk-ant-api03-", 40)
    text = ("lorem ipsum dolor sit amet " * 4000) + key + (" consectetur" * 4000)
    out = redact_text(text)
    assert key not in out and out.count("[REDACTED:anthropic_key]") == 1


_pieces = st.sampled_from(
    [
        *(secret for _, secret in SECRETS),
        "password=",
        "PASSWORD: ",
        '"token": "',
        "'",
        '"',
        "\\",
        "\n",
        " ",
        "=",
        ":",
        "@",
        "://",
        "user:",
        "Authorization: Bearer ",
        "bearer ",
        "<private>",
        "</private>",
        "-----BEGIN PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "[REDACTED:secret]",
        "--token ",
        "export ",
        "curl -u deploy:",
        "mysql -p",
        "docker login -u ci -p ",
        "&sig=",
        "my password is ",
        "- ",
        "abc123",
        "hunter2",
        "word",
        "/path/to/file",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_pieces, st.text(max_size=12)), max_size=14).map("".join))
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([s for _, s in SECRETS]), st.text(max_size=30), st.text(max_size=30))
def test_planted_secret_never_survives_in_any_context(secret: str, before: str, after: str) -> None:
    out = redact_text(f"{before} {secret} {after}")
    assert secret not in out


def _hex(label: str, size: int) -> str:
    import hashlib

    return hashlib.sha256(label.encode()).hexdigest()[:size]


ROUND_TWO = [  # (the secret, a line that holds it): generated canaries
    (f"dapi{_hex('a', 32)}", "use dapi{} for the workspace"),
    (f"dop_v1_{_hex('b', 64)}", "DIGITALOCEAN_ACCESS={}"),
    (f"shpat_{_hex('c', 32)}", '{{"X-Shopify-Access": "{}"}}'),
    ("Or4clePw", "jdbc:oracle:thin:app/{}@db.example.com:1521/ORCL"),
    ("R3disPw99", "redis://:{}@cache.internal:6379/0"),
    ("N3trcPw77", "machine api.example.com login ci password {}"),
    ("Cr3dsValue", "REGISTRY_CREDS={}"),
]


@pytest.mark.parametrize("placement", ["{}", "  - {}", "export {}", "> {} (from the logs)"])
@pytest.mark.parametrize(("secret", "line"), ROUND_TWO)
def test_the_shapes_kept_before_are_masked_in_any_placement(
    secret: str, line: str, placement: str
) -> None:
    text = placement.format(line.format(secret))
    assert secret not in redact_text(text)


def test_the_rest_of_a_token_wrapped_onto_the_next_line_is_masked() -> None:
    head, tail = f"ghp_{_hex('d', 36)}", _hex("e", 14)
    redacted = redact_text(f"token:\n  {head}\n  {tail}\nnext line stays")
    assert head not in redacted and tail not in redacted and "next line stays" in redacted


@pytest.mark.parametrize(
    "harmless",
    [
        "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "commit deadbeef8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 and marker fe0a1b2c3d4e5f60718293a4b5c6d7e8",
        "request 123e4567-e89b-12d3-a456-426614174000 failed",
        "npm install @scope/pkg@1.2.3 react/foo@2.0.1",
        "see src/app@home.ts and docs/v1@latest",
        "the credentials live in the vault; see creds.md",
    ],
)
def test_ids_hashes_and_package_versions_keep_their_meaning(harmless: str) -> None:
    assert redact_text(harmless) == harmless
