"""The checks of ``vastuz check`` that play: full ``games`` against the reference opponent,
the ``pie-rule`` decisions on their own, and ``final-score``, which judges the bot's count
at the end of the games that ``games`` played (kept in :attr:`Session.games`).

The games are real referee games (:func:`referee.play.game.play_game`), so whatever the
referee would score as a loss in a tournament fails the check here, with its reason.
"""

from __future__ import annotations

import random

from protocol import commands
from protocol.framing import ProtocolError
from referee.engine import Color, Position, iter_points
from referee.play.faults import BotFault, BotStartError
from referee.play.game import play_game
from referee.play.process import BotProcess
from referee.play.records import Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.tools.check_session import CheckResult, CheckSkipped, Session, Status, answer_text, ms


def _game_plan(index: int, colours: dict[Color, int]) -> tuple[OpeningKind, int]:
    """Opening and the bot's seat for game ``index``: pie games alternate the bot making
    the setup and choosing the colour; empty-board games give the bot the colour it has
    played less so far, so two games already cover both openings and both colours."""
    if index % 2 == 0:
        return OpeningKind.PIE, (index // 2) % 2
    colour = Color.WHITE if colours[Color.WHITE] < colours[Color.BLACK] else Color.BLACK
    return OpeningKind.EMPTY, 0 if colour is Color.BLACK else 1


async def check_games(name: str, s: Session) -> CheckResult:
    opts = s.options
    control = TimeControl.fixed(opts.per_move, margin=opts.margin)
    colours = {Color.BLACK: 0, Color.WHITE: 0}
    seconds: list[float] = []
    played: list[str] = []
    opponent: BotProcess | None = None
    try:
        for index in range(opts.games):
            bot = await s.bot()
            if opponent is None or not opponent.reusable:
                if opponent is not None:
                    await opponent.aclose()
                opponent = s.process(opts.opponent, "random")
                await s.start(opponent)
            opening, seat = _game_plan(index, colours)
            spec = GameSpec(
                size=opts.size, opening=opening, time_control=control,
                command_timeout=opts.command_timeout, game_id=f"check-{index + 1}",
            )  # fmt: skip
            first, second = (bot, opponent) if seat == 0 else (opponent, bot)
            record = await play_game(first, second, spec)
            s.games.append((record, seat))
            colour = Color.BLACK if record.black == seat else Color.WHITE
            colours[colour] += 1
            role = "" if opening is OpeningKind.EMPTY else ", set up" if seat == 0 else ", chose"
            where = f"game {index + 1} ({opening.value}{role}, {colour.value})"
            if record.termination is Termination.VOID and record.fault is None:
                blame = "void (a problem on the checker's side)"
                return CheckResult(name, Status.FAIL, f"{where} {blame}: {record.reason}")
            # A void game with a fault: a bot failed before the first decision (a start-up
            # failure, not rated in a tournament); below, the bot at fault is blamed.
            seconds.extend(
                t.seconds
                for t in record.turns
                if t.color is colour and not t.opening and t.seconds is not None
            )
            if record.fault is not None and record.fault.seat != seat:
                blame = "the reference opponent failed (not your bot)"
                return CheckResult(name, Status.FAIL, f"{where}: {blame}: {record.reason}")
            if record.fault is not None and record.termination is not Termination.RESIGN:
                return CheckResult(name, Status.FAIL, f"{where}: {record.reason}")
            played.append(f"{where} {record.result}")
    except (BotFault, BotStartError) as fault:  # the opponent's start
        return CheckResult(name, Status.FAIL, f"the reference opponent did not start (not your bot): {fault}")
    finally:
        if opponent is not None:
            await opponent.aclose()
    timing = "no moves"
    if seconds:
        timing = f"thinking {ms(sum(seconds) / len(seconds))} mean, {ms(max(seconds))} max per move"
    detail = f"{len(played)} games, every turn legal and on time; {timing} (limit {opts.per_move:g} s): "
    detail += "; ".join(_shown_games(played))
    if seconds and max(seconds) > opts.per_move:
        advice = "a move used the referee's margin: keep well inside the limit"
        return CheckResult(name, Status.WARN, f"{detail}; {advice}")
    return CheckResult(name, Status.PASS, detail)


SHOWN_GAMES = 4
"""Games a check line lists one by one; past them it counts (a line per check stays readable)."""


def _shown_games(played: list[str]) -> list[str]:
    """The first games, then a count of the rest and the last one: ``--games 20`` once put
    20 results on one 900-character line."""
    if len(played) <= SHOWN_GAMES:
        return played
    rest = len(played) - SHOWN_GAMES + 1
    return [*played[: SHOWN_GAMES - 1], f"{rest - 1} more, then {played[-1]}"]


async def check_pie_rule(name: str, s: Session) -> CheckResult:
    opts = s.options
    bot = await s.bot()
    await s.prepare(bot, opts.size)
    exchange = await bot.request(commands.gensetup(), opts.decision_timeout)
    answer = answer_text(exchange.response)
    if not exchange.response.ok:
        expected = "expected two points 'B W'"
        return CheckResult(name, Status.FAIL, f"'gensetup' on an empty board answered {answer}; {expected}")
    try:
        black, white = commands.parse_gensetup(exchange.response.text)
        if black == white:
            raise ValueError("the two points must differ")
        Position.new(opts.size).setup(black, white)
    except (ProtocolError, ValueError) as exc:  # TurnError is a ValueError
        expected = f"expected two distinct points of the size-{opts.size} board"
        return CheckResult(name, Status.FAIL, f"'gensetup' answered {answer}; {expected} ({exc})")
    rng = random.Random(opts.seed)
    stones = rng.sample(list(iter_points(opts.size)), 2)
    bot = await s.bot()
    await s.prepare(bot, opts.size)
    await bot.call(commands.setup(*stones), opts.command_timeout)
    exchange = await bot.request(commands.choose_color(), opts.decision_timeout)
    try:
        colour = commands.parse_choose_color(commands.expect_success(exchange.response, exchange.command))
    except ProtocolError:
        return CheckResult(
            name, Status.FAIL,
            f"'choose_color' after 'setup {stones[0]} {stones[1]}' answered "
            f"{answer_text(exchange.response)}; expected black or white",
        )  # fmt: skip
    return CheckResult(
        name, Status.PASS, f"gensetup {answer} (two distinct points); choose_color: {colour.value}"
    )


async def check_final_score(name: str, s: Session) -> CheckResult:
    if not s.started_once:
        raise CheckSkipped("the bot did not start")
    if "final_score" not in s.listed:
        return CheckResult(name, Status.SKIP, "the bot does not list final_score (optional)")
    scored = [(r, seat) for r, seat in s.games if r.termination is Termination.SCORE]
    if not scored:
        return CheckResult(name, Status.SKIP, "no game was played to the end")
    problems = []
    for record, seat in scored:
        said = record.bots[seat].final_score
        number = record.game_id.rsplit("-", 1)[-1]
        if said is None:
            notes = [n for n in record.notes if "final_score" in n] or ["no answer"]
            problems.append(f"game {number}: {notes[0]}")
        elif said != record.result:
            problems.append(f"game {number}: the bot said {said}, the engine counts {record.result}")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(name, Status.PASS, f"agreed with the engine in {len(scored)} game(s)")
