"""Which ranked hits become result lines: each thing said once, and the newest statement of a
subject before the older ones, which are marked as history; an observation whose files changed
since is marked so. Knows nothing of hooks or of typer.
"""

from __future__ import annotations

from cms.language.kinds import STANDING_KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.observations.access import ProjectMemory
    from cms.search.project import MemoryHit

SHOWN_SHARE = 0.8  # of a passage's words a better hit already shows, to leave the passage out
CLOSE_SHARE = 0.5  # of the best hit's relevance a hit needs to be ordered by time among the best


def each_said_once(hits: list[MemoryHit]) -> list[MemoryHit]:
    """Each result line says something the others do not. A passage is left out when one
    better hit already holds SHOWN_SHARE of its words (a to-do list written again with new
    statuses, a line quoted again in a later turn). A fact (not a standing rule) whose passage,
    the sentence of its own chat it was made of, is among the hits (it holds SHOWN_SHARE of the
    fact's words) stays the line, verbatim with its id, and that passage becomes its context
    when it says more (printed under it, once); such a fact is left out when a better line
    already holds SHOWN_SHARE of its words. Rules in force and observations always stay."""
    if not any(hit.is_passage for hit in hits):
        return hits  # the prompt hook's items: nothing to weigh (nor any pattern to compile)
    from cms.observations.matching import content_words

    words = [set(content_words(hit.text)) for hit in hits]
    foldable = [not h.is_passage and h.kind not in STANDING_KINDS for h in hits]
    done: set[int] = set()  # passages shown, or given to a fact as its context
    kept: list[MemoryHit] = []
    shown: list[set[str]] = []
    for n, hit in enumerate(hits):
        if n in done:
            continue
        source = None  # the passage the fact was made of, when it is among the hits
        if foldable[n]:
            source = next(
                (
                    m
                    for m in range(len(hits))
                    if m not in done
                    and hits[m].is_passage
                    and hits[m].chat == hit.chat
                    and len(words[n] & words[m]) >= SHOWN_SHARE * len(words[n])
                ),
                None,
            )
        if (hit.is_passage or foldable[n]) and any(
            len(words[n] & s) >= SHOWN_SHARE * len(words[n]) for s in shown
        ):
            continue
        said = set(words[n])
        if source is not None:
            done.add(source)
            if words[source] - words[n]:
                hit.context = hits[source].text
                said |= words[source]
        done.add(n)
        kept.append(hit)
        shown.append(said)
    return kept


def newest_first(hits: list[MemoryHit], query: str, history: bool) -> list[MemoryHit]:
    """With history (the search command), each hit a newer hit states the subject of
    (cms.language.newest, by stored meanings, the model loaded for items without one) moved
    right after that hit and marked. Without (the prompt hook), the hits as they are: measured
    on the decision-change scenarios, leaving such hits out of the injection hid the value in
    force more often than an outdated one (docs/benchmarks.md)."""
    if not history:
        return hits
    from cms.language.newest import history_of

    replaced = history_of(hits, query)
    if not replaced:
        return hits
    later: dict[int, list[MemoryHit]] = {}
    for old, new in replaced.items():
        hits[old].replaced_by = hits[new].id
        later.setdefault(new, []).append(hits[old])
    kept: list[MemoryHit] = []
    for n, hit in enumerate(hits):
        if n not in replaced:
            kept.append(hit)
            kept += later.get(n, [])
    return kept


def first_in_force(hits: list[MemoryHit], k: int) -> list[MemoryHit]:
    """The first k hits in force, each with the history lines listed under it (a history line
    takes no place of its own)."""
    taken = 0
    for n, hit in enumerate(hits):
        if not hit.replaced_by:
            if taken == k:
                return hits[:n]
            taken += 1
    return hits


def said_last_first(hits: list[MemoryHit]) -> list[MemoryHit]:
    """The hits in force (the k most relevant) in the order they were said, the last first,
    those at least CLOSE_SHARE as relevant as the best before the others, each with its
    history lines still under it: where two of them state one subject in words too unlike for
    newest_first to pair, the one in force is not printed below the one it replaced."""
    groups: list[list[MemoryHit]] = []
    for hit in hits:
        if hit.replaced_by and groups:
            groups[-1].append(hit)
        else:
            groups.append([hit])
    best = max((group[0].relevance for group in groups), default=0.0)
    groups.sort(
        key=lambda group: (group[0].relevance >= CLOSE_SHARE * best, group[0].said_at),
        reverse=True,
    )  # stable: ties by relevance
    return [hit for group in groups for hit in group]


def read_meanings(memory: ProjectMemory, hits: list[MemoryHit]) -> None:
    """Give the hits of this project their stored meanings (one read)."""
    from cms.observations.meanings import stored_meanings
    from cms.observations.vectors import key_number

    own = [h for h in hits if not h.personal]
    facts = {n: h for h in own if (n := key_number(h.vector, "F")) is not None}
    observations = {n: h for h in own if (n := key_number(h.vector, "O")) is not None}
    found_facts, found_observations = stored_meanings(memory.store, facts, observations)
    for table, found in ((facts, found_facts), (observations, found_observations)):
        for n, blob in found.items():
            table[n].stored_meaning = blob


def mark_files_moved_on(memory: ProjectMemory, hits: list[MemoryHit]) -> list[MemoryHit]:
    """The hits with each project observation whose named files changed or vanished since it
    was captured marked so (its line says it: the code may have moved on)."""
    from cms.observations.filestate import files_moved_on

    ours = [h for h in hits if h.id[:1] == "O" and not h.personal]
    moved = files_moved_on(memory.store, memory.project.root, [int(h.id[1:]) for h in ours])
    for hit in ours:
        hit.files_moved_on = moved.get(int(hit.id[1:]), "")
    return hits


def distinct_rules(rules: list[MemoryHit], held: dict[int, frozenset[str]]) -> list[MemoryHit]:
    """The rules, each restatement folded into the rule it restates: the same words of the
    asked subject and no value the other does not name ("I'll add the '@retry' decorator to
    my methods" and "Add the '@retry' decorator from 'pedantic' to all methods"). The richer
    of the two stays, in the place of the first: the rules listed are as many different ones."""
    from cms.language.subject import values_of

    kept: list[tuple[MemoryHit, frozenset[str]]] = []
    for rule in rules:
        values = values_of(rule.text)
        same = [
            n
            for n, (other, named) in enumerate(kept)
            if values
            and named
            and held[id(rule)] == held[id(other)]
            and (values <= named or named <= values)
        ]
        if not same:
            kept.append((rule, values))
        elif kept[same[0]][1] < values:  # the later one names more: it takes the place
            kept[same[0]] = (rule, values)
    return [rule for rule, _ in kept]
