"""Errors a turn can raise: unparseable text versus a well-formed turn against the rules.

The split follows python-chess (``InvalidMoveError`` vs ``IllegalMoveError``): a referee
reports both as an illegal turn, but a bot author debugging their bot wants to know which.
Both are ``ValueError``\\ s and part of the project's :class:`~referee.errors.VastuzError` tree.
"""

from __future__ import annotations

from referee.errors import VastuzError


class TurnError(VastuzError, ValueError):
    """Base class: this text is not a legal turn (or setup) in this position."""


class BadNotation(TurnError):
    """The text cannot be read as a turn: bad syntax, or a point that is not on this board."""


class IllegalTurn(TurnError):
    """A well-formed turn that the rules forbid here; the message says which rule and where."""
