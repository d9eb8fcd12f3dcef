"""Pure scheduling: which bots meet, who starts, on which opening, in which order.

No I/O and no randomness: the same config always gives the same list, so a resumed run can
match its recorded games to slots by their ids.

How a game is described (``ScheduledGame``): ``first`` and ``second`` are the two bots.
Their meaning depends on the opening mode:

* ``pie``: ``first`` makes the two-stone setup, ``second`` chooses a colour. Colours are
  not known before the game.
* ``empty``, ``book``, ``random``: ``first`` plays Black, ``second`` plays White (Black
  moves first); ``book`` and ``random`` games also carry the ``opening`` to set up.

Balance: games come in *couples* of two adjacent games between the same bots with the
roles swapped (same opening, when there is one). Both games of a couple share a
``pair_key``, so a report can score them together (pentanomial statistics). Every pair
plays ``games_per_pair / 2`` couples per round, so each bot plays each side of each
opening against each opponent equally.

Order: round by round; inside a round, couple ``j`` of every pair before couple ``j + 1``
of any pair, so a tournament stopped early still has every pair at (almost) the same
number of games. Round-robin pairs are listed in circle-method order (each bot at most once
per sweep), so early games also spread over all bots. Openings are dealt in schedule order,
one per couple, cycling through the list. Nothing in round ``r`` depends on the number of
rounds: adding rounds appends games and leaves existing slots unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.play.spec import Opening, OpeningKind
from referee.tournament.config.values import ScheduleKind, ScheduleSpec, TournamentConfig


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play. ``slot`` is a unique, stable id such as ``r1-random+greedy-03``
    (round, the pair as scheduled, game number within the pair in that round); ``+`` cannot
    occur in bot names, so the id is unambiguous and safe in file names. ``index`` is the
    position in the whole schedule (0-based)."""

    slot: str
    index: int
    round: int
    pair: tuple[str, str]
    game: int
    mode: OpeningKind
    first: str
    second: str
    pair_key: str
    opening: Opening | None = None

    @property
    def bots(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def black(self) -> str:
        """Black's bot; undefined for a pie game, where the chooser decides colours."""
        self._require_fixed_colours()
        return self.first

    @property
    def white(self) -> str:
        self._require_fixed_colours()
        return self.second

    @property
    def setup_maker(self) -> str:
        """The bot that places the pie-rule stones (pie games only)."""
        self._require_pie()
        return self.first

    @property
    def chooser(self) -> str:
        """The bot that chooses its colour after the setup (pie games only)."""
        self._require_pie()
        return self.second

    def _require_fixed_colours(self) -> None:
        if self.mode is OpeningKind.PIE:
            raise ValueError(f"{self.slot}: colours of a pie game are chosen during the game")

    def _require_pie(self) -> None:
        if self.mode is not OpeningKind.PIE:
            raise ValueError(f"{self.slot}: a {self.mode.value} game has no pie setup")


def build_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """The full schedule of a validated config."""
    return schedule_games(config.bot_names, config.schedule, config.opening.kind, config.opening.openings)


def pairings(names: Sequence[str], spec: ScheduleSpec) -> list[tuple[str, str]]:
    """The pairs that meet, in schedule order. A round-robin pair is written in config
    order; a gauntlet pair is ``(challenger, opponent)``."""
    if spec.kind is ScheduleKind.GAUNTLET:
        unknown = [c for c in spec.challengers if c not in names]
        if unknown:
            raise ValueError(f"challengers not among the bots: {unknown}")
        opponents = [n for n in names if n not in spec.challengers]
        # Opponent-major: after each sweep every challenger has met the same opponents.
        return [(c, o) for o in opponents for c in spec.challengers]
    return _circle_pairs(list(names))


def _circle_pairs(names: list[str]) -> list[tuple[str, str]]:
    """All pairs, sweep by sweep (the circle method): within a sweep no bot appears twice."""
    rank = {name: i for i, name in enumerate(names)}
    ring: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    size = len(ring)
    pairs: list[tuple[str, str]] = []
    for _ in range(size - 1):
        for i in range(size // 2):
            a, b = ring[i], ring[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if rank[a] < rank[b] else (b, a))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return pairs


def schedule_games(
    names: Sequence[str],
    spec: ScheduleSpec,
    mode: OpeningKind,
    openings: Sequence[Opening] = (),
) -> list[ScheduledGame]:
    """The schedule from its pieces (see the module docstring for the guarantees)."""
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError("need at least two bots with distinct names")
    if spec.games_per_pair < 2 or spec.games_per_pair % 2:
        raise ValueError("games_per_pair must be a positive even number")
    fixed = mode in (OpeningKind.BOOK, OpeningKind.RANDOM)
    if fixed and not openings:
        raise ValueError(f"a {mode.value} schedule needs at least one opening")
    pairs = pairings(names, spec)
    couples = spec.games_per_pair // 2
    games: list[ScheduledGame] = []
    dealt = 0  # couples so far, to deal openings in schedule order
    for round_ in range(1, spec.rounds + 1):
        for j in range(couples):
            for x, y in pairs:
                # Alternate which bot leads a couple from round to round, so even a
                # tournament stopped in the middle of a couple is not biased one way.
                lead, other = (x, y) if round_ % 2 else (y, x)
                opening = openings[dealt % len(openings)] if fixed else None
                dealt += 1
                key = f"r{round_}-{x}+{y}-c{j + 1:02d}"
                for k, (first, second) in enumerate(((lead, other), (other, lead))):
                    number = 2 * j + k + 1
                    games.append(
                        ScheduledGame(
                            slot=f"r{round_}-{x}+{y}-{number:02d}",
                            index=len(games),
                            round=round_,
                            pair=(x, y),
                            game=number,
                            mode=mode,
                            first=first,
                            second=second,
                            pair_key=key,
                            opening=opening,
                        )
                    )
    return games


@dataclass(frozen=True)
class PairKeys:
    """The pair keys of a plan that numbers its colour-reversed pairs as it goes (the SPRT
    and adaptive schedules): ``PREFIX`` then five digits, and back."""

    prefix: str

    def key(self, number: int) -> str:
        return f"{self.prefix}{number:05d}"

    def number(self, key: str | None) -> int | None:
        """The pair's number from its key, None for a key that is not one of these."""
        if key is None or not key.startswith(self.prefix) or not key[len(self.prefix) :].isdigit():
            return None
        return int(key[len(self.prefix) :])
