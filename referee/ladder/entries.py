"""Which store entry each of the config's bots plays as: its current entry when its
identity (:mod:`.identity`) is the same, a first entry for a new name, and for a changed
identity under a known name either a refusal (``on_change: refuse``) or a new entry
(``new-entry``: ``NAME.v2``, ``NAME.v3`` ...; the old entry is retired, its games kept).

:func:`decide` is pure (the store's entries and the identities in, the actions out) so a
refusal comes before anything is written; :func:`apply` writes the new entries."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.errors import ResultsError
from referee.ladder.config import LadderConfig, OnChange
from referee.ladder.identity import Identity
from referee.ladder.store import Entry, LadderStore
from referee.tournament.config.checks import MAX_NAME_LENGTH


@dataclass(frozen=True)
class Action:
    """``entry``: the entry the bot plays as (None: a new one, ``label``); ``retire``: the
    entry the new one replaces; ``words``: what the run says about it (or None)."""

    name: str
    label: str
    entry: Entry | None
    retire: Entry | None = None
    words: str | None = None


def current_entries(entries: Sequence[Entry]) -> dict[str, Entry]:
    """Each name's entry that is not retired (the latest, should there be several)."""
    return {e.name: e for e in entries if e.retired is None}


def _next_label(name: str, taken: set[str]) -> str:
    base = name[: MAX_NAME_LENGTH - 5]
    n = 2
    while f"{base}.v{n}" in taken:
        n += 1
    return f"{base}.v{n}"


def decide(
    config: LadderConfig, entries: Sequence[Entry], identities: Mapping[str, Identity]
) -> list[Action]:
    """The action for each bot of the config (config order); a ResultsError naming every
    refused bot, what changed and what to do, when a changed identity is refused."""
    current = current_entries(entries)
    taken = {e.label for e in entries}
    owner = {e.label: e.name for e in entries}
    actions: list[Action] = []
    refused: list[str] = []
    for bot in config.bots:
        identity = identities[bot.name]
        entry = current.get(bot.name)
        if entry is None:
            if bot.name in taken and owner[bot.name] != bot.name:
                refused.append(
                    f"bot {bot.name}: the name is an entry of {owner[bot.name]} already; rename it"
                )
                continue
            label = bot.name if bot.name not in taken else _next_label(bot.name, taken)
            taken.add(label)
            actions.append(Action(bot.name, label, None, words=f"new entry {label}"))
            continue
        known = Identity(entry.fingerprint, entry.protocol_name, entry.version)
        changes = identity.differs(known)
        if not changes:
            actions.append(Action(bot.name, entry.label, entry))
        elif bot.on_change is OnChange.NEW_ENTRY:
            label = _next_label(bot.name, taken)
            taken.add(label)
            actions.append(
                Action(
                    bot.name,
                    label,
                    None,
                    retire=entry,
                    words=f"{bot.name} changed ({'; '.join(changes)}): new entry {label}; "
                    f"{entry.label} is retired with its games",
                )
            )
        else:
            refused.append(
                f"bot {bot.name}: {'; '.join(changes)} changed since entry {entry.label} was registered "
                f"({entry.registered}). A bot's strength must not change under one name: give the new "
                "program another name, restore the old one, or set `on_change: new-entry` (the old entry "
                "is then retired, its games kept)"
            )
    if refused:
        raise ResultsError("refused:\n  " + "\n  ".join(refused))
    return actions


def apply(
    store: LadderStore, config: LadderConfig, actions: Sequence[Action], identities: Mapping[str, Identity]
) -> dict[str, Entry]:
    """Write the new entries (each with its retirement) and the protocol answers learnt;
    the entry of each bot by its config name."""
    out: dict[str, Entry] = {}
    for action in actions:
        identity = identities[action.name]
        entry = action.entry
        if entry is None:
            command = shlex.join(config.games.bot(action.name).command)
            entry = store.register(
                action.label,
                action.name,
                identity.fingerprint,
                command,
                retire=None if action.retire is None else action.retire.id,
            )
        if identity.version is not None and (entry.version, entry.protocol_name) != (
            identity.version,
            identity.protocol_name,
        ):
            store.learn(entry.id, identity.protocol_name, identity.version)
        out[action.name] = entry
    return out


__all__ = ["Action", "apply", "current_entries", "decide"]
