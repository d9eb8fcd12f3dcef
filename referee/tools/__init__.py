"""Tools for bot authors: ``vastuz check`` (a protocol linter for a bot program) and
``vastuz show`` (a recorded game replayed as diagrams)."""
