"""A knockout event as a schedule: a seeded bracket of matches, each ``games_per_match``
games in colour-reversed couples, the winner going on.

The bracket has room for the next power of two of bots, seeded the usual way (8 places:
1-8, 4-5, 2-7, 3-6, so seeds 1 and 2 can meet only in the final); the places past the
number of bots are byes, which fall to the top seeds, who go through without a game. The
seeds are the config's order unless ``seeds`` lists the bots (strongest first) or
names an earlier run's ratings (``{rating: STANDINGS}``, resolved to a list when the config
is loaded: :func:`~.staged.seed_order`).

A match is won on game points. A match level after its games is decided by further
couples, one at a time, up to ``tiebreak_pairs`` of them (default 2); a match still level
after those is won by the higher seed (the rule is stated in the output and the
standings: ``level after N games: X goes on as the higher seed``). A match starts as soon
as both its bots are known, so the bracket's halves need not wait for each other; between
stages the plan has nothing available and waits for the games in flight.

Slots are ``k{r}-{a}+{b}-NN`` (round ``r`` from 1, ``a`` the higher seed, first in each
couple's first game), pair keys ``k{r}-{a}+{b}-cK``. A resumed run rebuilds the bracket from
the recorded games; a void game leaves its match open until a run plays it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from referee.play.records import GameSummary
from referee.ratings.report import Section
from referee.tournament.plans.plan import Checks, Field, Quiet, TestView, even, misfits_of
from referee.tournament.plans.staged import StagedGames, pairing_games, points_of, seed_order
from referee.tournament.slots import ScheduledGame

DEFAULT_TIEBREAK_PAIRS = 2
MAX_TIEBREAK_PAIRS = 100


def bracket_order(size: int) -> list[int]:
    """Seeds (from 1) in bracket order for ``size`` places (a power of two): adjacent
    places meet in round 1, and seeds 1 and 2 are in opposite halves."""
    order = [1]
    while len(order) < size:
        order = [x for seed in order for x in (seed, 2 * len(order) + 1 - seed)]
    return order


@dataclass(frozen=True)
class KnockoutSpec:
    """``{kind: knockout, games_per_match: G, seeds: config | [...], tiebreak_pairs: K}``."""

    kind: ClassVar[str] = "knockout"
    games_per_match: int = 2
    seeds: tuple[str, ...] = ()
    tiebreak_pairs: int = DEFAULT_TIEBREAK_PAIRS

    def __post_init__(self) -> None:
        if self.games_per_match < 2 or self.games_per_match % 2:
            raise ValueError("games_per_match must be a positive even number")
        if not 0 <= self.tiebreak_pairs <= MAX_TIEBREAK_PAIRS:
            raise ValueError(f"tiebreak_pairs must be 0..{MAX_TIEBREAK_PAIRS}")

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> KnockoutSpec:
        spec = checks.mapping(value, "schedule", ("kind", "games_per_match", "seeds", "tiebreak_pairs"))
        per = even(
            checks,
            spec.get("games_per_match", 2),
            "schedule.games_per_match",
            "each match plays colour-reversed couples",
        )
        seeds = seed_order(checks, spec["seeds"], "schedule.seeds", names) if "seeds" in spec else names
        extra = DEFAULT_TIEBREAK_PAIRS
        if "tiebreak_pairs" in spec:
            extra = checks.integer(
                spec["tiebreak_pairs"], "schedule.tiebreak_pairs", minimum=0, maximum=MAX_TIEBREAK_PAIRS
            )
        return KnockoutSpec(per, seeds, extra)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> KnockoutSpec:
        per, seeds, extra = data["games_per_pair"], data["seeds"], data["tiebreak_pairs"]
        if type(per) is not int or type(extra) is not int or not isinstance(seeds, list):
            raise TypeError("its games per match, seeds or tiebreak pairs are not what a knockout has")
        return KnockoutSpec(per, tuple(map(str, seeds)), extra)

    def fingerprint(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "games_per_pair": self.games_per_match,
            "challengers": [],
            "seeds": list(self.seeds),
            "tiebreak_pairs": self.tiebreak_pairs,
        }

    def extent(self) -> dict[str, object]:
        return {}

    def check(self, field: Field) -> None:
        if self.seeds and sorted(self.seeds) != sorted(field.names):
            raise ValueError("the seeds are not the bots of the field")

    def describe(self, field: Field) -> str:
        return KnockoutPlan(self, field).describe()

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return None

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> KnockoutPlan:
        self.check(field)
        return KnockoutPlan(self, field, recorded)


@dataclass(frozen=True)
class Match:
    """One match of the bracket as it stands: its bots (``a`` the higher seed; None for a
    place not known yet, or a bye), the games it has asked for, the points, the winner
    and how it was decided."""

    round: int
    place: int
    a: str | None
    b: str | None
    games: tuple[ScheduledGame, ...] = ()
    points_a: float = 0.0
    points_b: float = 0.0
    winner: str | None = None
    how: str = ""


class KnockoutPlan(Quiet):
    """The bracket's state (a :class:`~.plan.Plan`)."""

    open_ended = True
    waits_for_games_in_flight = True

    def __init__(self, spec: KnockoutSpec, field: Field, recorded: Iterable[GameSummary] = ()) -> None:
        self.spec = spec
        self.field = field
        self.seeds = spec.seeds or field.names
        self.seed = {name: k + 1 for k, name in enumerate(self.seeds)}
        n = len(self.seeds)
        self.size = 1 << (n - 1).bit_length()
        self.round_count = self.size.bit_length() - 1
        self.results: dict[str, GameSummary] = {}
        self._handed: set[str] = set()
        self._lines: list[str] = []
        for summary in recorded:
            self._take(summary)
        self._said = {(m.round, m.place) for m in self.matches() if m.winner is not None}
        self._level_said: set[tuple[int, int, int]] = set()

    def _take(self, summary: GameSummary) -> bool:
        if summary.is_void or summary.slot in self.results:
            return False
        self.results[summary.slot] = summary
        return True

    # ------------------------------------------------------------------ the bracket
    def round_name(self, number: int) -> str:
        left = self.round_count - number
        return {0: "final", 1: "semi-finals", 2: "quarter-finals"}.get(left, f"round of {2 ** (left + 1)}")

    def matches(self) -> list[Match]:
        """Every match of the bracket, round by round, as the recorded games leave it."""
        order = bracket_order(self.size)
        n = len(self.seeds)
        entrants: list[str | None] = [self.seeds[s - 1] if s <= n else None for s in order]
        out: list[Match] = []
        place = 0
        for number in range(1, self.round_count + 1):
            winners: list[str | None] = []
            for k in range(len(entrants) // 2):
                match = self._match(number, place, entrants[2 * k], entrants[2 * k + 1])
                out.append(match)
                winners.append(match.winner)
                place += 1
            entrants = winners
        return out

    def _match(self, number: int, place: int, x: str | None, y: str | None) -> Match:
        if x is None or y is None:
            # A bye (round 1) goes through at once; a place not known yet waits.
            bye = number == 1 and (x is None) != (y is None)
            only = x if y is None else y
            return Match(number, place, x, y, winner=only if bye else None, how="bye" if bye else "")
        a, b = sorted((x, y), key=self.seed.__getitem__)
        couples = self.spec.games_per_match // 2
        most = couples + self.spec.tiebreak_pairs
        per_place = 2 * most
        stage = list(range(couples))
        games: list[ScheduledGame] = []
        while True:
            games += pairing_games(
                self.field,
                a,
                b,
                prefix=f"k{number}-",
                round_=number,
                couples=stage,
                index=place * per_place,
                dealt=place * most,
            )
            recorded = [self.results[g.slot] for g in games if g.slot in self.results]
            pa = sum(points_of(s, a) for s in recorded)
            pb = sum(points_of(s, b) for s in recorded)
            if len(recorded) < len(games):
                return Match(number, place, a, b, tuple(games), pa, pb)
            if pa != pb:
                winner, loser = (a, b) if pa > pb else (b, a)
                return Match(number, place, a, b, tuple(games), pa, pb, winner, f"{winner} beats {loser}")
            if stage[-1] + 1 >= most:
                how = f"level after {len(games)} games: {a} goes on as the higher seed"
                return Match(number, place, a, b, tuple(games), pa, pb, a, how)
            stage = [stage[-1] + 1]

    # ------------------------------------------------------------------ the Plan
    @property
    def total(self) -> int:
        """The most games the bracket can ask for: every match to its last tie-break, or,
        once the final is decided, the games it asked for."""
        matches = self.matches()
        if matches[-1].winner is not None:
            return sum(len(m.games) for m in matches)
        return (len(self.seeds) - 1) * (self.spec.games_per_match + 2 * self.spec.tiebreak_pairs)

    @property
    def finished(self) -> bool:
        return self.matches()[-1].winner is not None

    def games(self, done: set[str]) -> StagedGames:
        def refill() -> list[ScheduledGame]:
            ready = [
                g
                for m in self.matches()
                if m.winner is None
                for g in m.games
                if g.slot not in self.results and g.slot not in done and g.slot not in self._handed
            ]
            self._handed.update(g.slot for g in ready)
            return ready

        return StagedGames(refill, len(self.results), None)

    def record(self, summary: GameSummary) -> None:
        if not self._take(summary):
            return
        for m in self.matches():
            if m.winner is not None and (m.round, m.place) not in self._said:
                self._said.add((m.round, m.place))
                self._lines.append(f"    knockout: {self.round_name(m.round)}: {self._result(m)}")
            elif m.winner is None and m.games and len(m.games) > self.spec.games_per_match:
                key = (m.round, m.place, len(m.games))
                if key not in self._level_said:
                    self._level_said.add(key)
                    self._lines.append(
                        f"    knockout: {self.round_name(m.round)}: {m.a} - {m.b} level "
                        f"{m.points_a:g}-{m.points_b:g}: a further pair"
                    )

    def _result(self, m: Match) -> str:
        if m.how == "bye":
            return f"{m.winner}: a bye"
        if " beats " in m.how:  # the winner's points first
            high, low = max(m.points_a, m.points_b), min(m.points_a, m.points_b)
            return f"{m.how} {high:g}-{low:g}"
        return f"{m.a} - {m.b} {m.how}"

    def describe(self) -> str:
        n = len(self.seeds)
        byes = self.size - n
        return (
            f"a knockout of {n} bots, {self.spec.games_per_match} games per match"
            + (f", {byes} bye(s) in round 1" if byes else "")
            + f", up to {self.spec.tiebreak_pairs} further pair(s) for a level match"
        )

    def after_game(self, every: int) -> list[str]:
        lines, self._lines = self._lines, []
        return lines

    def state(self) -> str | None:
        """The earliest round still playing: how many of its matches are decided, and the
        score of each match in play (``knockout semi-finals: 1 of 2 decided; playing: a 1-0 b``)."""
        matches = self.matches()
        if matches[-1].winner is not None:
            return f"knockout: {matches[-1].winner} has won"
        number = min(m.round for m in matches if m.winner is None)
        this = [m for m in matches if m.round == number]
        decided = sum(1 for m in this if m.winner is not None)
        playing = [
            f"{m.a} {m.points_a:g}-{m.points_b:g} {m.b}"
            for m in this
            if m.winner is None and m.a is not None and m.b is not None
        ]
        return f"knockout {self.round_name(number)}: {decided} of {len(this)} decided" + (
            f"; playing: {', '.join(playing)}" if playing else ""
        )

    def end_lines(self) -> list[str]:
        final = self.matches()[-1]
        if final.winner is not None:
            return [f"knockout: {final.winner} wins (final: {self._result(final)})"]
        return ["knockout: not finished; run the same command again to go on"]

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        found = list(found)
        fresh = KnockoutPlan(self.spec, self.field, found)
        return misfits_of((g for m in fresh.matches() for g in m.games), found)

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        return [KnockoutPlan(self.spec, self.field, recorded).section()]

    def bracket_text(self) -> str:
        """The bracket drawn as text, round by round."""
        lines: list[str] = []
        matches = self.matches()
        for number in range(1, self.round_count + 1):
            lines.append(self.round_name(number))
            for m in (m for m in matches if m.round == number):
                lines.append("  " + self._cell(m))
        final = matches[-1]
        lines.append(f"winner: {final.winner}" if final.winner else "winner: (to be decided)")
        return "\n".join(lines)

    def _cell(self, m: Match) -> str:
        def who(name: str | None) -> str:
            return f"[{self.seed[name]}] {name}" if name is not None else "?"

        if m.how == "bye":
            return f"{who(m.winner)}: a bye"
        if m.a is None or m.b is None:
            return f"{who(m.a)} - {who(m.b)}"
        score = f"{m.points_a:g}-{m.points_b:g}" if m.games else "-"
        state = (
            f"-> {m.winner}" + ("" if " beats " in m.how else f" ({m.how})")
            if m.winner
            else "(playing)"
            if any(g.slot in self.results for g in m.games)
            else "(to play)"
        )
        return f"{who(m.a)}  {score}  {who(m.b)}  {state}"

    def section(self) -> Section:
        matches = self.matches()
        reached: dict[str, int] = {}
        for m in matches:
            for name in (m.a, m.b):
                if name is not None:
                    reached[name] = max(reached.get(name, 0), m.round)
        out = {m.b if m.winner == m.a else m.a for m in matches if m.winner and m.how != "bye"}
        final = matches[-1]
        rows = tuple(
            (
                self.round_name(m.round),
                m.a or "?",
                f"{m.points_a:g}-{m.points_b:g}",
                m.b or "?",
                m.winner or "",
            )
            for m in matches
            if m.a is not None and m.b is not None
        )
        return Section(
            key="knockout",
            title="Knockout bracket (a level match: further pairs, then the higher seed)",
            headers=("round", "higher seed", "score", "lower seed", "winner"),
            rows=rows,
            text=self.bracket_text(),
            data={
                "winner": final.winner,
                "rounds": [self.round_name(r) for r in range(1, self.round_count + 1)],
                "matches": [
                    {
                        "round": m.round,
                        "a": m.a,
                        "b": m.b,
                        "points": [m.points_a, m.points_b],
                        "games": len(m.games),
                        "winner": m.winner,
                        "how": m.how,
                    }
                    for m in matches
                ],
            },
            bot_fields={
                n: {
                    "seed": self.seed[n],
                    "knockout_reached": self.round_name(reached.get(n, 1)) if n != final.winner else "winner",
                    "knockout_out": n in out,
                }
                for n in self.field.names
            },
        )
