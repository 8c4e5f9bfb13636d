"""Items the agent's own edits made outdated: a value an edit replaced in the code.

When an edit replaces a value in place (`staging-db:5433` -> `staging-db:6543`, `kong` ->
`cobra`, `develop` -> `main`), an earlier statement that names the old value and none of the
new ones no longer describes the project: it leaves what is in force. Read from the structure
of the edit (its old and new text, token by token), never from wording. A statement that names
the old value in the negative ("never use print") is left alone: removing the value complies
with it. Pure reading plus one read query; the caller marks what is found. No hooks, no CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from cms.record import Record
from cms.textindex import STOPWORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from cms.observations.store import ObservationStore

SPAN = 4  # tokens on each side of a replacement, at most: a value changed, not a rewrite
FOUND_PER_VALUE = 40  # items looked at per replaced value
VALUE_JOINS = "-_:/@+#~%"  # inside a whole value (values()), never at its ends


class ValueChange(Record, frozen=True):
    """Values an edit removed (not left anywhere in its new text) and those it put in place."""

    removed: frozenset[str]
    added: frozenset[str]


def _number(token: str) -> str:
    """A version written with trailing zero parts as its shortest form ("16.0" -> "16")."""
    if token.replace(".", "").isdigit() and "." in token:
        while token.endswith(".0"):
            token = token[:-2]
    return token


def _split(text: str, joins: str) -> list[str]:
    """Runs of letters, digits and the characters in joins, case folded, with the joining
    characters trimmed from both ends; a dot joins only between two letters or digits."""
    found: list[str] = []
    word = ""
    for n, char in enumerate(text):
        dot = char == "." and word and n + 1 < len(text) and text[n + 1].isalnum()
        if char.isalnum() or dot or (char in joins and word):
            word += char
            continue
        if word:
            found.append(word)
        word = ""
    found.append(word)
    trimmed = (w.rstrip(joins + ".").casefold() for w in found)
    return [_number(w) for w in trimmed if w]


def tokens(text: str) -> list[str]:
    """Runs of letters and digits, case folded; a dot between two of them joins them
    ("staging-db.internal:5433" -> staging, db.internal, 5433; "v0.8.0", "3.5Gi" stay whole;
    "16.0" reads as "16"). No regular expression: the prompt hook reads passages with it."""
    return _split(text, "")


def values(text: str) -> list[str]:
    """Whole values: tokens that also hold the characters identifiers, hosts, paths and URLs
    are made of ("us-east-1", "LT_LOG", "https://api-staging.example.app"), split at spaces,
    quotes, brackets, "=" and commas. An edit's change read at this grain names the value a
    statement quotes whole, where its parts (us, east, 1) would not."""
    return _split(text, VALUE_JOINS)


def _grain(change: ValueChange) -> Callable[[str], list[str]]:
    """The tokenizer a change was read with: values() when a removed token holds a joining
    character, else tokens()."""
    whole = any(c in VALUE_JOINS for token in change.removed for c in token)
    return values if whole else tokens


def _is_value(token: str) -> bool:
    """Not a stopword, and three characters or more ("pnpm", "v0.8") or two with a digit."""
    return token not in STOPWORDS and (
        len(token) >= 3 or (len(token) == 2 and any(c.isdigit() for c in token))
    )


def value_changes(old: str, new: str) -> list[ValueChange]:
    """The values an edit of old into new replaced in place, read at both grains (tokens(),
    then values()): each run of at most SPAN tokens replaced by another such run, the removed
    side kept to values no longer in the new text."""
    from difflib import SequenceMatcher

    changes: list[ValueChange] = []
    for split in (tokens, values):
        before, after = split(old), split(new)
        left, right = set(before), set(after)
        matcher = SequenceMatcher(None, before, after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace" or i2 - i1 > SPAN or j2 - j1 > SPAN:
                continue
            removed = frozenset(t for t in before[i1:i2] if t not in right and _is_value(t))
            added = frozenset(t for t in after[j1:j2] if t not in left)
            change = ValueChange(removed, added)
            if removed and added and change not in changes:
                changes.append(change)
    return changes


def changes_of(replaced: Iterable[tuple[str, str]]) -> list[ValueChange]:
    return [change for old, new in replaced for change in value_changes(old, new)]


def outdated_by(text: str, kind: str, change: ValueChange) -> bool:
    """Whether a statement names a value the change removed, none it added, and not in the
    negative (cms.language.subject.values_of marks a negative statement "not"); a bugfix (a
    cause or fix, a passage read as one) stays: it tells why the code was changed."""
    from cms.excerpt import sentences
    from cms.language.factkinds import kind_of_fact
    from cms.language.subject import values_of
    from cms.observations.facts import PASSAGE

    split = _grain(change)
    words = set(split(text))
    if not words & change.removed or words & change.added or "not" in values_of(text):
        return False
    if any(any(c.isdigit() for c in w) for w in words - change.removed):
        return False  # another number or version: the statement is about more than this value
    if any(not set(split(part)) & change.removed for part in sentences(text)):
        return False  # a sentence of it says something else
    return (kind_of_fact(text) if kind == PASSAGE else kind) != "bugfix"


def record_changes(
    conn: sqlite3.Connection,
    changes: Sequence[ValueChange],
    *,
    branch: str | None,
    session: str,
    turn: int,
    now: float,
) -> None:
    """Keep a turn's value changes (in place of those it had: a turn read again is one turn), so
    that a rebuilt index marks again what they outdated."""
    conn.execute("DELETE FROM value_changes WHERE session = ? AND turn = ?", (session, turn))
    conn.executemany(
        "INSERT INTO value_changes (session, turn, removed, added, branch, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (session, turn, " ".join(sorted(c.removed)), " ".join(sorted(c.added)), branch, now)
            for c in changes
        ],
    )


def recorded_changes(
    conn: sqlite3.Connection,
) -> list[tuple[str, int, str | None, list[ValueChange]]]:
    """(session, turn, branch, changes) of every turn that recorded some, oldest first."""
    found: dict[tuple[str, int, str | None], list[ValueChange]] = {}
    for session, turn, removed, added, branch in conn.execute(
        "SELECT session, turn, removed, added, branch FROM value_changes ORDER BY id"
    ):
        change = ValueChange(frozenset(removed.split()), frozenset(added.split()))
        found.setdefault((session, turn, branch), []).append(change)
    return [(s, t, b, changes) for (s, t, b), changes in found.items()]


def replaced_since(
    store: ObservationStore, text: str, said: float, session: str | None, turn: int | None
) -> bool:
    """Whether text, said at `said` (in that chat's turn), names a value an edit recorded later
    replaced, and none that edit put in its place: what it says of that value no longer holds.
    A read for the prompt hook, without the guards of outdated_by."""
    words = set(tokens(text)) | set(values(text))

    def run(conn: sqlite3.Connection) -> bool:
        for removed, added, where, when in conn.execute(
            "SELECT removed, added, session, turn FROM value_changes WHERE created_at >= ?",
            (said,),
        ):
            if where == session and turn is not None and when <= turn:
                continue  # the chat's own earlier or same turn: said after the edit
            if words & set(removed.split()) and not words & set(added.split()):
                return True
        return False

    return bool(store.read(run))


def _phrase(token: str) -> str:
    return '"' + token.replace('"', "") + '"'


def outdated_items(
    conn: sqlite3.Connection,
    changes: Sequence[ValueChange],
    *,
    branch: str | None,
    session: str,
    turn: int,
) -> list[str]:
    """Keys (as retire_items takes them: "<session>/<fact id>", "O<id>") of the facts, passages
    and observations in force that the changes made outdated: said before this turn of this
    session, on this branch or none (another branch's are its own)."""
    keys: list[str] = []
    for change in changes:
        for value in sorted(change.removed):
            rows = conn.execute(
                "SELECT f.session, f.fact_id, f.text, f.kind FROM facts f JOIN (SELECT rowid AS id FROM "
                "facts_fts WHERE facts_fts MATCH ? ORDER BY rowid DESC LIMIT ?) hits ON hits.id = f.id "
                "WHERE f.superseded_by IS NULL AND (f.branch IS NULL OR ? IS NULL OR f.branch = ?) "
                "AND NOT (f.session = ? AND f.turn >= ?)",
                ("text: " + _phrase(value), FOUND_PER_VALUE, branch, branch, session, turn),
            ).fetchall()
            keys += [f"{s}/{fid}" for s, fid, text, kind in rows if outdated_by(text, kind, change)]
            rows = conn.execute(
                "SELECT o.id, o.body, o.kind FROM observations o JOIN (SELECT rowid AS id FROM "
                "observations_fts WHERE observations_fts MATCH ? ORDER BY rowid DESC LIMIT ?) hits ON hits.id = o.id "
                "WHERE o.superseded_by IS NULL AND o.archived_at IS NULL "
                "AND (o.branch IS NULL OR ? IS NULL OR o.branch = ?) "
                "AND NOT (coalesce(o.session, '') = ? AND coalesce(o.turn, 0) >= ?)",
                ("body: " + _phrase(value), FOUND_PER_VALUE, branch, branch, session, turn),
            ).fetchall()
            keys += [f"O{oid}" for oid, body, kind in rows if outdated_by(body, kind, change)]
    return list(dict.fromkeys(keys))
