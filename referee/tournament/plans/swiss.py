"""A Swiss event as a schedule: ``rounds`` rounds, each pairing bots of equal (or close)
score that have not met, every pairing ``games_per_pairing`` games in colour-reversed
couples.

Pairing (the FIDE Dutch system without colours, deterministic, no randomness):

* The bots are ranked by points so far, then by their seed (the config's order, or
  ``seeds``: a list, or an earlier run's ratings, see :func:`~.staged.seed_order`). Round 1
  is therefore top half against bottom half in seed order (8 bots: 1-5, 2-6, 3-7, 4-8), as
  FIDE's Dutch system pairs a first round.
* With an odd number of bots, the bye goes to the lowest-ranked bot that has not had one;
  it scores as a won pairing (``games_per_pairing`` points) and plays no game.
* The rest are paired by the Dutch system's bracket procedure (:mod:`.dutch`): score
  bracket by score bracket from the top, S1 (the top half) against S2, S2's transpositions
  and then S1-S2 exchanges in the order FIDE's Handbook C.04.1 D gives, the players left
  unpaired moving down to be paired first in the next bracket, backtracking to the brackets
  above when a lower one cannot be paired. No two bots meet twice when any pairing avoids
  it. Left out: colour preferences and float history (FIDE's colour and float criteria).
  A search past :data:`SEARCH_BUDGET` steps falls back to a simpler one (each bot in turn
  takes the first new opponent: its group's bottom half, its top half from the bottom up,
  then lower groups), and only when no pairing avoids a repeat are repeats allowed.
* Colours need no rule: every pairing plays colour-reversed couples (the higher-ranked
  bot first in each couple's first game: it makes the pie setup, or plays Black).

Round ``r`` is paired only when every game of round ``r - 1`` is recorded: until then the
plan has nothing available and waits for the games in flight. Its slots are
``s{r}-{a}+{b}-NN`` (``a`` the higher-ranked), pair keys ``s{r}-{a}+{b}-cK``. A resumed
run rebuilds every round from the recorded games (the pairing depends on nothing else),
and a void game leaves its round open until a run plays it again.

Scores are game points (1, 0.5, 0 per game; a bye ``games_per_pairing``). Tie-breaks, in
the order ``tie_breaks`` gives (default: all three, in this order):

* ``buchholz``: the sum of the final scores of the bot's opponents, one term per pairing
  (a bye adds nothing);
* ``sonneborn_berger``: the sum over pairings of the bot's points in it times that
  opponent's final score;
* ``head_to_head``: the bot's points in games against the bots with the same score.

The ranking is score, then the tie-breaks in order, then seed. ``rounds`` may grow between
runs (round ``r``'s pairing depends only on the rounds before it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from referee.play.records import GameSummary
from referee.ratings.report import Section
from referee.tournament.plans.dutch import dutch_pairing
from referee.tournament.plans.plan import MAX_SCHEDULE_GAMES, Checks, Field, Quiet, TestView, even, misfits_of
from referee.tournament.plans.staged import StagedGames, pairing_games, points_of, seed_order
from referee.tournament.slots import ScheduledGame

TIE_BREAKS = ("buchholz", "sonneborn_berger", "head_to_head")
SEARCH_BUDGET = 200_000
"""Steps of the no-repeat pairing search before it gives up and allows repeats."""


def most_rounds(bots: int) -> int:
    """Rounds in which no two bots need meet twice (an odd field: each bot one bye)."""
    return bots if bots % 2 else bots - 1


@dataclass(frozen=True)
class SwissSpec:
    """``{kind: swiss, rounds: N, games_per_pairing: G, seeds: [...], tie_breaks: [...]}``.
    ``seeds`` is the initial ranking, every bot, strongest first (empty: config order)."""

    kind: ClassVar[str] = "swiss"
    rounds: int
    games_per_pairing: int = 2
    seeds: tuple[str, ...] = ()
    tie_breaks: tuple[str, ...] = TIE_BREAKS

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ValueError("a Swiss has at least one round")
        if self.games_per_pairing < 2 or self.games_per_pairing % 2:
            raise ValueError("games_per_pairing must be a positive even number")
        unknown = [t for t in self.tie_breaks if t not in TIE_BREAKS]
        if unknown or len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise ValueError(f"tie_breaks: each of {', '.join(TIE_BREAKS)} at most once")

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> SwissSpec:
        spec = checks.mapping(
            value, "schedule", ("kind", "rounds", "games_per_pairing", "seeds", "tie_breaks")
        )
        if "rounds" not in spec:
            checks.fail("schedule.rounds", "missing (a Swiss needs its number of rounds)")
        rounds = checks.integer(spec["rounds"], "schedule.rounds", minimum=1)
        if rounds > most_rounds(len(names)):
            checks.fail(
                "schedule.rounds",
                f"a Swiss of {len(names)} bots has at most {most_rounds(len(names))} rounds "
                f"(no two bots meet twice), got {rounds}",
            )
        per = even(
            checks,
            spec.get("games_per_pairing", 2),
            "schedule.games_per_pairing",
            "each pairing plays colour-reversed couples",
        )
        if rounds * (len(names) // 2) * per > MAX_SCHEDULE_GAMES:
            checks.fail("schedule.rounds", f"the schedule would have more than {MAX_SCHEDULE_GAMES:,} games")
        seeds = seed_order(checks, spec["seeds"], "schedule.seeds", names) if "seeds" in spec else names
        tie_breaks: tuple[str, ...] = TIE_BREAKS
        if "tie_breaks" in spec:
            raw = spec["tie_breaks"]
            if not isinstance(raw, list):
                checks.fail("schedule.tie_breaks", f"expected a list of {', '.join(TIE_BREAKS)}")
            chosen: list[str] = []
            for k, item in enumerate(raw):
                text = checks.string(item, f"schedule.tie_breaks[{k}]")
                if text not in TIE_BREAKS or text in chosen:
                    why = "listed twice" if text in chosen else f"expected one of {', '.join(TIE_BREAKS)}"
                    checks.fail(f"schedule.tie_breaks[{k}]", f"{why}, got {text[:40]!r}")
                chosen.append(text)
            tie_breaks = tuple(chosen)
        return SwissSpec(rounds, per, seeds, tie_breaks)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> SwissSpec:
        rounds, per, seeds = data.get("rounds", 1), data["games_per_pair"], data["seeds"]
        tie_breaks = data.get("tie_breaks", list(TIE_BREAKS))
        if type(rounds) is not int or type(per) is not int:
            raise TypeError("its rounds or games per pairing are not integers")
        if not isinstance(seeds, list) or not isinstance(tie_breaks, list):
            raise TypeError("its seeds or tie-breaks are not lists")
        return SwissSpec(rounds, per, tuple(map(str, seeds)), tuple(map(str, tie_breaks)))

    def fingerprint(self) -> dict[str, object]:
        # ``rounds`` and ``tie_breaks`` are left out: a Swiss may be extended, and the
        # tie-breaks change how it is ranked, not what is played.
        return {
            "kind": self.kind,
            "games_per_pair": self.games_per_pairing,
            "challengers": [],
            "seeds": list(self.seeds),
        }

    def extent(self) -> dict[str, object]:
        return {"rounds": self.rounds, "tie_breaks": list(self.tie_breaks)}

    def check(self, field: Field) -> None:
        if self.seeds and sorted(self.seeds) != sorted(field.names):
            raise ValueError("the seeds are not the bots of the field")
        if self.rounds > most_rounds(len(field.names)):
            raise ValueError(f"{len(field.names)} bots allow at most {most_rounds(len(field.names))} rounds")

    def describe(self, field: Field) -> str:
        return SwissPlan(self, field).describe()

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return None

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> SwissPlan:
        self.check(field)
        return SwissPlan(self, field, recorded)


@dataclass(frozen=True)
class SwissRound:
    """One round's pairings (the higher-ranked bot first) and its bye."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None


class SwissPlan(Quiet):
    """The event's state: the rounds paired so far and their recorded games (a
    :class:`~.plan.Plan`)."""

    open_ended = False
    waits_for_games_in_flight = True

    def __init__(self, spec: SwissSpec, field: Field, recorded: Iterable[GameSummary] = ()) -> None:
        self.spec = spec
        self.field = field
        self.seeds = spec.seeds or field.names
        self.seed = {name: k for k, name in enumerate(self.seeds)}
        self.per_round = len(field.names) // 2
        self.results: dict[str, GameSummary] = {}  # slot -> its (first non-void) record
        self.rounds: list[SwissRound] = []
        self._handed: set[str] = set()
        self._lines: list[str] = []
        self._final_said = False
        for summary in recorded:
            self._take(summary)
        self._advance()
        self._lines.clear()  # what was paired before this run is not news

    # ------------------------------------------------------------------ state
    def _take(self, summary: GameSummary) -> bool:
        if summary.is_void or summary.slot in self.results:
            return False
        self.results[summary.slot] = summary
        return True

    def round_games(self, number: int) -> list[ScheduledGame]:
        """Round ``number``'s games (from 1), couple 1 of every pairing before couple 2."""
        couples = self.spec.games_per_pairing // 2
        games: list[tuple[int, int, ScheduledGame]] = []
        for k, (a, b) in enumerate(self.rounds[number - 1].pairs):
            place = (number - 1) * self.per_round + k
            for game in pairing_games(
                self.field,
                a,
                b,
                prefix=f"s{number}-",
                round_=number,
                couples=range(couples),
                index=place * self.spec.games_per_pairing,
                dealt=place * couples,
            ):
                games.append(((game.game - 1) // 2, k, game))
        return [g for _, _, g in sorted(games, key=lambda t: (t[0], t[1], t[2].game))]

    def complete(self, number: int) -> bool:
        return all(g.slot in self.results for g in self.round_games(number))

    @property
    def rounds_complete(self) -> int:
        return sum(1 for r in range(1, len(self.rounds) + 1) if self.complete(r))

    def _advance(self) -> None:
        """Pair every round that can be paired now (the last one paired is complete)."""
        while len(self.rounds) < self.spec.rounds and (not self.rounds or self.complete(len(self.rounds))):
            if self.rounds:
                self._lines.append(
                    f"    Swiss: round {len(self.rounds)} of {self.spec.rounds} complete; "
                    + self._leaders(len(self.rounds))
                )
            self.rounds.append(self.pair(len(self.rounds) + 1))
            self._lines.append("    Swiss: " + self._round_text(len(self.rounds)))
        if self.finished and not self._final_said:
            self._final_said = True
            self._lines.append(
                f"    Swiss: round {len(self.rounds)} of {self.spec.rounds} complete; the event is over"
            )

    def _leaders(self, upto: int, *, final: bool = False) -> str:
        ranked = self.ranking(upto)
        shown = ranked if final else ranked[:5]
        text = ", ".join(f"{k + 1}. {name} {self.scores(upto)[name]:g}" for k, name in enumerate(shown))
        return text + ("" if final or len(ranked) <= 5 else ", ...")

    def _round_text(self, number: int) -> str:
        r = self.rounds[number - 1]
        text = f"round {number}: " + ", ".join(f"{a} - {b}" for a, b in r.pairs)
        return text + (f"; bye: {r.bye}" if r.bye else "")

    # ------------------------------------------------------------------ scores
    def scores(self, upto: int | None = None) -> dict[str, float]:
        """Each bot's points in rounds 1..``upto`` (default: every round paired)."""
        upto = len(self.rounds) if upto is None else upto
        score = dict.fromkeys(self.field.names, 0.0)
        for number in range(1, upto + 1):
            r = self.rounds[number - 1]
            if r.bye is not None:
                score[r.bye] += self.spec.games_per_pairing
            for a, b in r.pairs:
                for summary in self._pairing_results(number, a, b):
                    score[a] += points_of(summary, a)
                    score[b] += points_of(summary, b)
        return score

    def _pairing_results(self, number: int, a: str, b: str) -> list[GameSummary]:
        base = f"s{number}-{a}+{b}-"
        games = self.spec.games_per_pairing
        return [self.results[s] for s in (f"{base}{g:02d}" for g in range(1, games + 1)) if s in self.results]

    def tie_breaks(self, upto: int | None = None) -> dict[str, dict[str, float]]:
        """Each bot's tie-breaks over rounds 1..``upto`` (see the module docstring)."""
        upto = len(self.rounds) if upto is None else upto
        score = self.scores(upto)
        names = self.field.names
        out = {n: dict.fromkeys(TIE_BREAKS, 0.0) for n in names}
        versus: dict[tuple[str, str], float] = {}
        for number in range(1, upto + 1):
            for a, b in self.rounds[number - 1].pairs:
                results = self._pairing_results(number, a, b)
                pa = sum(points_of(s, a) for s in results)
                pb = sum(points_of(s, b) for s in results)
                for me, other, mine in ((a, b, pa), (b, a, pb)):
                    out[me]["buchholz"] += score[other]
                    out[me]["sonneborn_berger"] += mine * score[other]
                    versus[(me, other)] = versus.get((me, other), 0.0) + mine
        for me in names:
            out[me]["head_to_head"] = sum(
                versus.get((me, other), 0.0) for other in names if other != me and score[other] == score[me]
            )
        return out

    def ranking(self, upto: int | None = None) -> list[str]:
        """The bots by score, then the chosen tie-breaks, then seed."""
        score = self.scores(upto)
        breaks = self.tie_breaks(upto)
        return sorted(
            self.field.names,
            key=lambda n: (-score[n], *(-breaks[n][t] for t in self.spec.tie_breaks), self.seed[n]),
        )

    # ------------------------------------------------------------------ pairing
    def pair(self, number: int) -> SwissRound:
        """Round ``number``'s pairing from the rounds before it (see the module docstring)."""
        before = self.rounds[: number - 1]
        score = self.scores(number - 1)
        order = sorted(self.field.names, key=lambda n: (-score[n], self.seed[n]))
        met = {frozenset(p) for r in before for p in r.pairs}
        had_bye = {r.bye for r in before if r.bye is not None}
        byes: list[str | None] = [None]
        if len(order) % 2:
            byes = [n for n in reversed(order) if n not in had_bye] or list(reversed(order))
        for bye in byes:  # the Dutch system's pairing (see .dutch), byes in order
            dutch = dutch_pairing([n for n in order if n != bye], score, met, SEARCH_BUDGET)
            if dutch is not None:
                return SwissRound(tuple(dutch), bye)
        for repeats in (False, True):  # its search gave up, or repeats are unavoidable
            for bye in byes:
                rest = [n for n in order if n != bye]
                pairs = _match(rest, score, met, repeats)
                if pairs is not None:
                    return SwissRound(tuple(pairs), bye)
        rest = [n for n in order if n != byes[0]]  # the search gave up: in order
        return SwissRound(tuple(zip(rest[::2], rest[1::2], strict=True)), byes[0])

    # ------------------------------------------------------------------ the Plan
    @property
    def total(self) -> int:
        return self.spec.rounds * self.per_round * self.spec.games_per_pairing

    @property
    def finished(self) -> bool:
        return len(self.rounds) == self.spec.rounds and self.complete(len(self.rounds))

    def games(self, done: set[str]) -> StagedGames:
        def refill() -> list[ScheduledGame]:
            self._advance()
            ready = [
                g
                for g in self.round_games(len(self.rounds))
                if g.slot not in self.results and g.slot not in done and g.slot not in self._handed
            ]
            self._handed.update(g.slot for g in ready)
            return ready

        resumed = len(self.results)
        return StagedGames(refill, resumed, self.total - resumed)

    def record(self, summary: GameSummary) -> None:
        if self._take(summary):
            self._advance()

    def describe(self) -> str:
        s = self.spec
        return (
            f"a Swiss of {s.rounds} rounds, {s.games_per_pairing} games per pairing, {self.total} games"
            + ("" if len(self.field.names) % 2 == 0 else ", a bye each round")
        )

    def after_game(self, every: int) -> list[str]:
        lines, self._lines = self._lines, []
        return lines

    def state(self) -> str | None:
        """``Swiss round 2 of 4: 3 of 6 games; bye: x``, or that the event is over."""
        number = len(self.rounds)
        if not number:
            return None
        if self.finished:
            return f"Swiss: all {self.spec.rounds} rounds complete"
        games = self.round_games(number)
        played = sum(1 for g in games if g.slot in self.results)
        bye = self.rounds[number - 1].bye
        return f"Swiss round {number} of {self.spec.rounds}: {played} of {len(games)} games" + (
            f"; bye: {bye}" if bye else ""
        )

    def end_lines(self) -> list[str]:
        if self.finished:
            return [f"Swiss: final ranking: {self._leaders(len(self.rounds), final=True)}"]
        number = len(self.rounds)
        missing = sum(1 for g in self.round_games(number) if g.slot not in self.results) if number else 0
        return [
            f"Swiss: round {number} of {self.spec.rounds} is not complete ({missing} game(s) to play); "
            "run the same command again to go on"
        ]

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        found = list(found)
        fresh = SwissPlan(self.spec, self.field, found)
        return misfits_of((g for r in range(1, len(fresh.rounds) + 1) for g in fresh.round_games(r)), found)

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        fresh = SwissPlan(self.spec, self.field, recorded)
        return [fresh.section()]

    def section(self) -> Section:
        """The Swiss standings: points, tie-breaks, byes, and every round's pairings."""
        score, breaks = self.scores(), self.tie_breaks()
        byes = {n: sum(1 for r in self.rounds if r.bye == n) for n in self.field.names}
        ranked = self.ranking()
        chosen = self.spec.tie_breaks
        rows = tuple(
            (k + 1, n, f"{score[n]:g}", byes[n], *(f"{breaks[n][t]:g}" for t in chosen))
            for k, n in enumerate(ranked)
        )
        done = self.rounds_complete
        return Section(
            key="swiss",
            title=(
                f"Swiss after {done} of {self.spec.rounds} rounds (points, then "
                f"{', '.join(chosen) or 'seed'}; a bye scores {self.spec.games_per_pairing})"
            ),
            headers=("rank", "bot", "points", "byes", *chosen),
            rows=rows,
            text="\n".join(self._round_text(r) for r in range(1, len(self.rounds) + 1)),
            data={
                "rounds": self.spec.rounds,
                "rounds_paired": len(self.rounds),
                "rounds_complete": done,
                "tie_breaks": list(chosen),
                "ranking": ranked,
                "pairings": [
                    {"round": k + 1, "pairs": [list(p) for p in r.pairs], "bye": r.bye}
                    for k, r in enumerate(self.rounds)
                ],
            },
            bot_fields={
                n: {"swiss_rank": ranked.index(n) + 1, "swiss_points": score[n], "byes": byes[n], **breaks[n]}
                for n in self.field.names
            },
        )


def _match(
    order: list[str], score: dict[str, float], met: set[frozenset[str]], repeats: bool
) -> list[tuple[str, str]] | None:
    """Pairs for ``order`` (ranked), each bot's candidates in the Dutch order of the module
    docstring, with backtracking; None if no pairing avoids repeats (unless allowed) within
    :data:`SEARCH_BUDGET` steps."""
    steps = 0

    def go(remaining: list[str]) -> list[tuple[str, str]] | None:
        nonlocal steps
        if not remaining:
            return []
        p = remaining[0]
        group = [q for q in remaining if score[q] == score[p]]
        half = len(group) // 2
        candidates = [q for q in group[half:] if q != p] + group[1:half][::-1]
        candidates += [q for q in remaining if score[q] < score[p]]
        for q in candidates:
            if not repeats and frozenset((p, q)) in met:
                continue
            steps += 1
            if steps > SEARCH_BUDGET:
                return None
            rest = go([x for x in remaining if x not in (p, q)])
            if rest is not None:
                return [(p, q), *rest]
        return None

    return go(order)
