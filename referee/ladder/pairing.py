"""A ladder round's pairings, CGOS-style, and its games. Pure.

The bots are sorted by rating plus Gaussian noise and paired with their neighbours, so
bots of about equal strength meet most (their games say the most about their ratings),
and the noise mixes the list round after round. With an odd number of bots, one with the
most games sits out. The noise is drawn from ``random.Random(f"{seed}:{round}")``: a
round's pairings depend only on the ratings and its number, never on how often a run
was restarted (the games of a round are stored before they are played anyway)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.ladder.config import PairingSpec
from referee.play.spec import Opening, OpeningKind
from referee.tournament.slots import ScheduledGame, colour_reversed


@dataclass(frozen=True)
class Pairings:
    number: int
    pairs: tuple[tuple[str, str], ...]
    out: tuple[str, ...]

    def words(self) -> str:
        text = ", ".join(f"{a} - {b}" for a, b in self.pairs)
        return text + (f"; sits out: {', '.join(self.out)}" if self.out else "")


def pair_round(
    number: int, ratings: Mapping[str, float], games: Mapping[str, int], spec: PairingSpec
) -> Pairings:
    rng = random.Random(f"{spec.seed}:{number}")
    bots = sorted(ratings)
    out: list[str] = []
    if len(bots) % 2:
        most = max(games.get(b, 0) for b in bots)
        sitter = rng.choice([b for b in bots if games.get(b, 0) == most])
        bots.remove(sitter)
        out.append(sitter)
    noisy = {b: ratings[b] + rng.gauss(0.0, spec.noise) for b in bots}
    order = sorted(bots, key=lambda b: (-noisy[b], b))
    pairs = tuple((order[i], order[i + 1]) for i in range(0, len(order) - 1, 2))
    return Pairings(number, pairs, tuple(out))


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


__all__ = ["Pairings", "pair_round", "round_games"]
