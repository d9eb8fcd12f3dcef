"""A ladder round's pairings and its games. Pure.

Two kinds (``pairing.kind``):

* ``rating-noise`` (CGOS's): the bots are sorted by rating plus Gaussian noise and paired
  with their neighbours, so bots of about equal strength meet most (their games say the
  most about their ratings), and the noise mixes the list round after round. The noise is
  drawn from ``random.Random(f"{seed}:{round}")``: a round's pairings depend only on the
  ratings and its number, never on how often a run was restarted (the games of a round are
  stored before they are played anyway).
* ``information`` (the adaptive planner's criterion,
  :mod:`referee.tournament.plans.adaptive`, over every pair rather than neighbours only):
  each possible pairing ``a - b`` is scored by how doubtful their order is times how much
  this round's games between them would narrow it, ``Phi(-|d| / sqrt(V)) * (V - V / (1 + w V))``,
  where ``d`` is their rating gap, ``V`` the variance of that gap from the Fisher
  information of every game so far (direct and through other bots, with the pairing
  estimate's prior), and ``w`` the information of the round's games. Pairings are then
  taken greedily, best score first, each bot once. No randomness: the same games give the
  same round. Unlike rating-noise it spends the games where the list is least settled: a
  newcomer against bots near its estimate, two close rivals again; pairs already sure of
  their order are left alone.

With an odd number of bots, one with the most games sits out."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.ladder.config import PairingSpec
from referee.ladder.ratings import PRIOR_GAMES
from referee.play.spec import Opening, OpeningKind
from referee.ratings.fit import ELO_PER_NAT, add_information, invert_spd
from referee.tournament.plans.adaptive import pair_score
from referee.tournament.slots import ScheduledGame, colour_reversed


@dataclass(frozen=True)
class Pairings:
    number: int
    pairs: tuple[tuple[str, str], ...]
    out: tuple[str, ...]

    def words(self) -> str:
        text = ", ".join(f"{a} - {b}" for a, b in self.pairs)
        return text + (f"; sits out: {', '.join(self.out)}" if self.out else "")


Tally = tuple[str, str, float, int]
"""``(a, b, points of a, games)`` summed over a pairing's games (the store's ``tallies``)."""


def pair_round(
    number: int,
    ratings: Mapping[str, float],
    games: Mapping[str, int],
    spec: PairingSpec,
    *,
    tallies: Sequence[Tally] = (),
    games_per_pairing: int = 2,
) -> Pairings:
    """Round ``number``'s pairings of the bots of ``ratings`` (Elo, finite: the pairing
    estimate), ``games`` each bot's games so far; ``tallies`` and ``games_per_pairing``
    are what the ``information`` kind weighs."""
    rng = random.Random(f"{spec.seed}:{number}")
    bots = sorted(ratings)
    out: list[str] = []
    if len(bots) % 2:
        most = max(games.get(b, 0) for b in bots)
        sitter = rng.choice([b for b in bots if games.get(b, 0) == most])
        bots.remove(sitter)
        out.append(sitter)
    if spec.kind == "information":
        scores = information_scores({b: ratings[b] for b in bots}, tallies, games_per_pairing)
        return Pairings(number, _greedy(bots, scores), tuple(out))
    noisy = {b: ratings[b] + rng.gauss(0.0, spec.noise) for b in bots}
    order = sorted(bots, key=lambda b: (-noisy[b], b))
    pairs = tuple((order[i], order[i + 1]) for i in range(0, len(order) - 1, 2))
    return Pairings(number, pairs, tuple(out))


def information_scores(
    ratings: Mapping[str, float], tallies: Sequence[Tally], games_per_pairing: int
) -> dict[tuple[str, str], float]:
    """Every pairing's score (see the module docstring), keyed ``(a, b)`` with ``a < b``.

    The information matrix counts each pairing played ``n`` times as ``n p (1 - p)`` at
    the estimate's expected score, plus the pairing estimate's own prior (one virtual draw
    of each bot against a bot at the field's middle, :data:`PRIOR_GAMES`), so a bot
    without games has a finite, large variance rather than none. One inverse serves every
    pair: ``V(a, b) = S[a][a] + S[b][b] - 2 S[a][b]``."""
    names = sorted(ratings)
    index = {name: k for k, name in enumerate(names)}
    size = len(names)
    theta = [ratings[name] / ELO_PER_NAT for name in names]
    info = [[0.0] * size for _ in range(size)]
    for k in range(size):
        info[k][k] = PRIOR_GAMES / 4.0
    for a, b, _, n in tallies:
        if a not in index or b not in index or a == b:
            continue  # a bot that does not play this round: its games still rated it
        add_information(info, index[a], index[b], n, theta)
    inverse = invert_spd(info)
    scores: dict[tuple[str, str], float] = {}
    for i in range(size):
        for j in range(i + 1, size):
            variance = max(inverse[i][i] + inverse[j][j] - 2.0 * inverse[i][j], 1e-300)
            scores[(names[i], names[j])] = pair_score(theta[i] - theta[j], variance, games_per_pairing)
    return scores


def _greedy(bots: Sequence[str], scores: Mapping[tuple[str, str], float]) -> tuple[tuple[str, str], ...]:
    """Pairings best score first, each bot once (ties: names in order); the better-rated
    bot is not known here, so each pairing is listed in name order."""
    free = set(bots)
    pairs = []
    for (a, b), _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])):
        if a in free and b in free:
            pairs.append((a, b))
            free -= {a, b}
    return tuple(pairs)


def round_games(
    pairings: Pairings,
    games_per_pairing: int,
    mode: OpeningKind,
    openings: Sequence[Opening],
    *,
    index: int,
) -> list[ScheduledGame]:
    """The round's games, colour-reversed pairs of them per pairing; ``index`` is the
    ladder's next game index, which also deals the openings (one per pair, in turn)."""
    out: list[ScheduledGame] = []
    r = pairings.number
    for a, b in pairings.pairs:
        for j in range(games_per_pairing // 2):
            at = index + len(out)
            opening = openings[(at // 2) % len(openings)] if openings else None
            out.extend(
                colour_reversed(
                    a,
                    b,
                    mode=mode,
                    pair_key=f"r{r}-{a}+{b}-p{j + 1}",
                    slot=f"r{r}-{a}+{b}-{{:02d}}",
                    index=at,
                    round_=r,
                    game=2 * j + 1,
                    opening=opening,
                )
            )
    return out


__all__ = ["Pairings", "Tally", "information_scores", "pair_round", "round_games"]
