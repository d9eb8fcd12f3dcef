"""What the kinds that choose their games from results in stages share (Swiss rounds,
knockout matches): a re-askable :class:`~.plan.Pending` over the plan's own queue, the
points of a recorded game, the games of one pairing, and the seeding keys.

A stage's games are handed out only when the plan has them; between stages the plan has
none available and waits for the games in flight (``waits_for_games_in_flight``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from referee.play.records import GameSummary
from referee.tournament.plans.plan import Checks, Field, OpeningPolicy
from referee.tournament.slots import ScheduledGame, colour_reversed


class StagedGames:
    """The games a staged plan has ready, pulled one at a time; ``refill`` asks the plan to
    queue the next stage's games when it can (it returns them, possibly none)."""

    def __init__(
        self, refill: Callable[[], list[ScheduledGame]], resumed: int, remaining: int | None
    ) -> None:
        self._refill = refill
        self._queue: list[ScheduledGame] = []
        self.resumed = resumed
        self.remaining = remaining

    def available(self) -> bool:
        if not self._queue:
            self._queue.extend(self._refill())
        return bool(self._queue)

    def __iter__(self) -> Iterator[ScheduledGame]:
        return self

    def __next__(self) -> ScheduledGame:
        if not self.available():
            raise StopIteration
        return self._queue.pop(0)


def points_of(summary: GameSummary, bot: str) -> float:
    """``bot``'s points in a recorded (not void) game: 1, 0.5 or 0."""
    if summary.winner is None:
        return 0.5
    return 1.0 if summary.labels[summary.winner] == bot else 0.0


def pairing_games(
    field: Field,
    a: str,
    b: str,
    *,
    prefix: str,
    round_: int,
    couples: Sequence[int],
    index: int,
    dealt: int,
) -> list[ScheduledGame]:
    """The games of the couples ``couples`` (from 0) between ``a`` and ``b``: couple ``c``
    is games ``2c + 1`` (``a`` first) and ``2c + 2``, slots ``{prefix}{a}+{b}-NN``, pair key
    ``{prefix}{a}+{b}-cC``; ``index`` is couple 0's first game's place in the schedule and
    ``dealt`` the opening number of couple 0 (under ``opening.policy: encounter`` every
    pairing's couple ``c`` gets opening ``c``)."""
    base = f"{prefix}{a}+{b}"
    games: list[ScheduledGame] = []
    for c in couples:
        number = c if field.policy is OpeningPolicy.ENCOUNTER else dealt + c
        games.extend(
            colour_reversed(
                a,
                b,
                mode=field.mode,
                pair_key=f"{base}-c{c + 1}",
                slot=base + "-{:02d}",
                index=index + 2 * c,
                round_=round_,
                game=2 * c + 1,
                opening=field.opening(number),
            )
        )
    return games


SEEDS_FORMS = "`config`, a list of the bots' names (strongest first) or `{rating: STANDINGS}`"


def seed_order(checks: Checks, value: object, path: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """``seeds``: ``config`` (the config's order), a list of bot names, strongest first
    (bots it leaves out follow in config order), or ``{rating: FILE}``: by the ratings of an
    earlier run's ``standings.json`` (or its folder; see
    :meth:`~referee.tournament.config.checks.FieldChecks.rated_seeds`)."""
    if value == "config":
        return names
    if value == "rating":
        checks.fail(
            path,
            "`rating` needs the ratings to seed by: `seeds: {rating: results/NAME/standings.json}` (an "
            "earlier run's standings, or its folder)",
        )
    if isinstance(value, dict):
        spec = checks.mapping(value, path, ("rating",), what="a mapping {rating: STANDINGS}")
        if "rating" not in spec:
            checks.fail(f"{path}.rating", "missing: the standings.json (or results folder) to seed by")
        return checks.rated_seeds(spec["rating"], f"{path}.rating", names)
    if not isinstance(value, list):
        checks.fail(path, f"expected {SEEDS_FORMS}, got {value!r}"[:240])
    order: list[str] = []
    for k, item in enumerate(value):
        name = checks.string(item, f"{path}[{k}]")
        if name not in names:
            checks.fail(f"{path}[{k}]", f"no bot is named {name!r} (the bots: {', '.join(names)})"[:300])
        if name in order:
            checks.fail(f"{path}[{k}]", f"{name!r} is listed twice")
        order.append(name)
    return (*order, *(n for n in names if n not in order))
