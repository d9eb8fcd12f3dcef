"""Time odds in the standings: which bot played at which clock, and the note that such
ratings are not comparable with those of even games (issue 25).

One source for the run and for ``vastuz report``: the run has its config, the report only
the manifest's fingerprint (the config's clock and each bot's own, written only where a bot
has one), and both become the same :class:`TimeOdds`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.play.spec import TimeControl, TimeControlKind
from referee.ratings.report import Section, Standings
from referee.tournament.config.values import TournamentConfig, clock_words

NOT_COMPARABLE = "ratings not comparable with those of even games"


@dataclass(frozen=True)
class TimeOdds:
    """The run's clock and the bots' own (None: the run's), in config order."""

    default: TimeControl
    bots: tuple[tuple[str, TimeControl | None], ...]

    @classmethod
    def of_config(cls, config: TournamentConfig) -> TimeOdds | None:
        """The config's odds, None if every bot plays at the config's clock."""
        odds = cls(config.time_control, tuple((b.name, b.time_control) for b in config.bots))
        return odds if odds.uneven else None

    @classmethod
    def of_fingerprint(cls, fingerprint: Mapping[str, object]) -> TimeOdds | None:
        """The odds a manifest's fingerprint records, None if none (or not readable: a
        report still stands without the note)."""
        try:
            default = _clock(fingerprint["time_control"])
            bots = fingerprint["bots"]
            if not isinstance(bots, Sequence):
                return None
            own = tuple(
                (str(b["name"]), _clock(b["time_control"]) if "time_control" in b else None)
                for b in bots
                if isinstance(b, Mapping)
            )
        except (KeyError, TypeError, ValueError):
            return None
        odds = cls(default, own)
        return odds if odds.uneven else None

    @property
    def uneven(self) -> bool:
        return any(tc is not None and tc != self.default for _, tc in self.bots)

    def clock_of(self, name: str) -> TimeControl:
        return next((tc for n, tc in self.bots if n == name and tc is not None), self.default)

    def note(self) -> str:
        """``time odds: fast at 0.1 s per move, the others at 1 s per move: ratings not ...``."""
        own = ", ".join(f"{name} at {clock_words(tc)}" for name, tc in self.bots if tc is not None)
        return f"time odds: {own}, the others at {clock_words(self.default)}: {NOT_COMPARABLE}"

    def section(self) -> Section:
        """Each bot's clock: a table, ``standings.json``'s ``sections.time_controls`` and each
        bot's ``time_control`` field (the keys of the config, with ``kind``)."""
        names = [name for name, _ in self.bots]
        return Section(
            key="time_controls",
            title=f"Time controls (time odds: {NOT_COMPARABLE})",
            headers=("bot", "time control", "its own"),
            rows=tuple(
                (name, clock_words(self.clock_of(name)), "yes" if tc is not None else "no (the run's)")
                for name, tc in self.bots
            ),
            data={
                "default": _json(self.default),
                "bots": {name: _json(self.clock_of(name)) for name in names},
            },
            bot_fields={
                name: {"time_control": _json(self.clock_of(name)), "time_odds": tc is not None}
                for name, tc in self.bots
            },
        )

    def apply(self, st: Standings) -> None:
        """The note among the standings' warnings and the clocks as a section."""
        st.warnings.append(self.note())
        st.sections.append(self.section())


def _clock(data: object) -> TimeControl:
    """A time control from its fingerprint form (``{"kind": "per_move", "per_move": 0.5,
    "margin": 0.2}``)."""
    if not isinstance(data, Mapping):
        raise TypeError("not a mapping")
    kind = TimeControlKind(data["kind"])
    if kind is TimeControlKind.PER_MOVE:
        return TimeControl.fixed(float(data["per_move"]), margin=float(data["margin"]))
    return TimeControl.fischer(float(data["main"]), float(data["increment"]), margin=float(data["margin"]))


def _json(tc: TimeControl) -> dict[str, object]:
    return {"kind": tc.kind.value, **tc.as_dict()}
