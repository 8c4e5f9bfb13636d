"""The HTML of `cms ui`: one function per page, from the catalog's read-only views to a string.

Every value from memory is escaped here (stored text is data, never markup); every link carries
the access token. Knows nothing of HTTP; no scripts, one inline style sheet.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from cms.map.model import CorrelationMap
from cms.observations.ids import chat_tag
from cms.observations.model import Observation
from cms.observations.recall import format_age
from cms.search.project import MemoryHit
from cms.task.model import CurrentTask
from cms.ui.catalog import ChatInfo, ChatView, Injection, ProjectInfo, ProjectMemoryView

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 24px}header a{color:#fff;text-decoration:none}
main{max-width:1100px;margin:0 auto;padding:8px 24px 40px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px;margin:14px 0 4px}
table{border-collapse:collapse;width:100%;background:#fff}
td,th{border-bottom:1px solid #e3e6ea;padding:5px 8px;text-align:left;vertical-align:top}
th{font-weight:600;background:#eef0f3}.num{text-align:right}.muted{color:#6b7280}
.id{font-family:ui-monospace,monospace;font-size:13px;color:#374151;white-space:nowrap}
.archived,.archived *{color:#9ca3af}.tag{font-size:12px;background:#e5e7eb;border-radius:4px;
padding:1px 6px;margin-left:4px}.was{color:#6b7280;margin-left:18px}
ul.facts{list-style:none;padding-left:18px;margin:4px 0}ul.facts li{margin:2px 0}
details{background:#fff;border:1px solid #e3e6ea;border-radius:6px;padding:6px 10px;margin:6px 0}
summary{cursor:pointer;font-weight:600}form{margin:10px 0}
input[type=search]{width:60%;padding:6px 8px;font-size:15px}button{padding:6px 14px}
.box{background:#fff;border:1px solid #e3e6ea;border-radius:6px;padding:8px 12px}
table.observations{table-layout:fixed}.observations th:nth-child(1){width:56px}
.observations th:nth-child(3){width:130px}.observations th:nth-child(4){width:100px}
.observations th:nth-child(5){width:110px}
pre.injected{white-space:pre-wrap;font-size:13px;margin:6px 0 0;max-height:480px;overflow:auto}
"""


def href(path: str, token: str, **params: str) -> str:
    """A link inside the ui: path, the token and params, escaped for an attribute."""
    return escape(f"{path}?{urlencode({'token': token, **params})}")


def _stamp(iso: str) -> str:
    """2026-12-01T19:03:04Z -> 2026-12-01 19:03 (UTC)."""
    return escape(iso[:16].replace("T", " ")) if iso else "-"


def _when(seconds: float) -> str:
    return escape(time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)))


def page(title: str, body: str, token: str, editable: bool = False) -> str:
    home = href("/", token)
    mode = "editing enabled" if editable else "read-only"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)} - cms</title><style>{STYLE}</style></head><body>"
        f'<header><a href="{home}"><b>cms</b> memory</a> <span class=muted>({mode})</span>'
        f"</header><main>{body}</main></body></html>"
    )


def _project_link(project_id: str, token: str) -> str:
    return f'<a href="{href("/project/" + quote(project_id, safe=""), token)}">{escape(project_id)}</a>'


def _chat_link(session: str, token: str, text: str | None = None) -> str:
    label = escape(text if text is not None else session)
    return f'<a href="{href("/chat/" + quote(session, safe=""), token)}">{label}</a>'


def usage_chart(days: Sequence[dict[str, Any]]) -> str:
    """Tokens per day as an inline SVG bar chart (input and output stacked)."""
    if not days:
        return "<p class=muted>No model calls recorded yet (the local extractor spends none).</p>"
    width, height, gap = 28, 120, 6
    top = max(int(d["input_tokens"]) + int(d["output_tokens"]) for d in days) or 1
    bars = []
    for n, day in enumerate(days):
        x = n * (width + gap) + 40
        inp = int(day["input_tokens"]) * height / top
        out = int(day["output_tokens"]) * height / top
        total = int(day["input_tokens"]) + int(day["output_tokens"])
        label = f"{day['day']}: {total:,} tokens in {day['calls']} calls"
        bars.append(
            f"<g class=bar><title>{escape(label)}</title>"
            f'<rect x="{x}" y="{10 + height - inp - out:.1f}" width="{width}" height="{out:.1f}" fill="#f59e0b"/>'
            f'<rect x="{x}" y="{10 + height - inp:.1f}" width="{width}" height="{inp:.1f}" fill="#3b82f6"/>'
            f'<text x="{x + width / 2}" y="{height + 26}" font-size="10" text-anchor="middle">'
            f"{escape(str(day['day'])[5:])}</text></g>"
        )
    span = 40 + len(days) * (width + gap)
    return (
        f'<svg id=usage role=img width="{span}" height="{height + 34}" '
        f'aria-label="tokens per day">'
        f'<text x="0" y="18" font-size="11">{top:,}</text>'
        f'<text x="0" y="{height + 10}" font-size="11">0</text>{"".join(bars)}</svg>'
        '<p class=muted><span style="color:#3b82f6">&#9632;</span> input '
        '<span style="color:#f59e0b">&#9632;</span> output tokens per day (UTC)</p>'
    )


def home_page(
    projects: Sequence[ProjectInfo],
    usage: Sequence[dict[str, Any]],
    token: str,
    context: Sequence[dict[str, Any]] = (),
) -> str:
    rows = "".join(
        f"<tr><td>{_project_link(p.id, token)}</td><td>{escape(p.folder) or '-'}</td>"
        f"<td class=num>{len(p.chats)}</td><td>{'yes' if p.has_store else 'no'}</td>"
        f"<td>{_stamp(p.updated_at)}</td></tr>"
        for p in projects
    )
    table = (
        "<table id=projects><tr><th>Project</th><th>Folder</th><th class=num>Chats</th>"
        f"<th>Observation store</th><th>Last active</th></tr>{rows}</table>"
        if projects
        else "<p class=muted>No memory yet: chats appear here once a hook has run.</p>"
    )
    return page(
        "Projects",
        f"<h1>Projects</h1>{table}<h2>Memory in context per day</h2>"
        f"{context_table(context, usage)}<h2>Token usage per day</h2>{usage_chart(usage)}",
        token,
    )


def context_table(context: Sequence[dict[str, Any]], usage: Sequence[dict[str, Any]]) -> str:
    """Per UTC day: the characters the hooks injected (in all and per chat, by its short id),
    how many injections, and the model tokens spent that day beside them."""
    if not context:
        return "<p class=muted>Nothing injected yet.</p>"
    tokens = {str(d["day"]): int(d["input_tokens"]) + int(d["output_tokens"]) for d in usage}
    rows = "".join(
        f"<tr><td>{escape(str(d['day']))}</td><td class=num>{int(d['chars']):,}</td>"
        f"<td class=num>{int(d['injections']):,}</td><td class=id>"
        + escape(", ".join(f"{tag} {chars:,}" for tag, chars in sorted(d["chats"].items())))
        + f"</td><td class=num>{tokens.get(str(d['day']), 0):,}</td></tr>"
        for d in context
    )
    return (
        "<table id=context><tr><th>Day (UTC)</th><th class=num>Characters injected</th>"
        "<th class=num>Injections</th><th>Per chat (characters)</th>"
        f"<th class=num>Model tokens</th></tr>{rows}</table>"
    )


def _chat_rows(chats: Sequence[ChatInfo], token: str) -> str:
    rows = "".join(
        f"<tr><td>{_chat_link(c.session, token, c.first_prompt or c.session)}"
        f"<div class='id muted'>chat {chat_tag(c.session)}</div></td><td>{_stamp(c.created_at)}</td>"
        f"<td>{_stamp(c.updated_at)}</td><td class=num>{c.subtopics}</td>"
        f"<td class=num>{c.facts}</td><td class=num>{c.map_bytes:,}</td>"
        f"<td class=num>{c.injections}</td></tr>"
        for c in chats
    )
    return (
        "<table id=chats><tr><th>Chat (first prompt)</th><th>Started</th><th>Last active</th>"
        "<th class=num>Subtopics</th><th class=num>Facts</th><th class=num>Map bytes</th>"
        f"<th class=num>Injections</th></tr>{rows}</table>"
    )


def _edit_link(project: str, obs_id: int, token: str, editable: bool) -> str:
    if not editable:
        return ""
    path = f"/project/{quote(project, safe='')}/item/{obs_id}"
    return f' <a class=edit href="{href(path, token)}">edit</a>'


def _observation_row(obs: Observation, now: float, edit: str = "") -> str:
    body = f"<div>{escape(obs.body)}</div>" if obs.body and obs.body != obs.title else ""
    files = f"<div class=muted>files: {escape(', '.join(obs.files))}</div>" if obs.files else ""
    return (
        f"<tr><td class=id>O{obs.id}{edit}</td><td><b>{escape(obs.title)}</b>{body}{files}</td>"
        f"<td>{escape(obs.branch or '-')}</td><td class=num>{obs.importance}</td>"
        f"<td>{escape(format_age(now - obs.updated_at))}</td></tr>"
    )


def _memory_sections(
    view: ProjectMemoryView, token: str, project: str = "", editable: bool = False
) -> str:
    now = time.time()
    rules = "".join(
        f"<li><span class=id>O{r.observation.id}</span>"
        f"{_edit_link(project, r.observation.id, token, editable)} "
        f"<span class=tag>{escape(r.observation.kind)}</span> "
        f"{escape(r.observation.title)}"
        + (f" &mdash; {escape(r.observation.body)}" if r.observation.body else "")
        + "".join(
            f"<div class=was>replaced <span class=id>O{o.id}</span> "
            f"({_when(o.updated_at)}): {escape(o.title)}"
            + (f" &mdash; {escape(o.body)}" if o.body else "")
            + "</div>"
            for o in r.replaced
        )
        + "</li>"
        for r in view.in_force
    )
    in_force = (
        f"<ul id=in-force class=facts>{rules}</ul>"
        if rules
        else "<p class=muted>No preference or decision in force yet.</p>"
    )
    kinds = "".join(
        f"<h3>{escape(kind)} ({view.live.get(kind, len(items))})</h3>"
        + (
            f"<p class=muted>The newest {len(items)} of {view.live[kind]}; search finds the "
            "others.</p>"
            if view.live.get(kind, 0) > len(items)
            else ""
        )
        + "<table class=observations><tr><th>Id</th><th>Observation</th><th>Branch</th>"
        "<th class=num>Importance</th><th>Updated</th></tr>"
        + "".join(
            _observation_row(o, now, _edit_link(project, o.id, token, editable)) for o in items
        )
        + "</table>"
        for kind, items in view.by_kind.items()
    )
    return (
        f"<h2>In force</h2>{in_force}"
        f"<h2>Observations</h2><p class=muted>{view.facts} chat facts indexed; "
        f"{view.superseded} superseded and {view.archived} archived observations kept as "
        f"history.</p>{kinds or '<p class=muted>No observations yet.</p>'}"
    )


def search_results(query: str, hits: Sequence[MemoryHit], token: str) -> str:
    if not query:
        return ""
    if not hits:
        return f"<p id=results class=muted>No stored fact or observation matches {escape(query)!r}.</p>"
    now = time.time()
    rows = "".join(
        f"<tr><td class=id>{escape(h.id)}</td><td>{escape(h.label)}</td>"
        f"<td>{_chat_link(h.chat, token) if h.chat else '-'}</td>"
        f"<td>{escape(format_age(now - h.updated_at))}</td><td class=hit>{escape(h.text)}</td></tr>"
        for h in hits
    )
    return (
        "<table id=results><tr><th>Id</th><th>Topic or kind</th><th>Chat</th><th>Age</th>"
        f"<th>Stored text (verbatim)</th></tr>{rows}</table>"
    )


def project_page(
    project: ProjectInfo,
    view: ProjectMemoryView | None,
    query: str,
    hits: Sequence[MemoryHit],
    token: str,
    editable: bool = False,
) -> str:
    action = escape("/project/" + quote(project.id, safe=""))
    form = (
        f'<form id=search action="{action}" method=get>'
        f'<input type=hidden name=token value="{escape(token)}">'
        f'<input type=search name=q value="{escape(query)}" placeholder="Search this project\'s memory">'
        " <button type=submit>Search</button></form>"
    )
    memory = (
        _memory_sections(view, token, project.id, editable)
        if view is not None
        else "<p class=muted>This project has no observation store yet.</p>"
    )
    folder = f"<p class=muted>{escape(project.folder)}</p>" if project.folder else ""
    return page(
        project.id,
        f"<h1>{escape(project.id)}</h1>{folder}{form}{search_results(query, hits, token)}"
        f"<h2>Chats</h2>{_chat_rows(project.chats, token)}{memory}",
        token,
        editable,
    )


def item_page(project: ProjectInfo, obs: Observation, token: str, csrf: str) -> str:
    """`cms ui --edit`: correct an observation (a new version; the old one kept as history) or
    forget it, each a form that carries the CSRF token; forgetting asks to confirm."""
    base = f"/project/{quote(project.id, safe='')}/item/{obs.id}"
    hidden = f'<input type=hidden name=csrf value="{escape(csrf)}">'
    state = (
        f"<p class=muted>Superseded by O{obs.superseded_by}: correct that one instead.</p>"
        if obs.superseded_by is not None
        else ""
    )
    correct = (
        f'<form id=correct method=post action="{href(base + "/correct", token)}">{hidden}'
        f'<p><label>Title<br><input name=title size=90 maxlength=200 value="{escape(obs.title)}">'
        f"</label></p><p><label>Text<br><textarea name=body rows=6 cols=90 maxlength=4000>"
        f"{escape(obs.body)}</textarea></label></p>"
        "<button type=submit>Store the correction</button> <span class=muted>a new version "
        "replaces this one, which is kept as history (corrected by the user)</span></form>"
    )
    forget = (
        f'<form id=forget method=post action="{href(base + "/forget", token)}">{hidden}'
        "<label><input type=checkbox name=confirm value=yes required> Yes, delete "
        f"O{obs.id} for good</label> <button type=submit>Forget</button></form>"
    )
    back = href(f"/project/{quote(project.id, safe='')}", token)
    return page(
        f"O{obs.id}",
        f"<h1>O{obs.id} <span class=tag>{escape(obs.kind)}</span></h1>"
        f'<p><a href="{back}">{escape(project.id)}</a></p>{state}'
        f"<h2>Correct</h2>{correct}<h2>Forget</h2>{forget}",
        token,
        editable=True,
    )


def _replaced_by(newer: str) -> str:
    return f" <span class=tag>superseded{' by ' + escape(newer) if newer else ''}</span>"


def map_tree(cmap: CorrelationMap, superseded: Mapping[str, str] | None = None) -> str:
    """Topics, subtopics with mass, facts with id, time and turn; archived subtopics and facts
    a later statement superseded greyed."""
    superseded = superseded or {}
    parts = []
    for sun_title, planet, archived in cmap.all_planets():
        facts = "".join(
            f"<li{' class=archived' if s.id in superseded else ''}><span class=id>"
            f"{escape(s.id)}</span> {escape(s.text)} "
            f"<span class=muted>(turn {s.turn}, {_stamp(s.updated_at)})</span>"
            + (_replaced_by(superseded[s.id]) if s.id in superseded else "")
            + "</li>"
            for s in planet.satellites
        )
        mark = " <span class=tag>archived</span>" if archived else ""
        parts.append(
            f"<details open class='planet{' archived' if archived else ''}'><summary>"
            f"{escape(sun_title)} &rsaquo; {escape(planet.title)} <span class=id>{escape(planet.id)}</span>"
            f" <span class=muted>(mass {planet.mass}, {len(planet.satellites)} facts)</span>{mark}"
            f"</summary><ul class=facts>{facts}</ul></details>"
        )
    return "".join(parts) or "<p class=muted>The map is empty.</p>"


def chat_page(chat: ChatView, token: str) -> str:
    info = chat.info
    project = _project_link(info.project, token) if info.project else "no project yet"
    latest = (
        f"<h2>Latest request</h2><div id=latest class=box>{escape(chat.latest_prompt)}</div>"
        if chat.latest_prompt
        else ""
    )
    if chat.cmap is not None:
        tree = map_tree(chat.cmap, chat.superseded)
    elif info.problem:
        tree = f"<p class=muted>The map could not be read: {escape(info.problem)}</p>"
    else:
        tree = "<p class=muted>No map yet.</p>"
    log = "".join(_injection_row(i) for i in chat.injections)
    injections = (
        "<table id=injections><tr><th>When (UTC)</th><th>Hook</th><th class=num>Characters</th>"
        f"<th>Items shown</th></tr>{log}</table>"
        if log
        else "<p class=muted>Nothing injected yet.</p>"
    )
    title = info.first_prompt or info.session
    return page(
        title,
        f"<h1>{escape(title)}</h1><p class=muted>chat <span class=id>{chat_tag(info.session)}"
        f"</span> &middot; project {project} &middot; started {_stamp(info.created_at)} &middot; "
        f"{info.subtopics} subtopics, {info.facts} facts &middot; <span class=id "
        f'title="the agent\'s session id, for --session">session {escape(info.session)}</span>'
        f"</p>{task_box(chat.task)}{latest}"
        f"<h2>Map</h2>{tree}<h2>Injected into this chat</h2>{injections}",
        token,
    )


def task_box(task: CurrentTask | None) -> str:
    """The chat's current task as `cms show` prints it first: goal, next steps, done."""
    if task is None or task.is_empty():
        return ""

    def items(title: str, lines: Sequence[str]) -> str:
        rows = "".join(f"<li>{escape(line)}</li>" for line in lines)
        return f"<h3>{title}</h3><ul>{rows}</ul>" if rows else ""

    goal = f"<p><b>Goal:</b> {escape(task.goal)}</p>" if task.goal else ""
    earlier = (
        f"<p class=muted>Earlier goal: {escape(task.previous_goal)}</p>"
        if task.previous_goal
        else ""
    )
    return (
        f"<h2>Current task</h2><div id=task class=box>{goal}{items('Refined', task.refined)}"
        f"{items('Next', task.next)}{items('Done', task.done)}{earlier}</div>"
    )


def _injection_row(injection: Injection) -> str:
    """One injection: when, which hook, its size and its items, expandable to its text."""
    ids = escape(" ".join(injection.ids))
    shown = (
        f"<details><summary class=id>{ids or 'what was injected'}</summary>"
        f"<pre class=injected>{escape(injection.text)}</pre></details>"
        if injection.text
        else ids or "-"
    )
    return (
        f"<tr><td>{_when(injection.at)}</td><td>{escape(injection.event)}</td>"
        f"<td class=num>{injection.chars:,}</td><td class=id>{shown}</td></tr>"
    )


def message_page(title: str, text: str, token: str) -> str:
    return page(title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>", token)
