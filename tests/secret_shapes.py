"""The secret matrix's data: 75 secret shapes, 10 placements, and 61 harmless strings that must
keep their meaning. Every secret body is generated from a seed here (no real-looking secret is
pasted into the repository); each shape is (name, needle, line): the needle is what must never
be kept, the line is how people write it."""

from __future__ import annotations

import hashlib
import json
import string

B62 = string.digits + string.ascii_letters
B64URL = B62 + "-_"
LOWER = string.ascii_lowercase + string.digits


def body(label: str, size: int, alphabet: str = B62) -> str:
    """A seeded run of `alphabet` characters that holds a digit, an upper and a lower letter
    when the alphabet has them (so it reads as generated, as real tokens do)."""
    out = ""
    counter = 0
    while len(out) < size:
        digest = hashlib.sha256(f"cms-shape-{label}-{counter}".encode()).digest()
        out += "".join(alphabet[b % len(alphabet)] for b in digest)
        counter += 1
    out = out[:size]
    musts = [c for c in ("7", "Q", "k") if c in alphabet]
    return "".join(musts) + out[len(musts) :] if size > len(musts) else out


def hexbody(label: str, size: int) -> str:
    """A seeded lowercase hex run that holds a digit and a letter."""
    run = hashlib.sha256(f"cms-hex-{label}".encode()).hexdigest() * 4
    return "a7" + run[2:size]


def pem_body(label: str) -> tuple[str, str]:
    """A made-up key block's body (three base64 lines) and its middle line, the needle."""
    lines = [body(f"pem-{label}-{i}", 64, B62 + "/+") for i in range(3)]
    return "\n".join(lines), lines[1]


def _shapes() -> list[tuple[str, str, str]]:
    pw = {name: "Pw" + body(name, 10) for name in ("url", "mysql", "curl", "docker", "oracle")}
    aws_secret = body("aws-secret", 40, B62 + "/+")
    pems = {kind: pem_body(kind) for kind in ("pkcs8", "rsa", "openssh", "gcp")}
    rows: list[tuple[str, str, str]] = [
        ("anthropic api key", f"sk-ant-api03-{body('ant', 93, B64URL)}AA", "ANTHROPIC_API_KEY={}"),
        ("anthropic admin key", f"sk-ant-admin01-{body('antadm', 93, B64URL)}AA", "key {}"),
        ("openai legacy key", f"sk-{body('oai', 48)}", "openai.api_key = '{}'"),
        ("openai project key", f"sk-proj-{body('oaiproj', 80, B64URL)}", "use {} for the bot"),
        ("openai service key", f"sk-svcacct-{body('oaisvc', 64, B64URL)}", "OPENAI_KEY: {}"),
        (
            "github classic pat",
            f"ghp_{body('ghp', 36)}",
            "git remote set-url origin https://{}@github.com/o/r",
        ),
        ("github oauth token", f"gho_{body('gho', 36)}", "gh auth token printed {}"),
        ("github user-to-server", f"ghu_{body('ghu', 36)}", "token={}"),
        ("github server-to-server", f"ghs_{body('ghs', 36)}", "GITHUB_TOKEN: {}"),
        ("github refresh token", f"ghr_{body('ghr', 76)}", "refresh with {}"),
        ("github fine-grained pat", f"github_pat_{body('ghfg', 82, B62 + '_')}", "{}"),
        ("gitlab pat", f"glpat-{body('glpat', 20, B64URL)}", "PRIVATE-TOKEN: {}"),
        ("slack bot token", f"xoxb-1234567890-{body('xoxb', 24)}", "SLACK_BOT_TOKEN={}"),
        ("slack user token", f"xoxp-1234567890-{body('xoxp', 32)}", "slack token {}"),
        (
            "slack webhook",
            f"https://hooks.slack.com/services/T0{body('slk1', 8).upper()}/B0{body('slk2', 8).upper()}/{body('slk3', 24)}",
            "post to {}",
        ),
        (
            "aws access key id",
            "AKIA" + body("akia", 16, string.ascii_uppercase + "234567"),
            "aws_access_key_id = {}",
        ),
        (
            "aws temporary key id",
            "ASIA" + body("asia", 16, string.ascii_uppercase + "234567"),
            "AWS_ACCESS_KEY_ID={}",
        ),
        ("aws secret access key", aws_secret, "aws_secret_access_key = {}"),
        ("google api key", f"AIza{body('aiza', 35, B64URL)}", "maps key {}"),
        ("stripe secret key", f"sk_live_{body('sklive', 99)}", "STRIPE_KEY={}"),
        ("stripe restricted key", f"rk_live_{body('rklive', 99)}", 'stripe.api_key = "{}"'),
        ("stripe webhook secret", f"whsec_{body('whsec', 32)}", "endpoint secret {}"),
        ("npm token", f"npm_{body('npm', 36)}", "//registry.npmjs.org/:_authToken={}"),
        ("huggingface token", f"hf_{body('hf', 34)}", "huggingface-cli login --token {}"),
        ("sendgrid key", f"SG.{body('sg1', 22, B64URL)}.{body('sg2', 43, B64URL)}", "SENDGRID={}"),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI"
            + body("jwt1", 24, B64URL)
            + "."
            + body("jwt2", 43, B64URL),
            "Cookie: session={}",
        ),
        ("databricks token", f"dapi{hexbody('dapi', 32)}", "databricks token {}"),
        ("digitalocean token", f"dop_v1_{hexbody('dop', 64)}", "DIGITALOCEAN_TOKEN {}"),
        ("shopify access token", f"shpat_{hexbody('shpat', 32)}", "X-Shopify-Access-Token: {}"),
        ("shopify shared secret", f"shpss_{hexbody('shpss', 32)}", "shopify secret {}"),
        ("mailgun key", f"key-{hexbody('mailgun', 32)}", "api:{} via mailgun"),
        ("twilio api key secret", body("twilio", 32), "TWILIO_API_SECRET={}"),
        ("pypi token", f"pypi-AgEIcHlwaS5vcmc{body('pypi', 70, B64URL)}", "twine upload -p {}"),
        (
            "docker hub pat",
            f"dckr_pat_{body('dckr', 27, B64URL)}",
            "echo {} | docker login -u me --password-stdin",
        ),
        ("doppler token", f"dp.st.prd.{body('doppler', 40)}", "DOPPLER_TOKEN={}"),
        ("linear api key", f"lin_api_{body('linear', 40)}", "Authorization: {}"),
        ("notion token", f"secret_{body('notion', 43)}", "notion key {}"),
        (
            "grafana service token",
            f"glsa_{body('glsa', 32)}_{hexbody('glsa2', 8)}",
            "GRAFANA_TOKEN={}",
        ),
        ("atlassian api token", f"ATATT3x{body('atl', 186, B64URL)}", "jira token {}"),
        (
            "age secret key",
            "AGE-SECRET-KEY-1" + body("age", 58, string.ascii_uppercase + "023456789"),
            "{}",
        ),
        ("vault token", f"hvs.{body('vault', 90, B64URL)}", "VAULT_TOKEN={}"),
        (
            "terraform cloud token",
            f"{body('tfc1', 14)}.atlasv1.{body('tfc2', 67)}",
            'credentials token = "{}"',
        ),
        ("supabase token", f"sbp_{hexbody('sbp', 40)}", "supabase login --token {}"),
        ("postman key", f"PMAK-{hexbody('pm1', 24)}-{hexbody('pm2', 34)}", "postman {}"),
        ("telegram bot token", f"5012345678:AA{body('tg', 33, B64URL)}", "bot token {}"),
        ("square token", f"sq0atp-{body('sq', 22, B64URL)}", "square {}"),
        ("pulumi token", f"pul-{hexbody('pul', 40)}", "PULUMI_ACCESS_TOKEN={}"),
        (
            "new relic key",
            f"NRAK-{body('nr', 27, string.ascii_uppercase + string.digits)}",
            "newrelic {}",
        ),
        (
            "azure storage key",
            body("azkey", 86, B62 + "+/") + "==",
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
        ),
        (
            "azure sas signature",
            body("azsas", 43, B62) + "%3D",
            "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={}",
        ),
        (
            "private key pem",
            pems["pkcs8"][1],
            "-----BEGIN PRIVATE KEY-----\n" + pems["pkcs8"][0] + "\n-----END PRIVATE KEY-----",
        ),
        (
            "rsa private key pem",
            pems["rsa"][1],
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + pems["rsa"][0]
            + "\n-----END RSA PRIVATE KEY-----",
        ),
        (
            "openssh private key",
            pems["openssh"][1],
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + pems["openssh"][0]
            + "\n-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "gcp service account key",
            pems["gcp"][1],
            json.dumps(
                {
                    "type": "service_account",
                    "private_key": f"-----BEGIN PRIVATE KEY-----\n{pems['gcp'][0]}\n-----END PRIVATE KEY-----\n",
                }
            ),
        ),
        (
            "postgres url password",
            pw["url"],
            "DATABASE_URL=postgres://app:{}@db.example.com:5432/app",
        ),
        (
            "mongodb srv password",
            "Mg" + pw["url"],
            "mongodb+srv://admin:{}@cluster0.example.net/test",
        ),
        ("amqp url password", "Mq" + pw["url"], "BROKER=amqp://guest:{}@rabbit:5672//"),
        ("redis empty-user password", "Rd" + pw["url"], "redis://:{}@cache.internal:6379/0"),
        (
            "oracle thin connect string",
            pw["oracle"],
            "jdbc:oracle:thin:scott/{}@db.example.com:1521:ORCL",
        ),
        ("curl basic user", pw["curl"], "curl -u deploy:{} https://api.example.com/v1"),
        ("mysql glued password", pw["mysql"], "mysql -h db -u root -p{} app"),
        ("docker login password", pw["docker"], "docker login -u ci -p {} registry.example.com"),
        ("sshpass password", "Ss" + pw["docker"], "sshpass -p {} ssh deploy@host"),
        ("redis-cli password", "Rc" + pw["docker"], "redis-cli -h cache -a {} ping"),
        ("password flag", "Fl" + pw["docker"], "./deploy --db-password={} --yes"),
        ("token flag", body("tokflag", 24), "terraform login --token {}"),
        ("env password", "En" + pw["url"], "export DB_PASSWORD={}"),
        ("env credentials name", "Cr" + pw["url"], "REGISTRY_CREDS={}"),
        ("json password field", "Js" + pw["url"], '{"user": "app", "password": "{}"}'),
        ("yaml password field", "Ym" + pw["url"], "  password: {}"),
        ("netrc entry", "Nr" + pw["url"], "machine api.example.com login deploy password {}"),
        ("prose password", "Pr" + pw["url"], "my password for the staging box is {}"),
        ("basic auth header", body("basic", 32, B62 + "+/") + "=", "Authorization: Basic {}"),
        (
            "bearer token",
            body("bearer", 40, B64URL),
            "curl -H 'Authorization: Bearer {}' https://api",
        ),
        ("wrapped token tail", body("wrapped", 14), "token: ghp_" + body("wraphead", 36) + "\n{}"),
    ]
    return [(name, needle, fill(line, needle)) for name, needle, line in rows]


def fill(template: str, value: str) -> str:
    """The template with its first {} replaced by value (JSON lines hold other braces)."""
    return template.replace("{}", value, 1) if "{}" in template else template


SHAPES = _shapes()

# Where a secret sits: {} is the shape's line.
PLACEMENTS = [
    "{}",
    "can you check why this fails: {} (it worked yesterday)",
    "```bash\n{}\n```",
    "- {}",
    "$ {}",
    "> {}",
    "2026-12-03T10:00:00Z ERROR request failed: {}",
    "config:\n  value: |\n    {}\n  next: 1",
    "{}\r\nsecond line",
    "Note:\t{}\t(rotate monthly)",
]

# Strings that carry no secret and must come out of redaction unchanged.
HARMLESS = [
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "Merge: 1a2b3c4 5d6e7f8",
    "request 123e4567-e89b-12d3-a456-426614174000 failed",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    '"integrity": "sha512-9Oj6uXqlq2RVBwFOZ1YPjXmZ2T0kxAcMbrHfQWf8Y2kUjw8qT1NQmGJd1dNvA1kVl7XYjP0lQm8DfbPzWJ3Tw=="',
    '"integrity": "sha1-Bq9rUf3kU+Lg0CXMyGNe3y8qd3c="',
    "  integrity sha512-V8NzL3J7Gv0pSxK5bXvWlOC7tPoC0o8WkQeRpGFGT1D9r4s2Ww+q5gK0jZ7RmKx3FvL6yH1iUq2aNcTd8eVbA==",
    "    resolution: {integrity: sha512-Qp2YV8WVZlJ+0DPuF2lHfTw5MgvR3L9nZyKcxE6oBs7Ai1JdU4tH0rXmq3aWkNeYbFpCg8SoTlRzv5uDiGjhOA==}",
    '<script src="/app.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>',
    "github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=",
    "github.com/pkg/errors v0.9.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=",
    "golang.org/x/sys v0.0.0-20191109021931-daa7c04131f5 h1:Zr2JFtRQNX3BCZ8YtxRE9hNJYC8J6I1MVbMg6owUp18=",
    'checksum = "a3c1f7e2b9d84c6e5f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a"',
    "--hash=sha256:2b4f8e3a9c1d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
    'hash = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
    'hash = "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";',
    'sha256 = "0v4mnk5x5s2zj7w4h0gk1d0s5k1r6f2z1n7d5w8y3l9m2c8q4p6a";',
    '"narHash": "sha256-Vr3hB8XqW2mfL0dK9pZsTnYcA7uE4gJ1oQxR6iV5bNw=",',
    'outputHash = "sha256-L7qX9mZ2nV4bR8tK1wY6pD3fJ0sH5gC2aE9uQ7iO4xM=";',
    "image: ghcr.io/acme/api@sha256:9b2c0f3e1d4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c",
    "Digest: sha256:9b2c0f3e1d4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c",
    "background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==">',
    "src: url(data:font/woff2;base64,d09GMgABAAAAAAYwAA0AAAAADHgAAAXcAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGhYbHhwqBmAAgQQRCAqKfIh0CxAAATYCJAMaBCAFhF4HMBs=) format('woff2')",
    "const id = 'V1StGXR8_Z5jdHi6B-myT'",
    "nanoid() returned id V1StGXR8_Z5jdHi6B-myT",
    "blob_3f2a9c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a29",
    "100644 blob 3f2a9c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a29\tsrc/app.py",
    "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "ulid 01ARZ3NDEKTSV4RRFFQ69G5FAV",
    "user_id=5f8d0d55b54764421b7156c3",
    '"userId": "cus_NffrFeUfNV2Hib"',
    "the tool call toolu_01A09q90qw90lq917835lq9 returned",
    "msg_01XFDUDYJgAACzvnptvVoYEL arrived",
    "pod api-7d9f8b6c5d-x2k4p restarted",
    "npm install @scope/pkg@1.2.3 react/foo@2.0.1",
    "see src/app@home.ts and docs/v1@latest",
    "the credentials live in the vault; see creds.md",
    "dist/assets/index-4f3a2b1c.js and main.3f2a9c1e.css",
    "https://example.com/search?q=postgres+port&page=2&utm_source=newsletter",
    'ETag: W/"5e15153d-120f"',
    'etag "d41d8cd98f00b204e9800998ecf8427e"',
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop",
    "fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
    "gpg key 3AA5C34371567BD2",
    "version 2.14.0-rc.1+build.20261203",
    "python 3.11.7 and node v22.11.0",
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "the token count is 1234 and the password field is required",
    "password: ${DB_PASSWORD}",
    "api_key = os.environ['API_KEY']",
    "token_type: bearer",
    "export AUTH_MODE=oauth2",
    "s3://acme-artifacts/builds/2026/12/03/api-linux-amd64.tar.gz",
    "/home/alice/projects/acme/src/components/CheckoutSummaryPanel.tsx",
    "TestUserCanCheckoutWithSavedCardAndCoupon passed",
    "rollout-2026-05-11T11-26-55-0f3c2d1e-8b7a-4c6d-9e5f-1a2b3c4d5e6f.jsonl",
    "The database port is 5433 and the pool size is 20.",
]
