"""The argument types of the MCP tools: what the JSON schemas the model sees say of each argument.

The only module that imports pydantic (Field carries the limits and the descriptions). Types
only: no tool logic, no mcp.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

Kind = Literal["decision", "learning", "bugfix", "command", "file_summary", "preference", "other"]

Query = Annotated[str, Field(min_length=1, description="Words describing what to look for.")]
Session = Annotated[
    str | None,
    Field(description="Chat (session) id whose map to read; omit to use the chat updated last."),
]
Cwd = Annotated[
    str | None,
    Field(
        description="A folder inside the project whose observations to use; omit to use the "
        "folder the server was started in."
    ),
]
Count = Annotated[int, Field(ge=1, le=50, description="At most this many results.")]
ItemIds = Annotated[
    list[str],
    Field(min_length=1, max_length=20, description="Ids as shown: O12, 1a2b3c4d/F7, U3."),
]
ObservationId = Annotated[int, Field(ge=1, description="The observation's id (#N in recall).")]
ReplacedId = Annotated[int, Field(ge=1, description="The id of the observation replaced.")]
Title = Annotated[
    str, Field(min_length=1, max_length=200, description="One line naming the observation.")
]
Body = Annotated[str, Field(max_length=4000, description="The details, a few sentences.")]
Files = Annotated[
    list[str] | None, Field(description="Paths of the files it is about, relative to the repo.")
]
Importance = Annotated[
    int, Field(ge=1, le=5, description="1 (trivia) to 5 (must never be forgotten); 3 is usual.")
]
KindArg = Annotated[
    Kind,
    Field(
        description="decision (a choice made and why), learning (how something works), bugfix "
        "(a cause and its fix), command (how to build, test or run), file_summary (what a file "
        "does), preference (how the user wants things done), other."
    ),
]
KindsFilter = Annotated[list[Kind] | None, Field(description="Only these kinds; omit for all.")]
Branch = Annotated[
    str | None,
    Field(
        description="Recall as seen from this git branch instead of the current one "
        "(observations of unmerged other branches stay hidden)."
    ),
]

# The fields of update: each optional, absent meaning "leave as it is".
NewKind = Annotated[Kind | None, Field(description="A new kind.")]
NewTitle = Annotated[str | None, Field(min_length=1, max_length=200, description="A new title.")]
NewBody = Annotated[str | None, Field(max_length=4000, description="A new body.")]
NewImportance = Annotated[int | None, Field(ge=1, le=5, description="A new importance, 1 to 5.")]
