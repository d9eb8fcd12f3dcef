# ruff: noqa: E501 - the pages' own CSS and JavaScript, kept as written rather than wrapped at 110
"""The stylesheet and the script of the server's own pages (``/static/serve.css``,
``/static/serve.js``): the only ones their Content Security Policy allows."""

CSS = """
body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:1em 2em;color:#222}
nav a{margin-right:1em}
table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}
.folder{color:#777;font-size:.85em}
.error{color:#b00020}
.form label{display:block;margin:.4em 0}
#play{display:flex;gap:2em;flex-wrap:wrap}
#board-pane{width:min(640px,90vw)}
#board svg,.live-board svg{width:100%;height:auto}
.hit{cursor:pointer}
.hit.legal{fill:rgba(40,160,60,.18)}
.hit.from{fill:rgba(220,40,40,.25)}
.hit.to{fill:rgba(40,90,220,.25)}
#turns{max-height:20em;overflow:auto;font-family:monospace}
#live{display:flex;flex-wrap:wrap;gap:1.5em}
.live-game{width:min(360px,90vw)}
.live-game h3{font-size:1em;margin:.2em 0}
.live-game.ended{opacity:.6}
#ratings td.rating{font-variant-numeric:tabular-nums;text-align:right}
#bot-summary .rating{font-weight:bold}
#rating-chart{max-width:100%;height:auto}
.legend .key{font-family:monospace;margin:0 .3em 0 1em}
.legend .key.provisional{color:#d08020}.legend .key.established{color:#2060c0}
.note{color:#775}
"""

JS = r"""
"use strict";
(function () {
  const body = document.body;
  const page = body.dataset.page;
  const $ = (id) => document.getElementById(id);
  function token() { const t = $("token"); if (t && t.value) sessionStorage.setItem("vastuz-token", t.value);
    return sessionStorage.getItem("vastuz-token") || ""; }
  async function post(url, data) {
    const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json",
      "X-Vastuz-Token": token()}, body: JSON.stringify(data)});
    let answer = {};
    try { answer = await r.json(); } catch (e) { answer = {error: r.statusText}; }
    if (!r.ok) throw new Error(answer.error || r.statusText);
    return answer;
  }
  function text(id, value) { const e = $(id); if (e) e.textContent = value; }
  function seconds(s) { if (s === null || s === undefined) return "-";
    const m = Math.floor(s / 60), r = s - 60 * m; return m ? m + ":" + r.toFixed(1).padStart(4, "0") : r.toFixed(1) + " s"; }

  if (page === "play-new") {
    const start = document.querySelector('[data-action="start"]');
    if (start) start.addEventListener("click", async () => {
      const clock = $("clock").value.split(":");
      const tc = clock[0] === "per_move" ? {per_move: +clock[1]} : {main: +clock[1], increment: +clock[2]};
      try {
        const game = await post("/api/play", {bot: $("bot").value, size: +$("size").value, time_control: tc,
          side: $("side").value, name: $("name").value});
        location.href = "/play/" + encodeURIComponent(game.id);
      } catch (e) { text("error", e.message); }
    });
    body.dataset.ready = "1";
  }

  if (page === "play-game") {
    const id = body.dataset.game;
    let state = null, prefix = null, steals = [], from = null, ticking = null, askedAt = 0, setupBlack = null;
    function button(action, show) { const b = document.querySelector('[data-action="' + action + '"]'); if (b) b.hidden = !show; }
    function mark() {
      document.querySelectorAll("#board .hit").forEach((h) => h.classList.remove("legal", "from", "to"));
      const hit = (p) => document.querySelector('#board .hit[data-point="' + p + '"]');
      if (state && state.asked === "setup") {  // the pie setup: any empty point, Black's then White's
        state.legal_placements.forEach((p) => { const h = hit(p); if (h && p !== setupBlack) h.classList.add("legal"); });
        if (setupBlack !== null) { const h = hit(setupBlack); if (h) h.classList.add("from"); }
        return;
      }
      if (!state || state.asked !== "turn") return;
      if (prefix === null) { state.legal_placements.forEach((p) => { const h = hit(p); if (h) h.classList.add("legal"); }); return; }
      steals.forEach(([f, t]) => { if (from === null) { const h = hit(f); if (h) h.classList.add("from"); }
        else if (f === from) { const h = hit(t); if (h) h.classList.add("to"); } });
    }
    function show() {
      const s = state;
      $("board").innerHTML = s.svg;
      const you = s.color ? "you (" + s.color + ")" : "you";
      text("players", s.person + ": " + you + " against " + s.bot);
      let status = "";
      if (s.status === "over") status = "game over: " + s.result + (s.winner ? ", " + s.winner + " wins" : "") + " (" + s.reason + ")";
      else if (s.asked === "turn") status = s.must_pass ? "you have no placement: pass" : "your turn: click a point";
      else if (s.asked === "color") status = "choose your colour";
      else if (s.asked === "setup") status = setupBlack === null ? "the pie rule: click a point for the Black stone"
        : "the pie rule: Black on " + setupBlack + ", now click a point for the White stone";
      else if (s.status === "starting") status = "starting the bot…";
      else status = s.bot + " is thinking…";
      text("status", status);
      body.dataset.status = s.status;
      body.dataset.asked = s.asked || "";
      body.dataset.version = s.version;
      button("black", s.asked === "color"); button("white", s.asked === "color");
      button("pass", s.asked === "turn" && s.must_pass);
      button("cancel", prefix !== null || setupBlack !== null);
      button("resign", s.status !== "over");
      const turns = $("turns"); turns.textContent = "";
      ((s.game && s.game.turns) || []).forEach((t) => { const li = document.createElement("li"); li.textContent = t; turns.appendChild(li); });
      text("turn-so-far", prefix === null ? "" : "your turn so far: " + prefix + (from ? ", " + from + ">…" : "") + " (click a red stone to steal, then a blue point)");
      mark();
      askedAt = performance.now();
      if (ticking) clearInterval(ticking);
      const tick = () => { if (s.time_left !== null) text("your-clock", "your clock: " + seconds(Math.max(0, s.time_left - (performance.now() - askedAt) / 1000)));
        else text("your-clock", ""); };
      tick(); ticking = s.time_left !== null ? setInterval(tick, 200) : null;
      text("bot-clock", s.clocks ? s.bot + "'s clock: " + seconds(s.clocks[1 - s.seat]) : "");
    }
    async function load(after) {
      const r = await fetch("/api/play/" + encodeURIComponent(id) + (after === undefined ? "" : "?after=" + after));
      if (!r.ok) { text("error", "the game is gone (" + r.status + ")"); return false; }
      state = await r.json(); show(); body.dataset.ready = "1"; return true;
    }
    async function poll() {
      let ok = await load();
      while (ok && state.status !== "over") {
        try { ok = await load(state.version); } catch (e) { await new Promise((res) => setTimeout(res, 1000)); }
      }
    }
    async function submit(turn) {
      prefix = null; steals = []; from = null;
      try { await post("/api/play/" + encodeURIComponent(id) + "/turn", {turn: turn}); text("error", ""); }
      catch (e) { text("error", e.message); }
    }
    async function extend(next) {
      try {
        const r = await fetch("/api/play/" + encodeURIComponent(id) + "/steals?turn=" + encodeURIComponent(next));
        const a = await r.json();
        if (!r.ok) { text("error", a.error); return; }
        text("error", "");
        if (a.complete) { await submit(next); return; }
        prefix = next; steals = a.legal_steals; from = null; show();
      } catch (e) { text("error", e.message); }
    }
    async function setup(black, white) {
      setupBlack = null;
      try { await post("/api/play/" + encodeURIComponent(id) + "/turn", {turn: black + " " + white}); text("error", ""); }
      catch (e) { text("error", e.message); show(); }
    }
    $("board").addEventListener("click", (ev) => {
      const target = ev.target.closest("[data-point]");
      if (!target || !state) return;
      const p = target.dataset.point;
      if (state.asked === "setup") {
        if (setupBlack === null) { setupBlack = p; show(); } else if (p !== setupBlack) setup(setupBlack, p);
        return;
      }
      if (state.asked !== "turn") return;
      if (prefix === null) { extend(p); return; }
      if (from === null) { if (steals.some(([f]) => f === p)) { from = p; show(); } return; }
      if (steals.some(([f, t]) => f === from && t === p)) { extend(prefix + "," + from + ">" + p); }
      else if (steals.some(([f]) => f === p)) { from = p; show(); }
    });
    document.querySelectorAll("[data-action]").forEach((b) => b.addEventListener("click", async () => {
      const action = b.dataset.action;
      try {
        if (action === "black" || action === "white") await post("/api/play/" + encodeURIComponent(id) + "/turn", {turn: action});
        else if (action === "pass") await submit("pass");
        else if (action === "resign") await post("/api/play/" + encodeURIComponent(id) + "/resign", {});
        else if (action === "cancel") { prefix = null; steals = []; from = null; setupBlack = null; show(); }
      } catch (e) { text("error", e.message); }
    }));
    poll();
  }

  if (page === "live") {
    const games = new Map();
    function draw(g, ended) {
      let div = games.get(g.key);
      if (!div) { div = document.createElement("div"); div.className = "live-game"; div.dataset.key = g.key;
        div.innerHTML = '<h3></h3><div class="live-board"></div><p class="info"></p>'; $("live").prepend(div); games.set(g.key, div); }
      div.dataset.turns = g.turns.length; div.dataset.game = g.game_id;
      if (ended) div.classList.add("ended");
      const black = g.black === null ? "?" : g.bots[g.black], white = g.white === null ? "?" : g.bots[g.white];
      div.querySelector("h3").textContent = g.run + " · " + g.game_id + ": " + black + " (B) – " + white + " (W)";
      div.querySelector(".live-board").innerHTML = g.svg;
      const steals = g.last_steals.length ? ", steals " + g.last_steals.map((s) => s[0] + ">" + s[1]).join(" ") : "";
      div.querySelector(".info").textContent = "turn " + g.turns.length + (g.last_turn ? ": " + g.last_turn : "") + steals +
        " · score " + g.score[0] + "–" + g.score[1] + " · clocks " + seconds(g.clocks[0]) + " / " + seconds(g.clocks[1]) +
        (ended ? " · ended " + (g.result || "") : "");
    }
    const source = new EventSource("/api/events");
    source.addEventListener("open", () => { text("live-status", "following the games in progress"); body.dataset.ready = "1"; });
    source.addEventListener("error", () => text("live-status", "disconnected; retrying…"));
    source.addEventListener("game", (ev) => draw(JSON.parse(ev.data), false));
    source.addEventListener("end", (ev) => draw(JSON.parse(ev.data), true));
  }
  if (page === "ladder") {  // the rating list: wait for the store to change, then put in the new one
    const ladder = body.dataset.ladder;
    let stamp = body.dataset.stamp, fetched = performance.now();
    body.dataset.ready = "1";
    (async () => {
      body.dataset.follow = "following";
      for (;;) {
        try {
          const r = await fetch("/api/ladders/" + encodeURIComponent(ladder) + "/stamp?after=" + encodeURIComponent(stamp), {cache: "no-store"});
          if (!r.ok) throw new Error("status " + r.status);
          const answer = await r.json();
          if (answer.stamp === stamp) continue;
          const rest = 2000 - (performance.now() - fetched);  // at most a page every 2 s
          if (rest > 0) await new Promise((res) => setTimeout(res, rest));
          fetched = performance.now();
          const page = await fetch("/ladders/" + encodeURIComponent(ladder) + "/", {cache: "no-store"});
          if (!page.ok) throw new Error("status " + page.status);
          const doc = new DOMParser().parseFromString(await page.text(), "text/html");
          const fresh = doc.getElementById("ladder-body"), old = $("ladder-body");
          if (fresh && old) old.replaceWith(document.importNode(fresh, true));
          stamp = doc.body.dataset.stamp || answer.stamp;
          body.dataset.updates = String(+(body.dataset.updates || 0) + 1);
          body.dataset.follow = "following";
        } catch (e) {
          body.dataset.follow = "retrying";
          await new Promise((res) => setTimeout(res, 2000));
        }
      }
    })();
  }
  if (page === "index" || page === "ladder-bot") body.dataset.ready = "1";
})();
"""

STANDINGS_JS = r"""
"use strict";
// The served standings page of a run going on (referee/serve/following.py): instead of
// reloading, wait for the run's results to change, fetch the page again, and put its
// standings section and its games into this one. The replay's script (the renderer's)
// gives its data as window.vastuzReplay.data: the games it lists are the ones this script
// updates, and the replay's own handlers redraw them.
(function () {
  const me = document.currentScript;
  const run = me.dataset.run;
  let stamp = me.dataset.stamp;
  const parse = JSON.parse;
  // the replay's data: {style, boards, games}, the very object it reads
  const replayData = () => (window.vastuzReplay ? window.vastuzReplay.data : null);
  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
  let updates = 0;

  function addOptions(select, values) {
    if (!select) return;
    const have = new Set([...select.options].map((o) => o.value));
    for (const v of values) if (!have.has(v)) { const o = document.createElement("option"); o.value = v; o.textContent = v; select.appendChild(o); }
  }
  function putStandings(doc) {
    const old = document.querySelector("section.standings"), fresh = doc.querySelector("section.standings");
    if (!old || !fresh) return;
    const open = [...old.querySelectorAll("details")].map((d) => d.open);
    const node = document.importNode(fresh, true);
    node.querySelectorAll("details").forEach((d, i) => { if (i < open.length) d.open = open[i]; });
    old.replaceWith(node);
  }
  function putGames(doc) {
    const source = doc.getElementById("vastuz-data");
    const data = replayData();
    if (!data || !source) return;
    const next = parse.call(JSON, source.textContent);
    const games = data.games, before = games.length;
    const kept = games.every((g, i) => i < next.games.length && next.games[i].id === g.id);
    for (const n in next.boards) if (!(n in data.boards)) {
      const b = next.boards[n]; b.index = {}; b.names.forEach((name, i) => { b.index[name] = i; }); data.boards[n] = b;
    }
    games.length = 0;
    for (const g of next.games) games.push(g);
    addOptions($("f-bot"), [...new Set(games.flatMap((g) => g.b))].sort());
    addOptions($("f-term"), [...new Set(games.map((g) => g.m))].sort());
    if ($("summary")) $("summary").textContent = games.length + (games.length === 1 ? " game" : " games");
    const list = $("list"), top = list ? list.scrollTop : 0;
    const filter = $("f-bot");
    if (filter) filter.dispatchEvent(new Event("change"));  // the replay's own redraw of its list
    if (list) list.scrollTop = top;
    // the game shown is found again by its id (the #game=ID&turn=K the replay keeps) when
    // the games moved, or the first one shown when there was none
    if (!kept || (before === 0 && games.length)) window.dispatchEvent(new HashChangeEvent("hashchange"));
    document.body.dataset.games = games.length;
  }
  async function follow() {
    document.body.dataset.follow = "following";
    for (;;) {
      try {
        const r = await fetch("/api/runs/" + encodeURIComponent(run) + "/stamp?after=" + encodeURIComponent(stamp), {cache: "no-store"});
        if (!r.ok) throw new Error("status " + r.status);
        const answer = await r.json();
        if (answer.stamp === stamp) continue;
        const page = await fetch("/runs/" + encodeURIComponent(run) + "/", {cache: "no-store"});
        if (!page.ok) throw new Error("status " + page.status);
        const doc = new DOMParser().parseFromString(await page.text(), "text/html");
        const x = window.scrollX, y = window.scrollY;
        putStandings(doc);
        putGames(doc);
        window.scrollTo(x, y);
        updates += 1;
        document.body.dataset.updates = updates;
        const again = doc.querySelector("script[data-stamp]");
        if (!again) {  // the page of a run that has ended: the final standings
          if (doc.querySelector('meta[http-equiv="refresh"]')) location.reload();  // a page this script cannot follow
          break;
        }
        stamp = again.dataset.stamp;
      } catch (e) {
        document.body.dataset.follow = "retrying";
        await sleep(2000);
        document.body.dataset.follow = "following";
      }
    }
    document.body.dataset.follow = "finished";
  }
  document.addEventListener("DOMContentLoaded", () => {
    const data = replayData();
    if (data) document.body.dataset.games = data.games.length;
    follow();
  });
})();
"""
