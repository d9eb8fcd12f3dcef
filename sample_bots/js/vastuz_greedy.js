#!/usr/bin/env node
/*
 * vastuz_greedy.js: a greedy one-ply Vastuz bot in plain Node.js (no npm packages).
 *
 * It plays the turn after which its score margin (the score formula applied to the
 * stones as they stand, its score minus the opponent's) is largest, ties at random, like
 * sample_bots/greedy_bot.py. The full rules are here (placement, compulsory steal rounds,
 * pie rule, score, sizes 2 to 13), written for reading rather than speed: a template for
 * a bot author in JavaScript or TypeScript. Rules: docs/rules.md; protocol:
 * protocol/PROTOCOL.md.
 *
 * Run:    node sample_bots/js/vastuz_greedy.js [--seed N] [--max-turns K]
 * Check:  vastuz check "node sample_bots/js/vastuz_greedy.js" --size 7 --size 5
 *
 * Options:
 *   --seed N        seed of every random choice (default: from the clock)
 *   --max-turns K   evaluate about K complete turns per move at most: every placement is
 *                   tried, but past K turns in all, the steal completions of each
 *                   placement are sampled (default 2000, as greedy_bot)
 *
 * Pie rule: the setup is two random points; as second player it takes Black (one ply
 * sees no reason to prefer White).
 *
 * Sections: random numbers, board geometry, position and groups, shapes, steals, turns,
 * the greedy player, protocol loop.
 */
'use strict';

const readline = require('readline');

// ------------------------------------------------------------------- random numbers
// mulberry32: a small seeded generator, so that --seed replays the same games.
let rngState = 0;
function seedRng(seed) { rngState = (seed >>> 0) ^ 0x9e3779b9; }
function random() {
  rngState = (rngState + 0x6d2b79f5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function randBelow(n) { return Math.floor(random() * n); }
function shuffle(a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = randBelow(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// ------------------------------------------------------------------- board geometry
// A hex-hex board of side N; point (q, r) exists iff 0 <= q, r <= 2N-2 and |q-r| <= N-1.
// Name: column letter (q) then row number (r+1). Points are numbered in row order.
let N, SIDE, P;
let PQ, PR, NB, NAME, INDEX;

function setBoardSize(n) {
  N = n;
  SIDE = 2 * n - 1;
  PQ = []; PR = []; NAME = []; INDEX = new Map();
  const idx = (q, r) => (q >= 0 && r >= 0 && q < SIDE && r < SIDE && Math.abs(q - r) <= n - 1);
  const at = new Map();
  for (let r = 0; r < SIDE; r++) {
    for (let q = 0; q < SIDE; q++) {
      if (!idx(q, r)) continue;
      const p = PQ.length;
      PQ.push(q); PR.push(r);
      NAME.push(String.fromCharCode(97 + q) + (r + 1));
      INDEX.set(NAME[p], p);
      at.set(q * 100 + r, p);
    }
  }
  P = PQ.length;
  const dirs = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1]];
  NB = [];
  for (let p = 0; p < P; p++) {
    NB.push(dirs.filter(([dq, dr]) => idx(PQ[p] + dq, PR[p] + dr))
      .map(([dq, dr]) => at.get((PQ[p] + dq) * 100 + PR[p] + dr)));
  }
}

// A point name in any case -> point, or -1 (off the board, or not a name: "a07").
function parsePoint(text) {
  const p = INDEX.get(text.toLowerCase());
  return p === undefined ? -1 : p;
}

// ---------------------------------------------------------- position and groups
// A position is { col, toMove }: col[p] is 0 (empty), 1 (Black) or 2 (White); colour
// indices are 0 for Black and 1 for White, so a stone of colour c is c + 1.

function newPosition() { return { col: new Int8Array(P), toMove: 0 }; }
function copyPosition(pos) { return { col: pos.col.slice(), toMove: pos.toMove }; }

// Label the groups: gid[p] is the group of the stone on p (-1 if empty); groups[g] lists
// its points.
function labelGroups(col) {
  const gid = new Int32Array(P).fill(-1);
  const groups = [];
  for (let p = 0; p < P; p++) {
    if (!col[p] || gid[p] >= 0) continue;
    const g = groups.length, stones = [p];
    gid[p] = g;
    for (let i = 0; i < stones.length; i++) {
      for (const q of NB[stones[i]]) {
        if (col[q] === col[p] && gid[q] < 0) { gid[q] = g; stones.push(q); }
      }
    }
    groups.push(stones);
  }
  return { gid, groups };
}

// The score (doubled, to stay in integers) of both colours: for each, the sum of its
// distinct group sizes plus their number, plus a half point for the strictly largest
// group.
function scores2(col) {
  const { groups } = labelGroups(col);
  const sizes = [new Set(), new Set()];
  for (const g of groups) sizes[col[g[0]] - 1].add(g.length);
  const largest = sizes.map((s) => Math.max(0, ...s));
  return [0, 1].map((c) => {
    let sum = 0;
    for (const s of sizes[c]) sum += s;
    return 2 * (sum + sizes[c].size) + (largest[c] > largest[1 - c] ? 1 : 0);
  });
}

function resultText(col) {
  const [b, w] = scores2(col);
  if (b === w) return '0';
  return (b > w ? 'B+' : 'W+') + Math.abs(b - w) / 2;
}

// A placement is legal iff the point is empty and touches at most one own group.
function legalPlacements(pos, c, labels = labelGroups(pos.col)) {
  const out = [];
  for (let p = 0; p < P; p++) {
    if (pos.col[p]) continue;
    let g = -1, ok = true;
    for (const q of NB[p]) {
      if (pos.col[q] !== c + 1) continue;
      if (g < 0) g = labels.gid[q];
      else if (labels.gid[q] !== g) { ok = false; break; }
    }
    if (ok) out.push(p);
  }
  return out;
}

function isOver(pos) {
  const labels = labelGroups(pos.col);
  return legalPlacements(pos, 0, labels).length === 0 && legalPlacements(pos, 1, labels).length === 0;
}

// ------------------------------------------------------------------------ shapes
// Same shape = equal up to translation and the 12 symmetries of the lattice. In axial
// coordinates (q, r) -> (q - r, q) turns by 60 degrees and (q, r) -> (r, q) reflects.
// The canonical form is the smallest text of the 12 images moved to the origin.
function canonicalShape(points) {
  let cells = points.map((p) => [PQ[p], PR[p]]);
  let best = null;
  for (let rot = 0; rot < 6; rot++) {
    for (const image of [cells, cells.map(([q, r]) => [r, q])]) {
      const mq = Math.min(...image.map((c) => c[0])), mr = Math.min(...image.map((c) => c[1]));
      const text = image.map(([q, r]) => (q - mq) * 64 + (r - mr)).sort((a, b) => a - b).join(',');
      if (best === null || text < best) best = text;
    }
    cells = cells.map(([q, r]) => [q - r, q]);
  }
  return best;
}

// ------------------------------------------------------------------------ steals
// After the placement, G is the mover's group holding the new stone. Stealing goes in
// rounds: at the start of a round, T = the enemy groups touching G with G's shape; the
// mover steals once from each group of T, in any order. A steal (x, y) takes x, a stone of
// such a group, and puts a stone of the mover on y: a point that (after the removal) is
// empty, touches G, and touches no other group of the mover. Compulsory: while a group of
// T not yet stolen from this round has a legal steal, one must be made (checked after
// every steal). A round without steal left ends the turn if it made none, else a new
// round starts.
//
// A Turn holds the board in the middle of a turn. The mover's other groups never change
// during a turn, so the points next to them ("blocked") are computed once.
class Turn {
  constructor(pos, place) {
    const c = pos.toMove;
    this.c = c;
    this.col = pos.col.slice();
    this.col[place] = c + 1;
    const labels = labelGroups(this.col);
    this.gid = labels.gid; // enemy groups keep these ids; new parts get new ones
    this.groups = labels.groups;
    this.G = labels.gid[place];
    this.blocked = new Uint8Array(P);
    for (let p = 0; p < P; p++) {
      if (this.col[p] === c + 1 && this.gid[p] !== this.G) for (const q of NB[p]) this.blocked[q] = 1;
    }
    this.steals = [];
    this.pending = [];
    this.roundSteals = 0;
    this.done = false;
    this.text = NAME[place];
    this.findTargets();
    this.advance();
  }

  copy() {
    const t = Object.create(Turn.prototype);
    Object.assign(t, this);
    t.col = this.col.slice();
    t.gid = this.gid.slice();
    t.groups = this.groups.slice(); // group arrays are replaced, never changed in place
    t.pending = this.pending.slice();
    t.steals = this.steals.slice();
    return t;
  }

  touchesG(y) { return NB[y].some((q) => this.gid[q] === this.G); }

  // The empty points next to G where a stolen stone may go.
  targets() {
    const seen = new Set();
    for (const x of this.groups[this.G]) {
      for (const y of NB[x]) if (!this.col[y] && !this.blocked[y]) seen.add(y);
    }
    return [...seen];
  }

  findTargets() {
    const e = 1 - this.c, g = this.groups[this.G];
    const seen = new Set();
    let shape = null;
    this.pending = [];
    for (const x of g) {
      for (const y of NB[x]) {
        if (this.col[y] !== e + 1 || seen.has(this.gid[y])) continue;
        const h = this.gid[y];
        seen.add(h);
        if (this.groups[h].length !== g.length) continue;
        if (shape === null) shape = canonicalShape(g);
        if (canonicalShape(this.groups[h]) === shape) this.pending.push(h);
      }
    }
  }

  // Every legal next steal [x, y].
  options() {
    if (this.done) return [];
    const open = this.targets(), out = [];
    for (const h of this.pending) {
      for (const x of this.groups[h]) {
        for (const y of open) out.push([x, y]);
        if (this.touchesG(x) && !this.blocked[x]) out.push([x, x]); // onto its own point
      }
    }
    return out;
  }

  advance() {
    for (;;) {
      if (this.pending.length) {
        const open = this.targets().length > 0;
        for (const h of this.pending) {
          if (open || this.groups[h].some((x) => this.touchesG(x) && !this.blocked[x])) return;
        }
      }
      if (!this.roundSteals) { this.done = true; this.pending = []; return; }
      this.roundSteals = 0;
      this.findTargets();
    }
  }

  // Why steal (x, y) is not legal now, or null.
  check(x, y) {
    if (this.done) return 'extra steal: the turn was already complete';
    if (this.col[x] !== 2 - this.c || !this.pending.includes(this.gid[x])) {
      return `${NAME[x]} is not a stone of a group that must be stolen from now`;
    }
    if (y !== x && this.col[y]) return `${NAME[y]} is occupied`;
    if (!this.touchesG(y)) return `${NAME[y]} is not next to the stealing group`;
    if (this.blocked[y]) return `${NAME[y]} touches another group of the mover`;
    return null;
  }

  apply(x, y) {
    const h = this.gid[x];
    this.pending.splice(this.pending.indexOf(h), 1);
    // Take x off; the rest of its group may fall apart in pieces: relabel them.
    this.col[x] = 0;
    this.gid[x] = -1;
    const rest = this.groups[h].filter((p) => p !== x);
    this.groups[h] = [];
    for (const p of rest) this.gid[p] = -2;
    for (const p of rest) {
      if (this.gid[p] !== -2) continue;
      const id = this.groups.length, part = [p];
      this.gid[p] = id;
      for (let i = 0; i < part.length; i++) {
        for (const q of NB[part[i]]) if (this.gid[q] === -2) { this.gid[q] = id; part.push(q); }
      }
      this.groups.push(part);
    }
    // The mover's new stone joins G.
    this.col[y] = this.c + 1;
    this.gid[y] = this.G;
    this.groups[this.G] = [...this.groups[this.G], y];
    this.steals.push([x, y]);
    this.text += `,${NAME[x]}>${NAME[y]}`;
    this.roundSteals++;
    this.advance();
  }

  position() { return { col: this.col, toMove: 1 - this.c }; }
}

// ------------------------------------------------------------------------ turns
// Notation: "g7", "g7,f6>f6,e5>d4", "pass". Returns {place, steals} or null.
function parseTurn(text) {
  if (text.toLowerCase() === 'pass') return { place: -1, steals: [] };
  const parts = text.split(',');
  const place = parsePoint(parts[0]);
  if (place < 0) return null;
  const steals = [];
  for (const part of parts.slice(1)) {
    const ends = part.split('>');
    if (ends.length !== 2) return null;
    const x = parsePoint(ends[0]), y = parsePoint(ends[1]);
    if (x < 0 || y < 0) return null;
    steals.push([x, y]);
  }
  return { place, steals };
}

// Play a turn, checking every rule: the new position, or a string saying why not.
function playChecked(pos, turn) {
  const labels = labelGroups(pos.col);
  const c = pos.toMove;
  const mine = legalPlacements(pos, c, labels);
  if (mine.length === 0 && legalPlacements(pos, 1 - c, labels).length === 0) return 'the game is over';
  if (turn.place < 0) {
    return mine.length ? 'pass while a legal placement exists' : { col: pos.col.slice(), toMove: 1 - c };
  }
  if (!mine.includes(turn.place)) {
    return pos.col[turn.place] ? `${NAME[turn.place]} is occupied` : `${NAME[turn.place]} would merge groups`;
  }
  const t = new Turn(pos, turn.place);
  for (const [x, y] of turn.steals) {
    const why = t.check(x, y);
    if (why) return why;
    t.apply(x, y);
  }
  if (!t.done) return 'missing compulsory steal';
  return t.position();
}

// ------------------------------------------------------------------ the greedy player
let MAX_TURNS = 2000;

// Depth first, in random order, up to `cap` complete turns from t.
function completions(t, cap, out) {
  if (t.done) { out.push(t); return; }
  for (const [x, y] of shuffle(t.options())) {
    if (out.length >= cap) return;
    const child = t.copy();
    child.apply(x, y);
    completions(child, cap, out);
  }
}

// The turn with the best margin for the mover, ties at random; "pass" if forced.
function greedyTurn(pos) {
  const c = pos.toMove;
  const placements = legalPlacements(pos, c);
  if (placements.length === 0) return 'pass';
  const per = Math.max(1, Math.floor(MAX_TURNS / placements.length));
  let best = -Infinity, tied = [];
  for (const p of placements) {
    const outs = [];
    completions(new Turn(pos, p), per, outs);
    for (const t of outs) {
      const s = scores2(t.col), m = s[c] - s[1 - c];
      if (m > best) { best = m; tied = [t.text]; } else if (m === best) tied.push(t.text);
    }
  }
  return tied[randBelow(tied.length)];
}

// ------------------------------------------------------------------ protocol loop
// GTP-2 framing: "[id] name args" in; "=[id] text\n\n" or "?[id] text\n\n" out. Writes to
// a pipe are synchronous in Node on Linux, so each answer is on its way at once.
const COMMANDS = [
  'boardsize', 'choose_color', 'clear_board', 'final_score', 'genmove', 'gensetup',
  'known_command', 'list_commands', 'name', 'play', 'protocol_version', 'quit',
  'setup', 'showboard', 'time_left', 'time_settings', 'version',
];

let pos;

function parseColor(word) {
  const w = (word || '').toLowerCase();
  if (w === 'b' || w === 'black') return 0;
  if (w === 'w' || w === 'white') return 1;
  return -1;
}

function diagram() {
  const n1 = N - 1, rows = [];
  for (let r = 2 * n1; r >= 0; r--) {
    const cells = [];
    for (let q = Math.max(0, r - n1); q <= Math.min(2 * n1, r + n1); q++) {
      const c = pos.col[INDEX.get(String.fromCharCode(97 + q) + (r + 1))];
      cells.push(c === 1 ? 'X' : c === 2 ? 'O' : '.');
    }
    rows.push(`${String(r + 1).padStart(3)} ${' '.repeat(Math.abs(r - n1))}${cells.join(' ')}`);
  }
  rows.push('    ' + ' '.repeat(n1) + [...Array(SIDE)].map((_, q) => String.fromCharCode(97 + q)).join(' '));
  const [b, w] = scores2(pos.col);
  const status = isOver(pos) ? 'game over' : pos.toMove ? 'White to move' : 'Black to move';
  rows.push(`    ${status}; score Black ${b / 2}, White ${w / 2}`);
  return '\n' + rows.join('\n');
}

// Answer one command: [ok, text]; a third element true means "then exit".
function handle(name, args) {
  switch (name) {
    case 'protocol_version': return [true, '2'];
    case 'name': return [true, 'vastuz_greedy_js'];
    case 'version': return [true, '1.0'];
    case 'known_command': return [true, COMMANDS.includes(args[0]) ? 'true' : 'false'];
    case 'list_commands': return [true, COMMANDS.join('\n')];
    case 'quit': return [true, '', true];
    case 'boardsize': {
      const n = /^\d+$/.test(args[0] || '') ? Number(args[0]) : NaN;
      if (!(n >= 2 && n <= 13)) return [false, 'unacceptable size'];
      setBoardSize(n);
      pos = newPosition();
      return [true, ''];
    }
    case 'clear_board': pos = newPosition(); return [true, ''];
    case 'setup': {
      const b = parsePoint(args[0] || ''), w = parsePoint(args[1] || '');
      if (args.length !== 2 || b < 0 || w < 0) return [false, 'illegal setup: two points of the board expected'];
      if (b === w) return [false, 'illegal setup: the two points must differ'];
      if (pos.col.some((x) => x)) return [false, 'illegal setup: the board is not empty'];
      pos.col[b] = 1; pos.col[w] = 2; pos.toMove = 0;
      return [true, ''];
    }
    case 'play': {
      const c = parseColor(args[0]);
      if (args.length !== 2 || c < 0) return [false, 'illegal move: expected play COLOR TURN'];
      if (c !== pos.toMove) return [false, "illegal move: it is the other colour's turn"];
      const turn = parseTurn(args[1]);
      if (!turn) return [false, 'illegal move: bad notation'];
      const next = playChecked(pos, turn);
      if (typeof next === 'string') return [false, `illegal move: ${next}`];
      pos = next;
      return [true, ''];
    }
    case 'genmove': {
      const c = parseColor(args[0]);
      if (c < 0) return [false, 'expected genmove COLOR'];
      if (c !== pos.toMove) return [false, "genmove: it is the other colour's turn"];
      if (isOver(pos)) return [true, 'pass'];
      const text = greedyTurn(pos);
      pos = playChecked(pos, parseTurn(text)); // our own turn, legal by construction
      return [true, text];
    }
    case 'gensetup': {
      const b = randBelow(P);
      let w = randBelow(P - 1);
      if (w >= b) w++;
      if (!pos.col.some((x) => x)) { pos.col[b] = 1; pos.col[w] = 2; pos.toMove = 0; }
      return [true, `${NAME[b]} ${NAME[w]}`];
    }
    case 'choose_color': return [true, 'black'];
    case 'time_settings': case 'time_left': return [true, '']; // one ply needs no clock
    case 'showboard': return [true, diagram()];
    case 'final_score': return [true, resultText(pos.col)];
    default: return [false, 'unknown command'];
  }
}

function onLine(raw) {
  if (Buffer.byteLength(raw) > 65536) { process.stdout.write('? line too long\n\n'); return; }
  // GTP's cleaning: control characters out, tabs to spaces, '#' comments cut.
  let line = raw.replace(/\t/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
  const hash = line.indexOf('#');
  if (hash >= 0) line = line.slice(0, hash);
  const words = line.trim().split(/ +/).filter((w) => w);
  if (words.length === 0) return; // nothing left: no answer at all
  let id = '';
  if (/^\d+$/.test(words[0])) id = words.shift();
  if (words.length === 0) { process.stdout.write(`?${id} empty command\n\n`); return; }
  let ok, text, quit;
  try {
    [ok, text, quit] = handle(words[0], words.slice(1));
  } catch (error) { // a bug must not kill the loop: say so, carry on
    process.stderr.write(`${error.stack}\n`);
    [ok, text] = [false, `internal error: ${error.message}`];
  }
  process.stdout.write(`${ok ? '=' : '?'}${id}${text ? ' ' + text : ''}\n\n`);
  if (quit) { rl.close(); process.stdin.destroy(); }
}

// ------------------------------------------------------------------ main
const argv = process.argv.slice(2);
let seed = (Date.now() ^ (process.pid << 16)) >>> 0;
for (let i = 0; i < argv.length; i++) {
  const value = argv[i + 1];
  if (argv[i] === '--seed' && /^\d+$/.test(value || '')) { seed = Number(value); i++; }
  else if (argv[i] === '--max-turns' && /^[1-9]\d*$/.test(value || '')) { MAX_TURNS = Number(value); i++; }
  else {
    process.stderr.write('usage: node vastuz_greedy.js [--seed N] [--max-turns K]\n');
    process.exit(2);
  }
}
seedRng(seed);
setBoardSize(7);
pos = newPosition();
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', onLine);
