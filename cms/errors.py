"""The exception hierarchy of cms.

Library code raises these; only entry points (CLI, hook runner, worker, MCP server) turn them
into exit codes, hook replies or tool errors. Each message is one line naming the problem.
"""


class CmsError(Exception):
    """Base of every error cms raises on purpose."""


class ConfigError(CmsError):
    """The configuration file is unreadable or holds a bad value."""


class MapError(CmsError):
    """A map file cannot be used."""


class MapNotFoundError(MapError):
    """No map exists at the given place."""


class CorruptMapError(MapError):
    """A map file is not valid JSON or does not have the map's shape."""


class MapVersionError(MapError):
    """A map file was written by a newer cms (future format version)."""


class OpsError(CmsError):
    """An ops answer cannot be read at all (not JSON, not an object)."""


class LockTimeoutError(CmsError):
    """A map's lock could not be taken in time."""


class TranscriptError(CmsError):
    """A transcript cannot be read."""


class ProviderError(CmsError):
    """A model call failed (network, timeout, bad answer, budget spent)."""


class BudgetExhaustedError(ProviderError):
    """The daily token budget is spent; model calls stop until tomorrow."""


class StoreError(CmsError):
    """The observation store cannot be used."""


class InstallError(CmsError):
    """Settings cannot be changed safely."""


class JobError(CmsError):
    """A queued job lacks what its kind needs."""


class TeamError(CmsError):
    """The team database cannot be reached or used (never names its password)."""
