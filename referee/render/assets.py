# ruff: noqa: E501 - the page's own CSS and JavaScript, kept as written rather than wrapped at 110
"""The replay page's stylesheet and script (see :mod:`referee.render.html`).

The script has no rules code: it expands the change lists that Python computed with the
engine and draws them as :mod:`referee.render.svg` does (the functions named after that
module's mirror it, with the same :data:`~referee.render.svg.STYLE`).
"""

CSS = """
:root{--bg:#faf8f3;--fg:#1d1b16;--mute:#6d675c;--line:#ddd5c4;--sel:#ffe9a8;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
header{padding:8px 16px;border-bottom:1px solid var(--line);display:flex;gap:16px;align-items:baseline}
h1{font-size:18px;margin:0}h2{font-size:16px;margin:0 0 4px}
#summary,#count,#g-meta,.mute{color:var(--mute)}
main{display:grid;grid-template-columns:minmax(300px,380px) 1fr;gap:12px;padding:12px 16px}
#filters{display:flex;flex-wrap:wrap;gap:6px 10px;margin-bottom:6px}
#filters label{display:flex;gap:4px;align-items:center}
#list{height:70vh;overflow-y:auto;border:1px solid var(--line);background:#fff;position:relative}
#list-inner{position:relative}
.row{position:absolute;left:0;right:0;height:24px;line-height:24px;padding:0 6px;white-space:nowrap;
 overflow:hidden;text-overflow:ellipsis;cursor:pointer;border-bottom:1px solid #f1ece1;font-size:13px}
.row:hover{background:#f6f1e4}.row.sel{background:var(--sel)}
.row .res{display:inline-block;min-width:52px;font-weight:600}
#game{display:grid;grid-template-columns:minmax(280px,640px) minmax(180px,1fr);gap:12px;align-items:start}
#g-title,#g-meta{grid-column:1/-1}
#board svg{width:100%;height:auto;display:block}
#controls{display:flex;gap:4px;align-items:center;flex-wrap:wrap;margin:6px 0}
#controls button{font-size:16px;min-width:36px}
#slider{flex:1;min-width:120px}
#turn-label{min-width:110px;font-variant-numeric:tabular-nums}
#turns{max-height:78vh;overflow-y:auto;margin:0;padding:0 0 0 44px;border:1px solid var(--line);background:#fff;
 font-variant-numeric:tabular-nums}
#turns li{cursor:pointer;padding:1px 4px}#turns li:hover{background:#f6f1e4}
#turns li.cur{background:var(--sel)}#turns li.fault{color:var(--bad);cursor:default}
#turns .sec{color:var(--mute);margin-left:8px;float:right}
#turns .op{color:var(--mute);font-style:italic}
#fault{border:2px solid var(--bad);border-radius:6px;padding:8px;margin:6px 0;background:#fff5f4}
#fault pre{margin:4px 0;padding:4px;background:#fff;border:1px solid #eac9c5;white-space:pre-wrap;word-break:break-all}
#score table{border-collapse:collapse;margin-top:6px}#score td,#score th{padding:2px 8px;text-align:left;border-bottom:1px solid var(--line)}
.err{color:var(--bad)}
@media (max-width:900px){main,#game{grid-template-columns:1fr}}
"""

JS = r"""
"use strict";
(function () {
const DATA = JSON.parse(document.getElementById("vastuz-data").textContent);
// The page's games, for a script that adds to them (vastuz serve's page of a run going on):
// it changes DATA.games and fires the bot filter's "change" to redraw the list.
window.vastuzReplay = {data: DATA};
const S = DATA.style, GAMES = DATA.games, BOARDS = DATA.boards;
const ALPHA = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
const DIGIT = {}; for (let i = 0; i < 64; i++) DIGIT[ALPHA[i]] = i;
const COLORS = ["", "black", "white"];
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text); return e; };
const f1 = (v) => { let t = v.toFixed(1); if (t.endsWith(".0")) t = t.slice(0, -2); return t === "-0" ? "0" : t; };
const pts = (x) => (x === Math.floor(x) ? String(x) : String(x));
const colorOfSeat = (g, seat) => (g.k === null ? null : (g.k === seat ? "black" : "white"));
const seatOfColor = (g, color) => (g.k === null ? null : (color === "black" ? g.k : 1 - g.k));
const labelOf = (g, seat) => (seat === null || seat === undefined ? "-" : g.b[seat]);

// ---------------------------------------------------------------- the list and its filters
const RESULTS = [["black", "Black won"], ["white", "White won"], ["draw", "draw"], ["void", "void"],
  ["bot-won", "selected bot won"], ["bot-lost", "selected bot lost"]];
function fillSelect(sel, items) { for (const [v, t] of items) { const o = el("option", null, t); o.value = v; sel.appendChild(o); } }
const bots = [...new Set(GAMES.flatMap((g) => g.b))].sort();
fillSelect($("f-bot"), bots.map((b) => [b, b]));
fillSelect($("f-result"), RESULTS);
fillSelect($("f-term"), [...new Set(GAMES.map((g) => g.m))].sort().map((m) => [m, m]));
$("summary").textContent = GAMES.length + (GAMES.length === 1 ? " game" : " games");

let shown = GAMES.map((_, i) => i);
let selected = -1;
const ROW_H = 24;
function matches(g, bot, res, term, text) {
  if (bot && g.b[0] !== bot && g.b[1] !== bot) return false;
  if (term && g.m !== term) return false;
  if (text && String(g.id).toLowerCase().indexOf(text) < 0) return false;
  if (res) {
    if (res === "bot-won" || res === "bot-lost") {
      if (!bot || g.w === null) return false;
      const mine = g.b[g.w] === bot, theirs = g.b[1 - g.w] === bot;
      return res === "bot-won" ? mine && !theirs : theirs && !mine;
    }
    if (g.o !== res) return false;
  }
  return true;
}
function applyFilters() {
  const bot = $("f-bot").value, res = $("f-result").value, term = $("f-term").value;
  const text = $("f-text").value.trim().toLowerCase();
  shown = [];
  for (let i = 0; i < GAMES.length; i++) if (matches(GAMES[i], bot, res, term, text)) shown.push(i);
  $("count").textContent = shown.length === GAMES.length ? "all " + GAMES.length + " games"
    : shown.length + " of " + GAMES.length + " games";
  $("list-inner").style.height = shown.length * ROW_H + "px";
  $("list").scrollTop = 0;
  drawRows(true);
}
for (const id of ["f-bot", "f-result", "f-term"]) $(id).addEventListener("change", applyFilters);
$("f-text").addEventListener("input", applyFilters);

let drawnFrom = -1, drawnTo = -1;
function drawRows(force) {
  const list = $("list");
  const from = Math.max(0, Math.floor(list.scrollTop / ROW_H) - 10);
  const to = Math.min(shown.length, Math.ceil((list.scrollTop + (list.clientHeight || 600)) / ROW_H) + 10);
  if (!force && from === drawnFrom && to === drawnTo) return;
  drawnFrom = from; drawnTo = to;
  const inner = $("list-inner");
  inner.textContent = "";
  const frag = document.createDocumentFragment();
  for (let j = from; j < to; j++) {
    const i = shown[j], g = GAMES[i];
    const row = el("div", "row" + (i === selected ? " sel" : ""));
    row.dataset.i = i; row.dataset.id = g.id; row.style.top = j * ROW_H + "px";
    row.appendChild(el("span", "res", g.r));
    const black = g.k === null ? g.b[0] : g.b[g.k], white = g.k === null ? g.b[1] : g.b[1 - g.k];
    row.appendChild(document.createTextNode(" " + black + " \u2013 " + white + " "));
    row.appendChild(el("span", "mute", "\u00b7 " + g.m + " \u00b7 " + g.id));
    frag.appendChild(row);
  }
  inner.appendChild(frag);
}
$("list").addEventListener("scroll", () => drawRows(false));
$("list").addEventListener("click", (ev) => {
  const row = ev.target.closest(".row"); if (row) select(Number(row.dataset.i), null);
});

// ---------------------------------------------------------------- one game
let game = null;  // {g, board, states: [Int8Array], turns: [...], secs: [...]}
let cur = 0;
function expand(g) {
  const board = BOARDS[String(g.n)], count = board.names.length;
  const tokens = g.d.split(" ");
  const states = [];
  let st = new Int8Array(count);
  for (const tok of tokens) {
    st = st.slice();
    for (let c = 0; c + 1 < tok.length; c += 2) {
      const v = DIGIT[tok[c]] * 64 + DIGIT[tok[c + 1]];
      st[Math.floor(v / 3)] = v % 3;
    }
    states.push(st);
  }
  const turns = g.t ? g.t.split(" ") : [];
  const secs = g.s ? g.s.split(" ").map((x) => (x === "-" ? null : Number(x) / 1000)) : [];
  return { g, board, states, turns, secs };
}
function readTurn(board, text) {  // notation only: the placement, then each steal (FROM, TO)
  if (!text || text === "pass") return { place: null, steals: [] };
  const parts = text.split(",");
  const at = (name) => board.index[name];
  return { place: at(parts[0]), steals: parts.slice(1).map((p) => p.split(">").map(at)) };
}
function groupsOf(board, st) {
  const seen = new Uint8Array(st.length), out = [];
  for (let i = 0; i < st.length; i++) {
    if (!st[i] || seen[i]) continue;
    const members = [], stack = [i]; seen[i] = 1;
    while (stack.length) { const p = stack.pop(); members.push(p);
      for (const q of board.nb[p]) if (!seen[q] && st[q] === st[i]) { seen[q] = 1; stack.push(q); } }
    members.sort((a, b) => a - b);
    out.push({ color: COLORS[st[i]], members });
  }
  return out;
}
function svgGroups(board, st) {  // as referee.render.svg.groups_svg
  const halo = S.stone_r + S.group_pad, xy = board.xy;
  let under = '<g class="groups">', over = '<g class="group-sizes" font-size="' + f1(S.group_label_size) +
    '" font-weight="bold" text-anchor="middle" dominant-baseline="central">';
  for (const grp of groupsOf(board, st)) {
    const inside = new Set(grp.members), stroke = S["group_" + grp.color];
    let d = "";
    for (const a of grp.members) for (const b of board.nb[a]) if (b > a && inside.has(b))
      d += "M" + f1(xy[a][0]) + " " + f1(xy[a][1]) + "L" + f1(xy[b][0]) + " " + f1(xy[b][1]);
    under += '<g class="group" data-color="' + grp.color + '" data-size="' + grp.members.length +
      '" data-points="' + grp.members.map((i) => board.names[i]).join(" ") + '" fill="' + stroke +
      '" stroke="' + stroke + '" opacity="' + S.group_opacity + '">';
    if (d) under += '<path d="' + d + '" stroke-width="' + f1(2 * halo) + '" stroke-linecap="round" fill="none"/>';
    for (const i of grp.members) under += '<circle cx="' + f1(xy[i][0]) + '" cy="' + f1(xy[i][1]) + '" r="' + f1(halo) + '" stroke="none"/>';
    under += "</g>";
    let mx = 0, my = 0;
    for (const i of grp.members) { mx += xy[i][0]; my += xy[i][1]; }
    mx /= grp.members.length; my /= grp.members.length;
    let at = grp.members[0], best = Infinity;
    for (const i of grp.members) { const dd = (xy[i][0] - mx) ** 2 + (xy[i][1] - my) ** 2; if (dd < best - 1e-9) { best = dd; at = i; } }
    const ink = grp.color === "black" ? S.white_fill : S.black_fill;
    over += '<text class="group-size" data-color="' + grp.color + '" x="' + f1(xy[at][0]) + '" y="' + f1(xy[at][1]) +
      '" fill="' + ink + '">' + grp.members.length + "</text>";
  }
  return [under + "</g>", over + "</g>"];
}
function svgStones(board, st) {  // as referee.render.svg.stones_svg
  let out = '<g class="stones">';
  const r = f1(S.stone_r), w = f1(S.stone_stroke_width);
  for (let i = 0; i < st.length; i++) {
    if (!st[i]) continue;
    const c = COLORS[st[i]];
    out += '<circle class="stone" data-point="' + board.names[i] + '" data-color="' + c + '" cx="' + f1(board.xy[i][0]) +
      '" cy="' + f1(board.xy[i][1]) + '" r="' + r + '" fill="' + S[c + "_fill"] + '" stroke="' + S[c + "_stroke"] +
      '" stroke-width="' + w + '"/>';
  }
  return out + "</g>";
}
function badge(x, y, n) {
  return '<circle cx="' + f1(x) + '" cy="' + f1(y) + '" r="' + f1(S.badge_r) + '" fill="' + S.steal +
    '" stroke="#ffffff" stroke-width="1"/><text x="' + f1(x) + '" y="' + f1(y) + '" fill="#ffffff" font-size="' +
    f1(S.badge_size) + '" font-weight="bold" text-anchor="middle" dominant-baseline="central">' + n + "</text>";
}
function svgLastTurn(board, turn) {  // as referee.render.svg.last_turn_svg
  const xy = board.xy, names = board.names, R = S.stone_r;
  let out = '<g class="last-turn">';
  if (turn.place !== null && turn.place !== undefined) {
    const [x, y] = xy[turn.place];
    out += '<circle class="placed" data-point="' + names[turn.place] + '" cx="' + f1(x) + '" cy="' + f1(y) + '" r="' +
      f1(S.placed_r) + '" fill="none" stroke="' + S.placed_stroke + '" stroke-width="' + S.placed_width + '"/>';
  }
  const taken = [...new Set(turn.steals.filter(([a, b]) => a !== b).map(([a]) => a))];
  for (const a of taken) out += '<circle class="taken" data-point="' + names[a] + '" cx="' + f1(xy[a][0]) + '" cy="' +
    f1(xy[a][1]) + '" r="' + f1(R * 0.8) + '" fill="none" stroke="' + S.ghost_stroke +
    '" stroke-width="1.5" stroke-dasharray="4 3"/>';
  turn.steals.forEach(([a, b], k) => {
    const n = k + 1, [x1, y1] = xy[a], [x2, y2] = xy[b];
    out += '<g class="steal" data-n="' + n + '" data-from="' + names[a] + '" data-to="' + names[b] + '" stroke="' +
      S.steal + '" fill="' + S.steal + '">';
    const len = Math.hypot(x2 - x1, y2 - y1);
    if (len < 1e-6) {
      out += '<circle cx="' + f1(x1) + '" cy="' + f1(y1) + '" r="' + f1(R + 3) + '" fill="none" stroke-width="' +
        S.steal_width + '" stroke-dasharray="7 4"/>' + badge(x1 - R * 0.75, y1 - R * 0.75, n);
    } else {
      const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
      const sx = x1 + ux * R * 0.45, sy = y1 + uy * R * 0.45, tx = x2 - ux * R * 0.55, ty = y2 - uy * R * 0.55;
      const bx = tx - ux * S.head_len, by = ty - uy * S.head_len, h = S.head_half;
      out += '<line x1="' + f1(sx) + '" y1="' + f1(sy) + '" x2="' + f1(bx) + '" y2="' + f1(by) + '" stroke-width="' +
        S.steal_width + '" stroke-linecap="round"/><path d="M' + f1(tx) + " " + f1(ty) + "L" + f1(bx - uy * h) + " " +
        f1(by + ux * h) + "L" + f1(bx + uy * h) + " " + f1(by - ux * h) + 'Z" stroke="none"/>' + badge((sx + bx) / 2, (sy + by) / 2, n);
    }
    out += "</g>";
  });
  return out + "</g>";
}
function drawBoard() {
  const { g, board, states, turns } = game;
  const st = states[cur];
  let under = "", over = "";
  if ($("c-groups").checked) [under, over] = svgGroups(board, st);
  const marks = cur > 0 && !g.err ? svgLastTurn(board, readTurn(board, turns[cur - 1])) : "";
  $("board").innerHTML = board.open + board.grid + under + svgStones(board, st) + over + marks + "</svg>";
  const svg = $("board").firstChild;
  svg.dataset.turn = cur; svg.dataset.game = g.id;
}
function goto(k) {
  if (!game) return;
  k = Math.max(0, Math.min(game.states.length - 1, k));
  cur = k;
  drawBoard();
  $("slider").value = k;
  const total = game.states.length - 1;
  const mover = k > 0 ? (k - 1 < game.turns.length ? turnColor(game, k - 1) : "") : "";
  $("turn-label").textContent = (k === 0 ? (game.g.st ? "setup" : "start") : "turn " + k + " (" + mover + ")") +
    " of " + total;
  const items = $("turns").children;
  for (let i = 0; i < items.length; i++) items[i].classList.toggle("cur", Number(items[i].dataset.k) === k);
  const li = $("turns").querySelector('li[data-k="' + k + '"]');
  if (li && li.scrollIntoView) li.scrollIntoView({ block: "nearest" });
  if (history.replaceState) history.replaceState(null, "", "#game=" + encodeURIComponent(game.g.id) + "&turn=" + k);
}
function turnColor(gm, i) { return gm.g.tc ? (gm.g.tc[i] === "b" ? "black" : "white") : (i % 2 === 0 ? "black" : "white"); }
function describeSeat(g, seat) {
  const c = colorOfSeat(g, seat);
  return g.b[seat] + (c ? " (" + c + ")" : "") + (g.bn[seat] ? " \u2014 " + g.bn[seat] : "");
}
function select(i, k) {
  if (i < 0 || i >= GAMES.length) return;
  selected = i;
  game = expand(GAMES[i]);
  const g = game.g;
  $("g-title").textContent = "Game " + g.id + ": " + g.r;
  const meta = $("g-meta"); meta.textContent = "";
  const bl = seatOfColor(g, "black"), wh = seatOfColor(g, "white");
  meta.appendChild(el("div", null, "Black: " + (bl === null ? "-" : describeSeat(g, bl)) + "; White: " +
    (wh === null ? "-" : describeSeat(g, wh))));
  meta.appendChild(el("div", null, "size " + g.n + " \u00b7 ending: " + g.m + (g.w !== null ? " \u00b7 winner: " +
    labelOf(g, g.w) : "") + (g.re ? " \u00b7 " + g.re : "")));
  if (g.st) meta.appendChild(el("div", null, "setup: black " + g.st[0] + ", white " + g.st[1] +
    (g.st[2] !== null ? " by " + labelOf(g, g.st[2]) : " (given)") + (g.ch ? "; " + labelOf(g, g.ch[0]) + " chose " + g.ch[1] : "")));
  for (const note of g.no) meta.appendChild(el("div", "mute", "note: " + note));
  if (g.err) meta.appendChild(el("div", "err", "replay stopped: " + g.err));
  // turns
  const ol = $("turns"); ol.textContent = "";
  const li0 = el("li", null, g.st ? "setup " + g.st[0] + " " + g.st[1] : "empty board"); li0.dataset.k = 0; ol.appendChild(li0);
  game.turns.forEach((t, j) => {
    const li = el("li"); li.dataset.k = j + 1;
    const s = game.secs[j];
    li.appendChild(el("span", "sec", s === null || s === undefined ? (j < g.op ? "opening" : "") : s.toFixed(3) + " s"));
    li.appendChild(el("span", j < g.op ? "op" : null, turnColor(game, j)[0].toUpperCase() + " " + t));
    if (j >= game.states.length - 1) li.classList.add("fault");
    ol.appendChild(li);
  });
  const fbox = $("fault");
  if (g.f) {
    const li = el("li", "fault", "\u2717 " + g.f.kind + " by " + labelOf(g, g.f.seat)); ol.appendChild(li);
    fbox.hidden = false; fbox.textContent = "";
    fbox.appendChild(el("strong", null, "Forfeit (" + g.f.kind + ") by " + describeSeat(g, g.f.seat)));
    if (g.f.command !== null) { fbox.appendChild(el("div", null, "command:")); fbox.appendChild(el("pre", "cmd", g.f.command)); }
    fbox.appendChild(el("div", null, "received:"));
    fbox.appendChild(el("pre", "received", g.f.received === null ? "(nothing)" : g.f.received));
    if (g.f.seconds !== null && g.f.seconds !== undefined) fbox.appendChild(el("div", "seconds", "after " + Number(g.f.seconds).toFixed(3) + " s"));
    if (g.re) fbox.appendChild(el("div", "reason", g.re));
  } else { fbox.hidden = true; fbox.textContent = ""; }
  if (g.fx) showForensics(g, fbox);
  drawScore(g);
  const slider = $("slider"); slider.max = game.states.length - 1;
  drawRows(true);
  goto(k === undefined || k === null ? game.states.length - 1 : k);
}
function showForensics(g, fbox) {
  // What led up to the fault (the record's forensics): each bot's last protocol lines and the
  // faulting bot's stderr, folded; a void game's start-up failure has them too.
  fbox.hidden = false;
  const box = el("details"); box.id = "forensics";
  box.appendChild(el("summary", null, "What led up to it: the last protocol lines" +
    (g.f ? " and " + labelOf(g, g.f.seat) + "'s stderr" : "")));
  g.fx.lines.forEach((lines, seat) => {
    box.appendChild(el("div", null, describeSeat(g, seat) + ": its last " + lines.length + " protocol lines (> sent, < received)"));
    const pre = el("pre", "fx-lines", lines.join("\n")); pre.dataset.seat = seat; box.appendChild(pre);
  });
  if (g.f) {
    box.appendChild(el("div", null, describeSeat(g, g.f.seat) + ": the end of its stderr"));
    box.appendChild(el("pre", "fx-stderr", g.fx.stderr === null ? "(nothing)" : g.fx.stderr));
  }
  fbox.appendChild(box);
}
function drawScore(g) {
  const box = $("score"); box.textContent = "";
  box.appendChild(el("div", null, (g.sc ? "Final score: Black " + pts(g.sc[0]) + ", White " + pts(g.sc[1])
    : "No final score (" + g.m + "); on the board at the end:")));
  const table = el("table"), head = el("tr");
  for (const h of ["", "groups", "scoring sizes", "sum + count + \u00bd", "total"]) head.appendChild(el("th", null, h));
  table.appendChild(head);
  ["Black", "White"].forEach((name, c) => {
    const x = g.fs[c], tr = el("tr");
    tr.appendChild(el("td", null, name));
    tr.appendChild(el("td", null, x.groups.join(", ") || "none"));
    tr.appendChild(el("td", null, "{" + x.sizes.join(", ") + "}"));
    tr.appendChild(el("td", null, x.sum + " + " + x.count + (x.half ? " + \u00bd (largest group)" : "")));
    tr.appendChild(el("td", null, pts(x.total)));
    table.appendChild(tr);
  });
  box.appendChild(table);
}
$("turns").addEventListener("click", (ev) => { const li = ev.target.closest("li"); if (li && li.dataset.k !== undefined) goto(Number(li.dataset.k)); });
$("b-first").addEventListener("click", () => goto(0));
$("b-prev").addEventListener("click", () => goto(cur - 1));
$("b-next").addEventListener("click", () => goto(cur + 1));
$("b-last").addEventListener("click", () => goto(Infinity));
$("slider").addEventListener("input", () => goto(Number($("slider").value)));
$("c-groups").addEventListener("change", () => { if (game) drawBoard(); });
function step(by) {
  const j = shown.indexOf(selected) + by;
  if (j >= 0 && j < shown.length) {
    select(shown[j]);
    const list = $("list"), top = j * ROW_H;
    if (top < list.scrollTop || top + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = top - list.clientHeight / 2;
  }
}
document.addEventListener("keydown", (ev) => {
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const keys = { ArrowLeft: () => goto(cur - 1), ArrowRight: () => goto(cur + 1), Home: () => goto(0),
    End: () => goto(Infinity), ArrowUp: () => step(-1), ArrowDown: () => step(1) };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
});
// ---------------------------------------------------------------- start
for (const n in BOARDS) { const b = BOARDS[n]; b.index = {}; b.names.forEach((name, i) => { b.index[name] = i; }); }
applyFilters();
function hashParams() {  // not URLSearchParams: it reads a typed '+' (r1-a+b-01) as a space
  const out = {};
  for (const part of location.hash.slice(1).split("&")) {
    const i = part.indexOf("=");
    if (i > 0) { try { out[part.slice(0, i)] = decodeURIComponent(part.slice(i + 1)); } catch (e) { out[part.slice(0, i)] = part.slice(i + 1); } }
  }
  return out;
}
function fromHash() {  // #game=ID&turn=K, as goto() writes it
  const want = hashParams();
  let first = game ? selected : 0;
  let missing = null;
  if (want.game !== undefined) {
    const i = GAMES.findIndex((g) => String(g.id) === want.game);
    if (i >= 0) first = i; else missing = want.game;
  }
  let note = document.getElementById("hash-note");
  if (missing !== null && !note) {
    note = document.createElement("p"); note.id = "hash-note"; note.className = "hash-note";
    document.body.insertBefore(note, document.body.firstChild);
  }
  if (note) note.textContent = missing === null ? "" : "No game " + missing + " on this page" + (GAMES.length ? "; showing " + GAMES[first].id + "." : ".");
  if (GAMES.length) select(first, want.turn !== undefined ? Number(want.turn) : null);
}
window.addEventListener("hashchange", fromHash);
fromHash();
window.vastuzReady = performance.now();
document.body.dataset.ready = "1";
})();
"""
