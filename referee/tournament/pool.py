"""Bot processes kept between the games of a tournament.

A healthy bot is reused for its next game (``boardsize`` + ``clear_board`` reset it), so
a tournament does not pay a start-up per game and seeded bots do not replay one game; any
fault retires the process and the next game starts a fresh one.
"""

from __future__ import annotations

from pathlib import Path

import trio

from referee.play.process import BotCommand, BotProcess
from referee.tournament.config import TournamentConfig


class BotPool:
    """Bot processes by bot name: idle ones waiting for their next game, and all live ones.

    Every process is started in ``nursery`` (its reader and stderr tasks live there) and
    is closed by :meth:`release` or :meth:`aclose` before that nursery ends.
    """

    def __init__(
        self, config: TournamentConfig, nursery: trio.Nursery, log_dir: Path, transcripts: bool
    ) -> None:
        self.config = config
        self.nursery = nursery
        self.log_dir = log_dir
        self.transcripts = transcripts
        self.idle: dict[str, list[BotProcess]] = {name: [] for name in config.bot_names}
        self.live: set[BotProcess] = set()
        self.started = 0

    def take(self, name: str, game_id: str, seat: int) -> BotProcess:
        """An idle healthy process of bot ``name`` or a new (not yet started) one, logging
        to this game's files."""
        stem = f"{game_id}-{seat}-{name}"
        stderr_log = self.log_dir / f"{stem}.stderr.log"
        transcript = self.log_dir / f"{stem}.transcript.log" if self.transcripts else None
        while self.idle[name]:
            bot = self.idle[name].pop()
            if bot.reusable:
                bot.set_logs(stderr_log, transcript)
                return bot
            self.nursery.start_soon(self._close, bot)
        spec = self.config.bot(name)
        bot = BotCommand(spec.command, name, spec.cwd, dict(spec.env)).process(
            stderr_log=stderr_log, transcript=transcript, board_size=self.config.board_size
        )
        self.live.add(bot)
        self.started += 1
        return bot

    async def release(self, bot: BotProcess, keep: bool) -> None:
        """After a game: keep a healthy process for the next game, or close it."""
        if keep and bot.reusable:
            bot.set_logs(None, None)
            self.idle[bot.label].append(bot)
        else:
            await self._close(bot)

    async def _close(self, bot: BotProcess) -> None:
        try:
            await bot.aclose()
        finally:
            self.live.discard(bot)

    async def aclose(self) -> None:
        """Close every process, idle or not, concurrently (shielded)."""
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as closer:
                for bot in list(self.live):
                    closer.start_soon(self._close, bot)
            for name in self.idle:
                self.idle[name].clear()

    def kill_all(self) -> None:
        """SIGKILL every live process group now (the second Ctrl-C)."""
        for bot in list(self.live):
            bot.kill()
