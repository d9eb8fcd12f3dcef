"""docs/rules.md against the engine: every example, table and code block on the page.

The page is the authoritative rules text and the engine must implement it, so this test
reads the page itself (never a copy of its examples) and fails as soon as the two disagree:

* every ```vastuz-example block (format: the page's "Reading the examples" section) is
  replayed against ``referee.engine``;
* every ```vastuz-session block is fed to the SDK's ``protocol.bot.BotSession``;
* the table of the 12 symmetries is parsed and checked to be the lattice's symmetry group
  and the engine's own transformations;
* the table of shape counts is checked by enumerating polyhexes with the engine's
  canonical form;
* the ```python block is executed;
* the error table's messages are the ones the examples check, and the page's links stay
  inside the repository.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from referee.engine import (
    MAX_SIZE,
    MIN_SIZE,
    BadNotation,
    Color,
    IllegalTurn,
    Position,
    canonical,
    geometry,
    iter_points,
    point_count,
    point_name,
)
from referee.engine.shapes import _images, same_shape

ROOT = Path(__file__).resolve().parents[1]
DOC_PATH = ROOT / "docs" / "rules.md"
DOC = DOC_PATH.read_text(encoding="utf-8")

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))
TURNING_ORDER = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))


# -- reading the page ---------------------------------------------------------------------
@dataclass
class Block:
    tag: str
    line: int  # line number of the first line inside the fence (1-based)
    lines: list[str]

    @property
    def id(self) -> str:
        return f"{self.tag}@{self.line}"


def fenced_blocks(text: str, tag: str) -> list[Block]:
    out: list[Block] = []
    current: Block | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if current is None:
            if line.strip() == f"```{tag}":
                current = Block(tag, number + 1, [])
        elif line.strip() == "```":
            out.append(current)
            current = None
        else:
            current.lines.append(line)
    assert current is None, f"unclosed ```{tag} block starting at line {current.line}"
    return out


EXAMPLES = fenced_blocks(DOC, "vastuz-example")
SESSIONS = fenced_blocks(DOC, "vastuz-session")
PYTHON = fenced_blocks(DOC, "python")


@dataclass
class Statement:
    line: int
    key: str
    value: str
    body: list[str] = field(default_factory=list)  # the diagram lines after "diagram:"

    def where(self, block: Block) -> str:
        return f"docs/rules.md line {self.line}: {self.key}: {self.value}"


def statements(block: Block) -> list[Statement]:
    out: list[Statement] = []
    for offset, raw in enumerate(block.lines):
        number = block.line + offset
        if raw.startswith(" "):
            assert out and out[-1].key == "diagram", f"line {number}: indented line outside a diagram"
            out[-1].body.append(raw)
            continue
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        key, sep, value = raw.partition(":")
        assert sep, f"line {number}: not a 'key: value' statement: {raw!r}"
        out.append(Statement(number, key.strip(), value.strip()))
    return out


def with_reason(value: str) -> tuple[str, str | None]:
    """``TURN => REASON`` -> (TURN, REASON); the reason is optional."""
    if "=>" in value:
        turn, reason = value.split("=>", 1)
        return turn.strip(), reason.strip()
    return value.strip(), None


def words(value: str) -> list[str]:
    return [] if value == "none" else value.split()


def group_sets(value: str) -> set[frozenset[str]]:
    if value == "none":
        return set()
    return {frozenset(part.split()) for part in value.split("/")}


def build_prefix(pos: Position, prefix: str):
    place, *steals = prefix.split(",")
    tb = pos.begin_turn(place)
    for steal in steals:
        frm, to = steal.split(">")
        tb.steal(frm, to)
    return tb


def count_or_list(value: str, actual: list[str], where: str) -> None:
    if value.isdigit():
        assert len(actual) == int(value), f"{where}: engine has {len(actual)}: {actual[:20]}"
    else:
        assert sorted(actual) == sorted(words(value)), f"{where}: engine says {sorted(actual)}"


def cells_of(size: int, names: list[str]) -> list[tuple[int, int]]:
    geo = geometry(size)
    return [geo.coords(geo.parse(n)) for n in names]


def is_connected(cells: list[tuple[int, int]]) -> bool:
    have = set(cells)
    seen = {cells[0]}
    todo = [cells[0]]
    while todo:
        q, r = todo.pop()
        for dq, dr in STEPS:
            c = (q + dq, r + dr)
            if c in have and c not in seen:
                seen.add(c)
                todo.append(c)
    return seen == have


# -- the examples ----------------------------------------------------------------------------
SETUP_KEYS = {"black", "white", "to move"}
REASONS: dict[str, set[str]] = {"illegal": set(), "bad notation": set(), "illegal setup": set()}


def run_example(block: Block) -> int:
    """Replay one example block; returns the number of checks made."""
    stmts = statements(block)
    assert stmts and stmts[0].key == "size", f"{block.id}: an example starts with 'size: N'"
    size = int(stmts[0].value)
    pos = Position.new(size)
    geo = geometry(size)
    black: list[str] = []
    white: list[str] = []
    to_move = "black"
    started = False  # a setup or a turn was made: no more stones may be put directly
    checks = 0
    for st in stmts[1:]:
        where = st.where(block)
        key, value = st.key, st.value
        if key in SETUP_KEYS:
            assert not started, f"{where}: stones and side are given before any setup or turn"
            if key == "black":
                black = words(value)
            elif key == "white":
                white = words(value)
            else:
                to_move = value
            pos = Position.from_stones(size, black, white, to_move)
            continue
        if key == "setup":
            b, w = value.split()
            pos = pos.setup(b, w)
            started = True
            continue
        if key == "play":
            legal = pos.legal_turns()
            assert value.lower() in legal, f"{where}: not among the engine's legal turns"
            pos = pos.play(value)
            started = True
            checks += 1
            continue
        checks += 1
        if key == "illegal setup":
            pts, reason = with_reason(value)
            b, w = pts.split()
            with pytest.raises(IllegalTurn) as info:
                pos.setup(b, w)
            if reason is not None:
                assert str(info.value) == reason, where
                REASONS[key].add(reason)
        elif key in ("illegal", "bad notation"):
            turn, reason = with_reason(value)
            cls = IllegalTurn if key == "illegal" else BadNotation
            before = pos
            with pytest.raises((IllegalTurn, BadNotation)) as info:
                pos.play(turn)
            assert type(info.value) is cls, (
                f"{where}: engine raised {type(info.value).__name__}: {info.value}"
            )
            if reason is not None:
                assert str(info.value) == reason, f"{where}: engine says {str(info.value)!r}"
                REASONS[key].add(reason)
            assert turn.strip().lower() not in pos.legal_turns(), where
            assert pos == before
        elif key == "placements":
            assert pos.legal_placements() == sorted(words(value)), (
                f"{where}: engine says {pos.legal_placements()}"
            )
        elif key == "turns":
            count_or_list(value, pos.legal_turns(), where)
        elif key.startswith("turns from "):
            place = key.removeprefix("turns from ").strip()
            turns = [t for t in pos.legal_turns() if t.split(",")[0] == place]
            count_or_list(value, turns, where)
        elif key.startswith("steals after "):
            tb = build_prefix(pos, key.removeprefix("steals after ").strip())
            count_or_list(value, [f"{a}>{b}" for a, b in tb.legal_steals()], where)
        elif key.startswith("round after "):
            tb = build_prefix(pos, key.removeprefix("round after ").strip())
            assert not tb.is_complete, f"{where}: no steal is open after this prefix"
            assert tb.round == int(value), f"{where}: engine says round {tb.round}"
        elif key.startswith("groups "):
            color = key.removeprefix("groups ").strip()
            actual = {frozenset(g) for g in pos.groups(color)}
            assert actual == group_sets(value), f"{where}: engine says {pos.groups(color)}"
        elif key == "score":
            b, w = (float(x) for x in value.split())
            assert pos.score() == (b, w), f"{where}: engine says {pos.score()}"
        elif key == "result":
            assert pos.result() == value, f"{where}: engine says {pos.result()}"
        elif key == "next":
            if value == "game over":
                assert pos.is_over, where
            else:
                assert not pos.is_over and pos.to_move is Color.parse(value), f"{where}: {pos.to_move}"
        elif key == "points":
            assert point_count(size) == int(value) == geo.point_count == len(list(iter_points(size))), where
        elif key.startswith("coordinates of "):
            name = key.removeprefix("coordinates of ").strip()
            q, r = (int(x) for x in value.split())
            assert geo.coords(geo.parse(name)) == (q, r), where
            assert point_name(size, geo.index(q, r)) == name, where
        elif key.startswith("neighbours of "):
            p = geo.parse(key.removeprefix("neighbours of ").strip())
            actual = sorted(geo.names[n] for n in geo.neighbours[p])
            assert actual == sorted(words(value)), f"{where}: engine says {actual}"
        elif key == "same shape":
            sets, answer = with_reason(value)
            a_names, b_names = (part.split() for part in sets.split("/"))
            a, b = cells_of(size, a_names), cells_of(size, b_names)
            assert is_connected(a) and is_connected(b), f"{where}: not groups"
            expected, by_rotation = {
                "yes": (True, None),
                "no": (False, False),
                "yes, by a rotation": (True, True),
                "yes, only by a reflection": (True, False),
            }[answer]
            assert (canonical(a) == canonical(b)) is expected, where
            mask = lambda names: sum(1 << geo.parse(n) for n in names)
            assert same_shape(mask(a_names), mask(b_names), geo.width) is expected, where
            if by_rotation is not None:
                rotated = canonical(a, reflections=False) == canonical(b, reflections=False)
                assert rotated is by_rotation, where
        elif key == "diagram":
            expected_lines = [line.rstrip() for line in st.body]
            actual_lines = [line.rstrip() for line in pos.diagram().splitlines()]
            assert actual_lines == expected_lines, f"{where}: engine draws\n" + "\n".join(actual_lines)
        else:
            raise AssertionError(f"{where}: unknown statement {key!r}")
    return checks


def test_the_page_has_its_examples():
    assert len(EXAMPLES) >= 20
    assert len(SESSIONS) >= 1
    assert len(PYTHON) >= 1


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example(block):
    assert run_example(block) > 0, f"{block.id}: an example must check something"


def test_error_table_messages_are_checked_by_the_examples():
    for block in EXAMPLES:
        run_example(block)
    kinds = {"notation": "bad notation", "illegal": "illegal", "illegal setup": "illegal setup"}
    rows = 0
    for line in DOC.splitlines():
        m = re.fullmatch(r"\| (notation|illegal|illegal setup) \| (.+) \| (.+) \|", line)
        if not m:
            continue
        rows += 1
        for message in re.findall(r"`([^`]+)`", m.group(3)):
            assert message in REASONS[kinds[m.group(1)]], f"table message {message!r} is in no example"
    assert rows >= 15


# -- the session with the SDK -----------------------------------------------------------------
def test_sessions_with_the_sdk():
    from protocol.bot import Bot, BotSession

    class QuietBot(Bot):
        def choose_turn(self, position, time_left):  # pragma: no cover - never asked here
            raise AssertionError("the session never asks for a turn")

    for block in SESSIONS:
        session = BotSession(QuietBot(0), log=io.StringIO())
        lines = [line for line in block.lines if line.strip()]
        assert len(lines) % 2 == 0, block.id
        for command, expected in zip(lines[::2], lines[1::2], strict=True):
            assert command.startswith("> "), f"{block.id}: {command!r}"
            before = session.position
            answer = session.handle_line(command[2:])
            assert answer is not None and answer.endswith("\n\n")
            assert answer.split("\n")[0] == expected, f"{command}: the SDK answers {answer!r}"
            if expected.startswith("?"):
                assert session.position is before, f"{command}: the board changed after '?'"


# -- the 12 symmetries ------------------------------------------------------------------------
def linear(expr: str) -> tuple[int, int]:
    """'q - r' -> (1, -1): the coefficients of q and r."""
    compact = expr.replace(" ", "")
    assert re.fullmatch(r"([+-]?[qr])+", compact), expr
    coef = {"q": 0, "r": 0}
    for sign, var in re.findall(r"([+-]?)([qr])", compact):
        coef[var] += -1 if sign == "-" else 1
    return coef["q"], coef["r"]


@dataclass(frozen=True)
class Sym:
    name: str
    text: str
    m: tuple[tuple[int, int], tuple[int, int]]  # rows: new q, new r as coefficients of (q, r)

    def __call__(self, q: int, r: int) -> tuple[int, int]:
        (a, b), (c, d) = self.m
        return a * q + b * r, c * q + d * r

    @property
    def det(self) -> int:
        (a, b), (c, d) = self.m
        return a * d - b * c

    @property
    def images_of_basis(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return self(1, 0), self(0, 1)


def page_symmetries() -> dict[str, Sym]:
    out = {}
    for line in DOC.splitlines():
        m = re.fullmatch(r"\| ([RS]\d) \| (.+?) \| `\((.+), (.+)\)` \|", line)
        if m:
            out[m.group(1)] = Sym(m.group(1), m.group(2), (linear(m.group(3)), linear(m.group(4))))
    return out


SYMS = page_symmetries()


def compose(f, g):
    return lambda q, r: f(*g(q, r))


def test_page_lists_twelve_distinct_symmetries():
    assert sorted(SYMS) == [f"R{k}" for k in range(6)] + [f"S{k}" for k in range(6)]
    assert len({s.m for s in SYMS.values()}) == 12


@pytest.mark.parametrize("name", sorted(SYMS))
def test_each_symmetry_maps_neighbours_to_neighbours(name):
    s = SYMS[name]
    assert sorted(s(*step) for step in STEPS) == sorted(STEPS)
    for q, r in itertools.product(range(-4, 5), repeat=2):
        for dq, dr in STEPS:
            a, b = s(q, r), s(q + dq, r + dr)
            assert (b[0] - a[0], b[1] - a[1]) in STEPS
            # with any translation too
            for tq, tr in ((3, -2), (-5, 7)):
                assert ((b[0] + tq) - (a[0] + tq), (b[1] + tr) - (a[1] + tr)) in STEPS


def test_they_are_all_the_symmetries_of_the_lattice():
    # a linear map is fixed by the images of (1, 0) and (0, 1), which must be steps
    group = set()
    for u, v in itertools.product(STEPS, repeat=2):
        m = ((u[0], v[0]), (u[1], v[1]))
        if sorted(Sym("?", "", m)(*s) for s in STEPS) == sorted(STEPS):
            group.add(m)
    assert group == {s.m for s in SYMS.values()}


def test_rotations_and_reflections_are_what_the_page_says():
    flat = " ".join(DOC.split())
    m = re.search(r"the six steps come in the order (.+?) \(the \*turning order\*\)", flat)
    assert m, "the page states the turning order"
    steps = [(int(a), int(b)) for a, b in re.findall(r"`\((-?\d+), (-?\d+)\)`", m.group(1))]
    assert steps == list(TURNING_ORDER)
    assert sorted(steps) == sorted(STEPS)
    r1 = SYMS["R1"]
    for i, step in enumerate(TURNING_ORDER):
        assert r1(*step) == TURNING_ORDER[(i + 1) % 6]
    assert SYMS["R0"].m == ((1, 0), (0, 1))
    power = SYMS["R0"]
    for k in range(6):
        rk = SYMS[f"R{k}"]
        assert rk.det == 1
        assert f"rotation by {60 * k} degrees" in rk.text
        for q, r in itertools.product(range(-3, 4), repeat=2):
            assert rk(q, r) == power(q, r)  # Rk is R1 done k times
        power = compose(r1, power)
    assert all(power(q, r) == (q, r) for q, r in STEPS)  # R1 six times is the identity
    s0 = SYMS["S0"]
    assert s0(2, 5) == (5, 2)
    for k in range(6):
        sk = SYMS[f"S{k}"]
        assert sk.det == -1
        m = re.search(r"line through \((-?\d+), (-?\d+)\)", sk.text)
        assert m, sk.text
        fixed = (int(m.group(1)), int(m.group(2)))
        assert sk(*fixed) == fixed
        assert compose(sk, sk)(3, 1) == (3, 1)
        for q, r in itertools.product(range(-3, 4), repeat=2):
            assert sk(q, r) == s0(*SYMS[f"R{k}"](q, r))


def test_the_engine_uses_exactly_these_symmetries():
    engine = [tuple(img) for img in _images([(1, 0), (0, 1)])]
    order = [name for k in range(6) for name in (f"R{k}", f"S{k}")]
    assert engine == [SYMS[name].images_of_basis for name in order]


def polyhexes(max_n: int) -> dict[int, set[tuple[tuple[int, int], ...]]]:
    """Every connected set of cells up to size max_n, up to translation."""

    def norm(cells):
        mq = min(q for q, _ in cells)
        mr = min(r for _, r in cells)
        return tuple(sorted((q - mq, r - mr) for q, r in cells))

    level = {((0, 0),)}
    out = {1: level}
    for n in range(2, max_n + 1):
        nxt = set()
        for cells in level:
            have = set(cells)
            for q, r in cells:
                for dq, dr in STEPS:
                    c = (q + dq, r + dr)
                    if c not in have:
                        nxt.add(norm(have | {c}))
        out[n] = level = nxt
    return out


@pytest.fixture(scope="module")
def sets():
    return polyhexes(8)


def test_canonical_form_is_invariant_under_the_page_symmetries(sets):
    rotations = [SYMS[f"R{k}"] for k in range(6)]
    reflections = [SYMS[f"S{k}"] for k in range(6)]
    chiral = 0
    for n in range(1, 6):
        for cells in sets[n]:
            free = canonical(cells)
            one_sided = canonical(cells, reflections=False)
            for s in rotations + reflections:
                img = [s(q, r) for q, r in cells]
                shifted = [(q + 4, r - 9) for q, r in img]
                assert canonical(shifted) == free
            for s in rotations:
                assert canonical([s(q, r) for q, r in cells], reflections=False) == one_sided
            mirrored = canonical([reflections[0](q, r) for q, r in cells], reflections=False)
            chiral += mirrored != one_sided
    assert chiral > 0  # reflections matter for some shapes, as the counts below show


def shape_count_table() -> dict[str, list[int]]:
    rows = {}
    for line in DOC.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and all(c.isdigit() for c in cells[1:]):
            rows[cells[0]] = [int(c) for c in cells[1:]]
    return rows


def test_shape_counts_on_the_page_match_the_engine(sets):
    table = shape_count_table()
    assert table["size"] == list(range(1, 9))
    free = table["shapes: rotations, reflections and translations"]
    one_sided = table["counted with rotations and translations only"]
    fixed = table["counted with translations only"]
    assert free[:7] == [1, 1, 3, 7, 22, 82, 333]
    for n in range(1, 9):
        assert len(sets[n]) == fixed[n - 1]
        one_sided_forms = {canonical(s, reflections=False) for s in sets[n]}
        assert len(one_sided_forms) == one_sided[n - 1]
        # every free shape is the union of one or two one-sided ones: count from those
        assert len({canonical(s) for s in one_sided_forms}) == free[n - 1]


# -- the board -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_board_coordinates_names_and_neighbours_follow_the_page(size):
    n1 = size - 1
    on_board = {(q, r) for q in range(2 * n1 + 1) for r in range(2 * n1 + 1) if abs(q - r) <= n1}
    assert len(on_board) == 3 * size * (size - 1) + 1 == point_count(size)
    geo = geometry(size)
    assert {geo.coords(p) for p in geo.points} == on_board
    for p in geo.points:
        q, r = geo.coords(p)
        name = "abcdefghijklmnopqrstuvwxyz"[q] + str(r + 1)
        assert geo.names[p] == name and geo.parse(name.upper()) == p
        expected = {(q + dq, r + dr) for dq, dr in STEPS} & on_board
        assert {geo.coords(x) for x in geo.neighbours[p]} == expected
    assert MIN_SIZE == 2 and MAX_SIZE == 13


def test_prose_claims_about_notation():
    pos = Position.new(5).setup(" C3 ", "g7")
    assert pos.stones("black") == ["c3"]
    assert pos.play(" e5\t") == pos.play("e5") == pos.play("E5")
    assert (
        Position.from_stones(2, ["a1"], ["b1", "a2", "b3", "c2"], "white").play("PASS").to_move is Color.BLACK
    )
    with pytest.raises(BadNotation):
        Position.new(5).setup("a9", "c3")
    # the setup never steals, even with touching stones
    touching = Position.new(5).setup("e5", "f5")
    assert touching.stones("black") == ["e5"] and touching.stones("white") == ["f5"]


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_game_length_and_passes(size):
    """Every turn but a pass adds one stone; two passes never follow each other; a game
    has at most 2 * points + 1 turns."""
    rng = random.Random(size)
    for game in range(12):
        pos = Position.new(size)
        if game % 2:
            pos = pos.setup(*rng.sample(list(iter_points(size)), 2))
        turns = 0
        last_pass = False
        while not pos.is_over:
            stones = len(pos.stones("black")) + len(pos.stones("white"))
            turn = pos.random_turn(rng)
            pos = pos.play(turn)
            turns += 1
            after = len(pos.stones("black")) + len(pos.stones("white"))
            if turn == "pass":
                assert after == stones and not last_pass
            else:
                assert after == stones + 1
            last_pass = turn == "pass"
        assert turns <= 2 * point_count(size) + 1


# -- the code, the links, the claims about itself ------------------------------------------------
@pytest.mark.parametrize("block", PYTHON, ids=lambda b: b.id)
def test_python_block_runs(block):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(block.lines), f"docs/rules.md:{block.line}", "exec"), {})
    text = out.getvalue()
    assert "missing compulsory steal after 0 steal(s)" in text
    assert "BadNotation not a point name: 'a07'" in text


def slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_stay_in_the_repository_and_anchors_exist():
    assert "shared/" not in DOC and "/work/" not in DOC
    anchors = {slug(line.lstrip("#")) for line in DOC.splitlines() if line.startswith("#")}
    links = re.findall(r"\]\(([^)]+)\)", DOC)
    assert links
    for link in links:
        assert not re.match(r"[a-z]+://", link), link
        path, _, anchor = link.partition("#")
        if path:
            assert (DOC_PATH.parent / path).resolve().is_file(), link
            assert ROOT in (DOC_PATH.parent / path).resolve().parents, link
        else:
            assert anchor in anchors, link


def test_the_page_says_it_is_authoritative():
    text = " ".join(DOC.replace("**", "").split())
    assert "This page is the complete rules of Vastuz as this arena implements them" in text
    assert "Where the engine and this page disagree, the engine is the bug" in text
