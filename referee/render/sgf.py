"""A game record as SGF (FF[4]) and back: one game tree, one node per turn.

Writer and reader live together so they cannot drift: :func:`game_sgf` writes what
:func:`parse_sgf` reads, and ``vastuz show FILE.sgf`` replays the result like a record.

SGF numbers its games (``GM[1]`` is Go); Vastuz has no number, so ``GM`` holds the game's
name, ``Vastuz``, as the standard allows a private game to do, and ``GN`` the game's id.
Points and turns are written in the project's notation (``d4``, ``g7,f6>f6``), not in SGF's
two-letter Go coordinates: the board is a hexagon. Standard properties: ``SZ`` (the board
size), ``PB``/``PW`` (the bots that played Black and White), ``RE`` (the record's result:
``B+4.5``, ``W+T``, ``0`` a draw, ``Void``), ``EV``, ``RO``, ``DT``, ``AB``/``AW`` (the pie
setup), ``B``/``W`` per turn and ``BL``/``WL`` (the mover's Fischer time left). What SGF has
no property for is in private ones (uppercase names of our own, which SGF readers keep and
ignore): ``SEATS`` (the seats' labels, seat 0 first), ``COMMANDS``, ``BOTNAMES`` (what each
bot called itself), ``OPENING``, ``TIMECONTROL`` (as JSON), ``SETUPBY``/``SETUPTIME``,
``CHOOSER``/``CHOICE``/``CHOICETIME`` (the pie decision), ``TERMINATION``, ``REASON``,
``SCORE``, ``NOTES``, and per turn ``TIME`` (the bot's answer time) and ``GIVEN`` (a turn
the referee gave from a book or random opening).

Pure: text in, text out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from referee.engine import Color
from referee.play.records import (
    VOID_RESULT,
    BotEntry,
    ChoiceEntry,
    GameRecord,
    Outcome,
    SetupEntry,
    Termination,
    TurnEntry,
)

GAME_NAME = "Vastuz"


def _value(text: str) -> str:
    """An SGF property value: ``]`` and ``\\`` escaped."""
    return "[" + text.replace("\\", "\\\\").replace("]", "\\]") + "]"


def _number(x: float) -> str:
    return repr(round(float(x), 6))


def _result(record: GameRecord) -> str:
    return "Void" if record.is_void else record.result


def game_sgf(record: GameRecord, *, event: str | None = None, round_: str | None = None) -> str:
    """The record as one SGF game tree (a trailing newline included)."""
    root: list[tuple[str, list[str]]] = [
        ("FF", ["4"]),
        ("CA", ["UTF-8"]),
        ("AP", ["vastuz"]),
        ("GM", [GAME_NAME]),
        ("GN", [record.game_id]),
        ("SZ", [str(record.size)]),
    ]
    if record.black is not None:
        root.append(("PB", [record.label_of(record.black)]))
    if record.white is not None:
        root.append(("PW", [record.label_of(record.white)]))
    root.append(("RE", [_result(record)]))
    if event is not None:
        root.append(("EV", [event]))
    if round_ is not None:
        root.append(("RO", [round_]))
    if record.started_at[:10].count("-") == 2:
        root.append(("DT", [record.started_at[:10]]))
    root += [
        ("SEATS", [b.label for b in record.bots]),
        ("COMMANDS", [b.command for b in record.bots]),
        ("BOTNAMES", [" ".join(x for x in (b.name, b.version) if x) for b in record.bots]),
        ("OPENING", [record.opening]),
        ("TIMECONTROL", [json.dumps(record.time_control, sort_keys=True)]),
    ]
    if record.black is not None and record.white is not None:
        root.append(("COLOURS", [str(record.black), str(record.white)]))
    if record.setup is not None:
        root += [("AB", [record.setup.black]), ("AW", [record.setup.white])]
        root.append(("SETUPBY", ["referee" if record.setup.by is None else record.label_of(record.setup.by)]))
        if record.setup.seconds is not None:
            root.append(("SETUPTIME", [_number(record.setup.seconds)]))
        if record.setup.late is not None:
            root.append(("SETUPLATE", [_number(record.setup.late)]))
    if record.choice is not None:
        root += [
            ("CHOOSER", [record.label_of(record.choice.by)]),
            ("CHOICE", [record.choice.color.value]),
            ("CHOICETIME", [_number(record.choice.seconds)]),
        ]
        if record.choice.late is not None:
            root.append(("CHOICELATE", [_number(record.choice.late)]))
    root += [("TERMINATION", [record.termination.value]), ("REASON", [record.reason])]
    if record.score is not None:
        root.append(("SCORE", [_number(record.score[0]), _number(record.score[1])]))
    if record.notes:
        root.append(("NOTES", list(record.notes)))
    comment = (
        f"{record.label_of(record.choice.by)} chose {record.choice.color.value}. " if record.choice else ""
    )
    root.append(("C", [f"{comment}{record.result} ({record.termination.value}): {record.reason}"]))
    nodes = [_node(root)]
    for turn in record.turns:
        letter = "B" if turn.color is Color.BLACK else "W"
        props: list[tuple[str, list[str]]] = [(letter, [turn.turn])]
        if turn.opening:
            props.append(("GIVEN", ["referee"]))
        if turn.seconds is not None:
            props.append(("TIME", [_number(turn.seconds)]))
        if turn.left is not None:
            props.append((f"{letter}L", [_number(turn.left)]))
        if turn.late is not None:
            props.append(("LATE", [_number(turn.late)]))
        nodes.append(_node(props))
    return "(" + "\n".join(nodes) + ")\n"


def _node(props: list[tuple[str, list[str]]]) -> str:
    return ";" + "".join(name + "".join(_value(v) for v in values) for name, values in props)


# ---------------------------------------------------------------------------- reading


_TOKEN = re.compile(r"\s*(?:([();])|([A-Z]+)|(\[))")


def _tokens(text: str) -> Iterator[tuple[str, str]]:
    """``("(", "")``, ``(";", "")``, ``("id", NAME)``, ``("value", TEXT)``: SGF's lexical
    level (escapes undone, soft line breaks removed)."""
    at = 0
    while True:
        m = _TOKEN.match(text, at)
        if m is None:
            if text[at:].strip():
                raise ValueError(f"unexpected {text[at : at + 20]!r} at character {at}")
            return
        at = m.end()
        if m.group(1):
            yield m.group(1), ""
        elif m.group(2):
            yield "id", m.group(2)
        else:
            out = []
            while True:
                if at >= len(text):
                    raise ValueError("a property value is not closed (a ']' is missing)")
                char = text[at]
                if char == "\\":
                    nxt = text[at + 1 : at + 2]
                    if nxt != "\n":  # an escaped newline is a soft line break: nothing
                        out.append(nxt)
                    at += 2
                    continue
                at += 1
                if char == "]":
                    break
                out.append(char)
            yield "value", "".join(out)


def parse_nodes(text: str) -> list[dict[str, list[str]]]:
    """The main line of the first game tree in ``text``, as one property mapping per node.
    Variations are not something we write: one is an error, like any text that is not SGF."""
    nodes: list[dict[str, list[str]]] = []
    depth = 0
    name: str | None = None
    ended = False
    for kind, value in _tokens(text):
        if ended:
            raise ValueError("more than one game tree (vastuz export writes one game per file)")
        if kind == "(":
            depth += 1
            if depth > 1 or nodes:
                raise ValueError("a variation (vastuz export writes one line of play)")
        elif kind == ")":
            depth -= 1
            if depth < 0:
                raise ValueError("a ')' without its '('")
            ended = depth == 0
        elif kind == ";":
            if depth != 1:
                raise ValueError("a node outside a game tree")
            nodes.append({})
            name = None
        elif kind == "id":
            if not nodes:
                raise ValueError(f"property {value} before the first node")
            name = value
            nodes[-1].setdefault(name, [])
        else:
            if name is None:
                raise ValueError("a property value without a property name")
            nodes[-1][name].append(value)
    if not ended:
        raise ValueError("not a complete SGF game tree (expected '(;FF[4]...)')")
    return nodes


def parse_sgf(text: str) -> GameRecord:
    """The record an SGF file of :func:`game_sgf` holds (the bots' statistics, logs and
    timestamps other than the date are not in it). ``ValueError`` says what is wrong."""
    nodes = parse_nodes(text)
    if not nodes:
        raise ValueError("the game tree has no node")
    root = nodes[0]

    def one(name: str, default: str | None = None) -> str:
        values = root.get(name)
        if not values:
            if default is None:
                raise ValueError(f"the root node lacks {name}[...]")
            return default
        return values[0]

    if one("GM", GAME_NAME) != GAME_NAME:
        raise ValueError(f"not a Vastuz game (GM[{one('GM')}]; expected GM[{GAME_NAME}])")
    try:
        size = int(one("SZ"))
        labels = root.get("SEATS") or [one("PB", "black"), one("PW", "white")]
        if len(labels) != 2:
            raise ValueError("SEATS must hold two labels")
        commands = root.get("COMMANDS") or ["", ""]
        names = root.get("BOTNAMES") or ["", ""]
        bots = []
        for seat in (0, 1):
            name, _, version = names[seat].partition(" ")
            bots.append(BotEntry(labels[seat], commands[seat], name or None, version or None))
        colours = root.get("COLOURS")
        black: int | None
        white: int | None
        if colours:
            black, white = int(colours[0]), int(colours[1])
        elif "PB" in root and "PW" in root:
            black = labels.index(one("PB"))
            white = 1 - black
        else:
            black = white = None

        def seat_of(label: str) -> int | None:
            return None if label == "referee" else labels.index(label)

        setup = None
        if "AB" in root or "AW" in root:
            time, late = root.get("SETUPTIME"), root.get("SETUPLATE")
            setup = SetupEntry(
                one("AB"),
                one("AW"),
                seat_of(one("SETUPBY", "referee")),
                float(time[0]) if time else None,
                float(late[0]) if late else None,
            )
        choice = None
        if "CHOOSER" in root:
            late = root.get("CHOICELATE")
            choice = ChoiceEntry(
                seat_of(one("CHOOSER")) or 0,
                Color(one("CHOICE")),
                float(one("CHOICETIME", "0")),
                float(late[0]) if late else None,
            )
        turns = []
        for number, node in enumerate(nodes[1:], start=1):
            letters = [c for c in ("B", "W") if c in node]
            if len(letters) != 1:
                raise ValueError(f"node {number + 1} holds no turn (B[...] or W[...])")
            letter = letters[0]
            time = node.get("TIME")
            left = node.get(f"{letter}L")
            late = node.get("LATE")
            turns.append(
                TurnEntry(
                    number,
                    Color.BLACK if letter == "B" else Color.WHITE,
                    node[letter][0],
                    float(time[0]) if time else None,
                    float(left[0]) if left else None,
                    opening="GIVEN" in node,
                    late=float(late[0]) if late else None,
                )
            )
        result = one("RE", VOID_RESULT)
        termination = Termination(one("TERMINATION", "void" if result in ("Void", VOID_RESULT) else "score"))
        score_values = root.get("SCORE")
        score = (float(score_values[0]), float(score_values[1])) if score_values else None
        tc = json.loads(one("TIMECONTROL", "{}"))
        if not isinstance(tc, dict):
            raise ValueError("TIMECONTROL is not a JSON object")
    except (ValueError, IndexError, KeyError) as exc:
        raise ValueError(f"not a Vastuz SGF game of vastuz export: {exc}") from None
    outcome, winner = _outcome(result, black, white)
    dt = root.get("DT")
    return GameRecord(
        game_id=one("GN", "sgf"),
        size=size,
        opening=one("OPENING", "pie" if setup is not None else "empty"),
        time_control=tc,
        bots=bots,
        black=black,
        white=white,
        setup=setup,
        choice=choice,
        turns=turns,
        result=VOID_RESULT if result == "Void" else result,
        outcome=outcome,
        termination=termination,
        winner=winner,
        reason=one("REASON", ""),
        score=score,
        started_at=dt[0] if dt else "",
        notes=list(root.get("NOTES", [])),
    )


def _outcome(result: str, black: int | None, white: int | None) -> tuple[Outcome, int | None]:
    if result.startswith("B+"):
        return Outcome.BLACK_WINS, black
    if result.startswith("W+"):
        return Outcome.WHITE_WINS, white
    if result in ("0", "Draw"):
        return Outcome.DRAW, None
    return Outcome.VOID, None
