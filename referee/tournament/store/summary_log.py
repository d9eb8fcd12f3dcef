"""Every game summary of a run, kept in columns: what a long run holds per game.

A run keeps one :class:`~referee.play.records.GameSummary` a game for its whole length, in
the runner and again in its standings process. As objects, each is a dozen of them (the
summary, its two bots, their stats, the floats, the ids): hundreds of bytes a game, most of
it object headers and pointers. :class:`SummaryLog` keeps the same values in arrays, a
column a field, and makes a summary only when one is asked for. A summary it is given
comes back equal, field for field; one whose values do not fit the columns (a type or a
range a results file could hold but the referee does not write) is kept as it was given.

The log also indexes its rows by slot, which is what resume, a second delivery of a game
and :func:`~referee.tournament.store.folder.latest_records` ask of a run's summaries: an
open-addressing table of row numbers keyed by the slot's hash, in an array, where a
``dict`` of the slots would cost more than the summaries.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Any, overload

from referee.play.records import BotStats, BotSummary, FaultEntry, GameSummary, Termination
from referee.ratings.history import pair_score
from referee.ratings.model import GameResult
from referee.ratings.report import game_result
from referee.tournament.store.duplicates import game_identity

_TERMS = tuple(Termination)
_TERM_CODE = {t: k for k, t in enumerate(_TERMS)}
_VOID = _TERM_CODE[Termination.VOID]
_NO_WINNER = -1
_NOT_LATE = (0, 0.0, 0, 0.0)
_INT64 = 1 << 63
_UINT32 = 1 << 32

# Bits of a row's flags.
_PAIR_NONE = 1  # its pair key is None (not the empty string)
_REPEATED = 2  # its slot has more than one row: see _repeats
_WHOLE = 4  # kept as given, in _whole
_SLOT = 8  # its slot is not its game id: see _slots
_LATE = 16  # see _late
_FAULT = 32  # see _faults


def _piece(text: bytearray, ends: array[int], k: int) -> str:
    """Row ``k``'s text of a column kept as one UTF-8 buffer with each row's end offset."""
    return text[ends[k - 1] if k else 0 : ends[k]].decode("utf-8", "surrogatepass")


def _fits(s: GameSummary) -> bool:
    """Whether the columns hold ``s`` exactly (else it is kept whole)."""
    labels, bots, winner = s.labels, s.bots, s.winner
    if not (
        type(s.game_id) is str
        and type(s.slot) is str
        and type(labels) is tuple
        and len(labels) == 2
        and type(labels[0]) is str
        and type(labels[1]) is str
        and (winner is None or (type(winner) is int and winner in (0, 1)))
        and type(s.termination) is Termination
        and (s.fault is None or type(s.fault) is FaultEntry)
        and (s.pair_key is None or type(s.pair_key) is str)
        and (s.event is None or type(s.event) is str)
        and type(s.moves) is int
        and -_INT64 <= s.moves < _INT64
        and type(bots) is tuple
        and len(bots) == 2
    ):
        return False
    for seat in (0, 1):
        bot = bots[seat]
        if type(bot) is not BotSummary or bot.label != labels[seat]:
            return False
        st = bot.stats
        if not (
            type(st) is BotStats
            and type(st.requests) is int
            and 0 <= st.requests < _UINT32
            and type(st.overhead_us) is float
            and type(st.late) is int
            and type(st.late_max) is float
            and type(st.bot_seconds) is float
            and type(st.thinking_seconds) is float
            and not st.bot_seconds  # a summary keeps neither (see GameSummary.of)
            and not st.thinking_seconds
        ):
            return False
    return True


class _Rows(Sequence[GameSummary]):
    """What a log and a view of it share: a sequence of summaries made on demand."""

    def _log_rows(self) -> tuple[SummaryLog, Sequence[int]]:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> GameSummary: ...

    @overload
    def __getitem__(self, index: slice) -> SummaryView: ...

    def __getitem__(self, index: int | slice) -> GameSummary | SummaryView:
        log, rows = self._log_rows()
        if isinstance(index, slice):
            return SummaryView(log, rows[index])
        return log.row(rows[index])  # a range's index: negative ones, IndexError

    def __iter__(self) -> Iterator[GameSummary]:
        log, rows = self._log_rows()
        row = log.row
        for k in rows:
            yield row(k)

    def slots(self) -> Iterator[str]:
        """These rows' slots, read from the columns (no summary is made)."""
        log, rows = self._log_rows()
        return map(log.slot_of, rows)

    def events(self) -> Iterator[str | None]:
        """These rows' events, read from the columns (no summary is made)."""
        log, rows = self._log_rows()
        return map(log.event_of, rows)

    def results(self) -> Iterator[GameResult]:
        """The rating view of these rows' rated games, in order: ``game_result`` of each
        summary but the void ones', read from the columns (no summary is made), one at a
        time. A page's rating history takes one pass over every game of the run: this is
        that pass, and it holds no list of them."""
        log, rows = self._log_rows()
        return log._results(rows)

    def rated_count(self) -> int:
        """How many games :meth:`results` gives."""
        log, rows = self._log_rows()
        return log._rated_count(rows)

    def pair_scores(self, candidate: str) -> Iterator[tuple[Hashable, float]]:
        """``pair_score(g, candidate)`` of each of these rows' games, those it gives None
        left out, in order, read from the columns (no summary is made): an SPRT's LLR
        history takes one pass over every game of the run."""
        log, rows = self._log_rows()
        return log._pair_scores(rows, candidate)

    def identities(self) -> Iterator[Hashable | None]:
        """``game_identity`` of each of these rows' games, in order, read from the columns
        (no summary is made): a report's check for games repeated move for move."""
        log, rows = self._log_rows()
        return log._identities(rows)

    def game_id_at(self, index: int) -> str:
        """The game id of the row at ``index`` (of these rows), without making its summary."""
        log, rows = self._log_rows()
        return log._game_id(rows[index])

    def seats(self) -> Iterator[tuple[str, tuple[str, str]]]:
        """Each of these rows' slot and labels (its bots in their seats), in order, read
        from the columns (no summary is made): a plan's check of a folder's records."""
        log, rows = self._log_rows()
        return log._seats(rows)

    def rated(self) -> SummaryView:
        """These rows but the void games', as a view (read from the columns: no summary
        is made)."""
        log, rows = self._log_rows()
        is_void = log.is_void
        return SummaryView(log, array("q", (k for k in rows if not is_void(k))))

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same summaries (a list of them, another log)."""
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class SummaryLog(_Rows):
    """An append-only sequence of :class:`~referee.play.records.GameSummary`, in columns
    (see the module's docstring). Indexing makes the summary; a slice is a
    :class:`SummaryView` of the same columns, not a copy. Pickled, it is its arrays."""

    def __init__(self, summaries: Iterable[GameSummary] = ()) -> None:
        self._ids = bytearray()  # every row's game id, UTF-8, one after another
        self._id_ends = array("I")
        self._pairs = bytearray()  # every row's pair key, likewise
        self._pair_ends = array("I")
        self._texts: list[str | None] = [None]  # the labels and events, each once
        self._codes: dict[str | None, int] = {None: 0}
        self._labels = array("I")  # two a row, codes into _texts
        self._events = array("I")
        self._winners = array("b")
        self._terms = array("B")
        self._flags = bytearray()
        self._requests = array("I")  # two a row
        self._overhead = array("d")  # two a row
        self._moves = array("q")
        self._late: dict[int, tuple[int, float, int, float]] = {}  # rows with a late answer
        self._faults: dict[int, FaultEntry] = {}
        self._slots: dict[int, str] = {}  # rows whose slot is not their game id
        self._whole: dict[int, GameSummary] = {}
        self._repeats: dict[str, list[int]] = {}  # slot -> its rows, for slots with several
        self._table = array("I", bytes(4 * 8))  # row + 1 of each slot's first row; 0: free
        for s in summaries:
            self.append(s)

    # -- writing --------------------------------------------------------------------------
    def _code(self, text: str | None) -> int:
        code = self._codes.get(text)
        if code is None:
            code = self._codes[text] = len(self._texts)
            self._texts.append(text)
        return code

    def append(self, s: GameSummary) -> None:
        k = len(self._moves)
        if _fits(s):
            flags = 0
            self._ids += s.game_id.encode("utf-8", "surrogatepass")
            if s.slot != s.game_id:
                self._slots[k] = s.slot
                flags = _SLOT
            if s.pair_key is None:
                flags |= _PAIR_NONE
            else:
                self._pairs += s.pair_key.encode("utf-8", "surrogatepass")
            code = self._code
            self._labels.append(code(s.labels[0]))
            self._labels.append(code(s.labels[1]))
            self._events.append(code(s.event))
            self._winners.append(_NO_WINNER if s.winner is None else s.winner)
            self._terms.append(_TERM_CODE[s.termination])
            a, b = s.bots[0].stats, s.bots[1].stats
            self._requests.append(a.requests)
            self._requests.append(b.requests)
            self._overhead.append(a.overhead_us)
            self._overhead.append(b.overhead_us)
            self._moves.append(s.moves)
            if a.late or a.late_max or b.late or b.late_max:
                self._late[k] = (a.late, a.late_max, b.late, b.late_max)
                flags |= _LATE
            if s.fault is not None:
                self._faults[k] = s.fault
                flags |= _FAULT
        else:  # placeholders keep the columns aligned
            flags = _WHOLE
            self._whole[k] = s
            self._labels.extend((0, 0))
            self._events.append(0)
            self._winners.append(_NO_WINNER)
            self._terms.append(0)
            self._requests.extend((0, 0))
            self._overhead.extend((0.0, 0.0))
            self._moves.append(0)
        self._id_ends = _grown(self._id_ends, len(self._ids))
        self._pair_ends = _grown(self._pair_ends, len(self._pairs))
        self._flags.append(flags)
        self._index(s.slot, k)

    def _index(self, slot: str, k: int) -> None:
        first = self.first_row(slot)
        if first is not None:
            rows = self._repeats.get(slot)
            if rows is None:
                rows = self._repeats[slot] = [first]
                self._flags[first] |= _REPEATED
            rows.append(k)
            self._flags[k] |= _REPEATED
            return
        table = self._table
        if 2 * (k + 1) > len(table):  # at most half full: short probes
            self._rehash(k)
            table = self._table
        mask = len(table) - 1
        at = hash(slot) & mask
        while table[at]:
            at = (at + 1) & mask
        table[at] = k + 1

    def _rehash(self, rows: int) -> None:
        size = len(self._table)
        while 2 * (rows + 1) > size:
            size *= 2
        table = array("I", bytes(4 * size))
        mask = size - 1
        flags = self._flags
        for k in range(rows):
            if flags[k] & _REPEATED and self._repeats[self.slot_of(k)][0] != k:
                continue  # only a slot's first row is in the table
            at = hash(self.slot_of(k)) & mask
            while table[at]:
                at = (at + 1) & mask
            table[at] = k + 1
        self._table = table

    # -- reading --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._moves)

    def _log_rows(self) -> tuple[SummaryLog, Sequence[int]]:
        return self, range(len(self))

    def slot_of(self, k: int) -> str:
        """Row ``k``'s slot, without making its summary."""
        flags = self._flags[k]
        if flags & _SLOT:
            return self._slots[k]
        if flags & _WHOLE:
            return self._whole[k].slot
        return _piece(self._ids, self._id_ends, k)

    def event_of(self, k: int) -> str | None:
        if self._flags[k] & _WHOLE:
            return self._whole[k].event
        return self._texts[self._events[k]]

    def is_void(self, k: int) -> bool:
        if self._flags[k] & _WHOLE:
            return self._whole[k].is_void
        return self._terms[k] == _VOID

    def row(self, k: int) -> GameSummary:
        """Row ``k``'s summary (``0 <= k < len(self)``). Every pass over a run's games
        makes its summaries here, so the flags say which of the sparse fields to look up."""
        flags = self._flags[k]
        if flags & _WHOLE:
            return self._whole[k]
        texts = self._texts
        game_id = _piece(self._ids, self._id_ends, k)
        pair_key = None if flags & _PAIR_NONE else _piece(self._pairs, self._pair_ends, k)
        two = 2 * k
        labels = self._labels
        a, b = texts[labels[two]], texts[labels[two + 1]]
        assert a is not None and b is not None
        late = self._late[k] if flags & _LATE else _NOT_LATE
        requests, overhead = self._requests, self._overhead
        winner = self._winners[k]
        return GameSummary(
            game_id,
            self._slots[k] if flags & _SLOT else game_id,
            (a, b),
            None if winner == _NO_WINNER else winner,
            _TERMS[self._terms[k]],
            self._faults[k] if flags & _FAULT else None,
            pair_key,
            (
                BotSummary(a, BotStats(requests[two], 0.0, 0.0, overhead[two], late[0], late[1])),
                BotSummary(b, BotStats(requests[two + 1], 0.0, 0.0, overhead[two + 1], late[2], late[3])),
            ),
            self._moves[k],
            texts[self._events[k]],
        )

    def _results(self, rows: Iterable[int]) -> Iterator[GameResult]:
        flags, terms, winners = self._flags, self._terms, self._winners
        texts, labels, pairs, ends = self._texts, self._labels, self._pairs, self._pair_ends
        for k in rows:
            f = flags[k]
            if f & _WHOLE:
                whole = game_result(self._whole[k])
                if whole is not None:
                    yield whole
                continue
            if terms[k] == _VOID:
                continue
            winner = winners[k]
            a, b = texts[labels[2 * k]], texts[labels[2 * k + 1]]
            assert a is not None and b is not None
            pair = None if f & _PAIR_NONE else _piece(pairs, ends, k)
            yield GameResult(a, b, 0.5 if winner == _NO_WINNER else 1.0 if winner == 0 else 0.0, pair)

    def _rated_count(self, rows: Sequence[int]) -> int:
        if not self._whole and isinstance(rows, range) and rows.step == 1:  # a prefix, a slice
            return len(rows) - self._terms[rows.start : rows.stop].tobytes().count(_VOID)
        flags, terms, whole = self._flags, self._terms, self._whole
        return sum(
            game_result(whole[k]) is not None if flags[k] & _WHOLE else terms[k] != _VOID for k in rows
        )

    def _pair_scores(self, rows: Iterable[int], candidate: str) -> Iterator[tuple[Hashable, float]]:
        flags, terms, winners = self._flags, self._terms, self._winners
        labels, pairs, ends = self._labels, self._pairs, self._pair_ends
        code = self._codes.get(candidate)  # None: only a row kept whole can name it
        for k in rows:
            f = flags[k]
            if f & _WHOLE:
                found = pair_score(self._whole[k], candidate)
                if found is not None:
                    yield found
                continue
            if f & _PAIR_NONE or terms[k] == _VOID:
                continue
            if labels[2 * k] == code:
                seat = 0
            elif labels[2 * k + 1] == code:
                seat = 1
            else:
                continue
            winner = winners[k]
            yield _piece(pairs, ends, k), 0.5 if winner == _NO_WINNER else 1.0 if winner == seat else 0.0

    def _identities(self, rows: Iterable[int]) -> Iterator[Hashable | None]:
        flags, terms, winners, moves = self._flags, self._terms, self._winners, self._moves
        texts, labels = self._texts, self._labels
        for k in rows:
            f = flags[k]
            if f & _WHOLE:
                yield game_identity(self._whole[k])
            elif terms[k] == _VOID:
                yield None
            else:
                winner = winners[k]
                yield (
                    (texts[labels[2 * k]], texts[labels[2 * k + 1]]),
                    moves[k],
                    None if winner == _NO_WINNER else winner,
                )

    def _game_id(self, k: int) -> str:
        if self._flags[k] & _WHOLE:
            return self._whole[k].game_id
        return _piece(self._ids, self._id_ends, k)

    def _seats(self, rows: Iterable[int]) -> Iterator[tuple[str, tuple[str, str]]]:
        flags, texts, labels = self._flags, self._texts, self._labels
        for k in rows:
            if flags[k] & _WHOLE:
                whole = self._whole[k]
                yield whole.slot, whole.labels
            else:
                a, b = texts[labels[2 * k]], texts[labels[2 * k + 1]]
                assert a is not None and b is not None
                yield self.slot_of(k), (a, b)

    def first_row(self, slot: str) -> int | None:
        """The first row whose slot is ``slot``, None if none is."""
        table = self._table
        mask = len(table) - 1
        at = hash(slot) & mask
        while True:
            k = table[at]
            if not k:
                return None
            if self.slot_of(k - 1) == slot:
                return k - 1
            at = (at + 1) & mask

    def rows_of(self, slot: str) -> list[int]:
        """Every row whose slot is ``slot``, in order (none: empty)."""
        rows = self._repeats.get(slot)
        if rows is not None:
            return list(rows)
        first = self.first_row(slot)
        return [] if first is None else [first]

    def rows_like(self, k: int) -> list[int]:
        """Every row whose slot is row ``k``'s, in order: ``rows_of(slot_of(k))`` without
        the slot's text or a probe of the table for a slot recorded once."""
        if not self._flags[k] & _REPEATED:
            return [k]
        return list(self._repeats[self.slot_of(k)])

    def latest(self, stop: int | None = None, warnings: list[str] | None = None) -> SummaryView:
        """:func:`~referee.tournament.store.folder.latest_records` of the first ``stop``
        rows (all: None), as a view: one row per slot, the first with a result, else the
        last void one, in the order of each slot's first row."""
        n = len(self) if stop is None else min(stop, len(self))
        flags = self._flags
        if not self._repeats:
            return SummaryView(self, range(n))
        rows = array("q")
        dropped: list[tuple[int, str]] = []  # (row, slot) of each second result
        for k in range(n):
            if not flags[k] & _REPEATED:
                rows.append(k)
                continue
            slot = self.slot_of(k)
            same = [j for j in self._repeats[slot] if j < n]
            if same[0] != k:
                continue  # placed at its slot's first row
            kept = same[0]
            for j in same[1:]:
                if self.is_void(kept):
                    kept = j
                elif not self.is_void(j):
                    dropped.append((j, slot))
            rows.append(kept)
        if dropped and warnings is not None:
            from referee.tournament.store.folder import duplicate_ids_warning  # folder imports this module

            counts: dict[str, int] = {}
            for _, slot in sorted(dropped):  # named in the order they come, as the list's
                counts[slot] = counts.get(slot, 0) + 1
            warnings.append(duplicate_ids_warning(counts))
        return SummaryView(self, rows)

    # -- pickling: the arrays, not the summaries (the slot table is rebuilt: str hashes
    # are salted per process) ----------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in _STATE}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in _STATE:
            setattr(self, name, state[name])
        self._codes = {text: k for k, text in enumerate(self._texts)}
        self._table = array("I", bytes(4 * 8))
        self._rehash(len(self))

    def __repr__(self) -> str:
        return f"<SummaryLog of {len(self)} games>"


_STATE = (
    "_ids",
    "_id_ends",
    "_pairs",
    "_pair_ends",
    "_texts",
    "_labels",
    "_events",
    "_winners",
    "_terms",
    "_flags",
    "_requests",
    "_overhead",
    "_moves",
    "_late",
    "_faults",
    "_slots",
    "_whole",
    "_repeats",
)


def _grown(ends: array[int], end: int) -> array[int]:
    """``ends`` with ``end`` appended, widened to 64 bits past 4 GB of text."""
    if end >= _UINT32 and ends.typecode == "I":
        ends = array("Q", ends)
    ends.append(end)
    return ends


class SummaryView(_Rows):
    """Some rows of a :class:`SummaryLog`, in a given order: a slice of it, or its latest
    records (:meth:`SummaryLog.latest`). A sequence of summaries made on demand."""

    def __init__(self, log: SummaryLog, rows: Sequence[int]) -> None:
        self.log = log
        self.rows = rows

    def _log_rows(self) -> tuple[SummaryLog, Sequence[int]]:
        return self.log, self.rows

    def __len__(self) -> int:
        return len(self.rows)

    def latest(self, warnings: list[str] | None = None) -> SummaryView:
        """As :meth:`SummaryLog.latest`, of these rows."""
        rows = self.rows
        if isinstance(rows, range) and rows.start == 0 and rows.step == 1:  # a prefix of the log
            return self.log.latest(rows.stop, warnings)
        from referee.tournament.store.folder import latest_records  # folder imports this module

        kept = latest_records([_Row(s, k) for s, k in zip(self, rows, strict=True)], warnings)
        return SummaryView(self.log, array("q", (r.k for r in kept)))

    def __repr__(self) -> str:
        return f"<SummaryView of {len(self)} of {len(self.log)} games>"


class _Row:
    """A row's summary and its number, for :func:`latest_records` over a view."""

    __slots__ = ("k", "summary")

    def __init__(self, summary: GameSummary, k: int) -> None:
        self.summary = summary
        self.k = k

    @property
    def slot(self) -> str:
        return self.summary.slot

    @property
    def is_void(self) -> bool:
        return self.summary.is_void
