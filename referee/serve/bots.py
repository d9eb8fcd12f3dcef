"""The bots a person may play: the definitions of a bots file (``--bots FILE``), nothing else.

A request names a bot by its name in that file; no request can name a command. The file
is validated as a tournament's ``bots_file`` is (every mistake named with its key).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.errors import ConfigError
from referee.play.command import BotCommand
from referee.play.sandbox import Sandbox
from referee.play.spec import TimeControl
from referee.tournament.config.loading import parse_yaml
from referee.tournament.config.reading import read_user_text
from referee.tournament.config.validation import ConfigParser

DEFAULT_BOT_CLOCK = TimeControl.fixed(1.0)
"""A bot's clock in a game against a person when its definition has none."""


@dataclass(frozen=True)
class ServedBot:
    """A bot a person may play: how to start it and its own clock."""

    command: BotCommand
    time_control: TimeControl
    startup_timeout: float | None = None
    startup_commands: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.command.label


def load_bots(path: Path) -> dict[str, ServedBot]:
    """The bots of the bots file at ``path``, by name. Raises :class:`ConfigError`."""
    shown = str(path)
    try:
        text = read_user_text(path, "bots")
    except FileNotFoundError:
        raise ConfigError("bots file not found", file=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the bots file: {exc}", file=shown) from None
    except ValueError as exc:
        raise ConfigError(str(exc), file=shown) from None
    content = parse_yaml(text, file=shown)
    if not isinstance(content, dict) or set(content) != {"bots"}:
        got = sorted(map(str, content)) if isinstance(content, dict) else type(content).__name__
        raise ConfigError(f"expected a mapping with one key, bots (a list of bots), got {got}", file=shown)
    specs = ConfigParser(shown, path.resolve().parent, True).bots(content["bots"], minimum=1)
    return {
        spec.name: ServedBot(
            BotCommand(
                spec.command,
                spec.name,
                spec.cwd,
                dict(spec.env),
                spec.limits,
                Sandbox() if spec.sandbox else None,
            ),
            spec.time_control or DEFAULT_BOT_CLOCK,
            spec.startup_timeout,
            spec.startup_commands,
        )
        for spec in specs
    }
