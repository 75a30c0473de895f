// belote_env web table: play, watch and replay. Plain JavaScript, no build step, nothing fetched from elsewhere.
// The server (agents/arena/web/app.py) sends frames: the table as a viewer sees it (belote_env.render.table_view)
// with the action that led there. This page only draws them and sends the human's moves.
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const STRAINS = { ...SUITS, NT: "NT", AT: "AT" };
const POS = ["south", "west", "north", "east"];
const RELATIVE = ["you", "left", "partner", "right"];

const ui = {
  tab: "play",
  options: null,
  table: null,        // the live table: {key, mode, human, seats}
  queue: [],          // frames waiting to be shown (agents' moves appear one at a time)
  showing: false,
  busy: false,        // a move is on its way to the server
  frame: null,        // the frame on screen
  running: null,      // the watch timer
  replay: { file: null, deal: null, twin: null, pos: 0 },
};

const $ = (id) => document.getElementById(id);

function setStatus(text, isError) {
  const s = $("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!isError);
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

// ---- drawing ---------------------------------------------------------------------------------------------

function cardParts(name) {
  return { rank: name.slice(0, -1), suit: name.slice(-1) };
}

function cardEl(name, opts = {}) {
  const el = document.createElement("div");
  if (!name) {
    el.className = "card back" + (opts.small ? " small" : "");
    return el;
  }
  const { rank, suit } = cardParts(name);
  el.className = "card" + (suit === "H" || suit === "D" ? " red" : "") + (opts.small ? " small" : "");
  if (opts.trump && suit === opts.trump) el.classList.add("trump");
  el.dataset.card = name;
  el.innerHTML = `<span class="rank">${rank}</span><span class="suit">${SUITS[suit]}</span>`;
  el.title = name;
  return el;
}

function moveHtml(text) {
  return text.replace(/[\u2665\u2666]/g, (s) => `<span class="red">${s}</span>`);
}

function namesFor(bottom, seats, human) {
  return [0, 1, 2, 3].map((s) => {
    const rel = human === null || human === undefined ? `seat ${s}` : RELATIVE[(s - human + 4) % 4];
    const who = seats && seats[s] ? seats[s] : "you";
    return human === null || human === undefined ? `${rel}: ${who}` : (s === human ? "you" : `${rel} (${who})`);
  });
}

function el(tag, cls, html) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (html !== undefined) e.innerHTML = html;
  return e;
}

// Draw `view` (a frame) into `board`. opts: {bottom, names, clickable (the human plays), title}
function drawBoard(board, view, opts) {
  board.innerHTML = "";
  const trump = view.contract && SUITS[view.contract.strain] ? view.contract.strain : null;
  const felt = el("div", "felt");
  felt.dataset.phase = view.phase;
  const legalIds = new Map((opts.clickable ? view.legal : []).map((m) => [m.name, m.id]));
  for (let s = 0; s < 4; s++) {
    const pos = POS[(s - opts.bottom + 4) % 4];
    const box = el("div", `seat ${pos}` + (view.to_act === s ? " to-act" : ""));
    box.dataset.seat = s;
    const label = el("div", "name", "");
    label.textContent = opts.names[s] + (view.dealer === s ? " \u00b7 dealer" : "");
    box.appendChild(label);
    const hand = el("div", "hand");
    const cards = view.hands[s];
    if (cards) {
      for (const c of cards) {
        const e = cardEl(c, { trump, small: pos !== "south" });
        if (legalIds.has(c)) {
          e.classList.add("legal");
          e.dataset.action = legalIds.get(c);
          e.addEventListener("click", () => humanMove(legalIds.get(c)));
        } else if (opts.clickable && view.to_act === s && view.phase === "play") {
          e.classList.add("dim");
        }
        hand.appendChild(e);
      }
    } else {
      for (let k = 0; k < view.counts[s]; k++) hand.appendChild(cardEl(null, { small: true }));
    }
    if (view.phase === "done" && view.dealt && !view.counts[s]) {  // a finished deal: what each seat held
      for (const c of view.dealt[s]) {
        const e = cardEl(c, { trump, small: pos !== "south" });
        e.classList.add("played");
        hand.appendChild(e);
      }
    }
    box.appendChild(hand);
    if (pos === "south" && opts.clickable) {
      const calls = el("div", "calls");
      calls.id = opts.callsId || "";
      for (const m of view.legal) {
        if (legalIds.has(m.name) && m.id >= 32) {
          const b = el("button", /[\u2665\u2666]/.test(m.text) ? "call red" : "call");
          b.textContent = m.text;
          b.dataset.action = m.id;
          b.addEventListener("click", () => humanMove(m.id));
          calls.appendChild(b);
        }
      }
      box.appendChild(calls);
    }
    felt.appendChild(box);
  }
  const center = el("div", "center");
  const trick = view.trick.length ? view.trick : [];
  for (const t of trick) {
    const slot = el("div", `slot ${POS[(t.seat - opts.bottom + 4) % 4]}`);
    slot.appendChild(cardEl(t.card, { trump }));
    center.appendChild(slot);
  }
  if (!trick.length) {
    let note = "";
    if (view.phase === "bidding") note = view.turnup ? "" : "bidding";
    if (view.phase === "done") note = view.result ? `deal ${view.result.outcome}` : "deal over";
    const n = el("div", "note", note);
    if (view.turnup && view.phase === "bidding") {
      n.innerHTML = "turn-up<br>";
      n.appendChild(cardEl(view.turnup));
    }
    center.appendChild(n);
  }
  felt.appendChild(center);
  board.appendChild(felt);
  board.appendChild(sidePanel(view, opts));
}

function sidePanel(view, opts) {
  const aside = el("aside");
  const names = opts.names;
  // contract and points
  const c = view.contract;
  const info = el("div", "box");
  info.innerHTML = (opts.title ? `<h3>${opts.title}</h3>` : "") + `<h3>Contract</h3>` +
    (c ? `${moveHtml(c.text)} by ${names[c.taker]}` : (view.phase === "bidding" ? "(bidding)" : "none")) +
    `<table><tr><th></th><th>team 0</th><th>team 1</th></tr>` +
    `<tr><td>tricks</td><td>${view.tricks_won[0]}</td><td>${view.tricks_won[1]}</td></tr>` +
    `<tr><td>card points</td><td>${view.points[0]}</td><td>${view.points[1]}</td></tr>` +
    (view.game && (view.game.episode === "game" || view.game.deals_scored) ?
      `<tr><td>game</td><td>${view.game.scores[0]}</td><td>${view.game.scores[1]}</td></tr>` : "") +
    `</table>` + (view.game && view.game.episode === "game" ?
      `<div>target ${view.game.target}, garde ${view.game.garde}</div>` : "");
  info.id = (opts.prefix || "") + "contract";
  aside.appendChild(info);
  if (view.event) aside.appendChild(decisionBox(view.event, names));
  if (view.result) {
    const r = view.result;
    const box = el("div", "box result");
    box.id = (opts.prefix || "") + "result";
    box.dataset.scores = r.scores.join(",");
    box.innerHTML = `<h3>Deal ${r.outcome}</h3>team 0 scores <b>${r.scores[0]}</b>, team 1 scores <b>${r.scores[1]}</b>` +
      (r.contract ? `<br>card points ${r.card_points[0]} - ${r.card_points[1]}` : "") +
      (view.truncated ? "<br>everyone passed too many deals in a row: episode cut" : "") +
      (view.game && view.game.over ? `<br><b>${view.game.winner < 0 ? "draw" : "team " + view.game.winner + " wins"}</b>` : "");
    if (opts.onNext && view.paused) {
      const b = el("button", "primary", view.over ? "New episode" : "Next deal");
      b.id = "next";
      b.addEventListener("click", opts.onNext);
      const row = box.appendChild(el("div", "", ""));
      row.appendChild(b);
      const link = el("a", "", " this table's deal records (JSON lines)");
      link.id = "records-link";
      link.href = `/api/tables/${ui.table.key}/records`;
      link.download = `belote-table-${ui.table.key}.jsonl`;
      row.appendChild(link);
    }
    aside.appendChild(box);
  }
  const calls = el("div", "box");
  calls.innerHTML = "<h3>Calls</h3>";
  const list = el("div", "callist");
  list.innerHTML = view.calls.map((x) => `${names[x.seat]}: ${moveHtml(x.text)}`).join("<br>") || "-";
  calls.appendChild(list);
  aside.appendChild(calls);
  if (view.last_trick) {
    const lt = el("div", "box");
    lt.innerHTML = `<h3>Last trick</h3><div>won by ${names[view.last_trick.winner]} (${view.last_trick.points} points)</div>`;
    const row = el("div", "lasttrick");
    for (const x of view.last_trick.cards) row.appendChild(cardEl(x.card, { small: true }));
    lt.appendChild(row);
    aside.appendChild(lt);
  }
  const extra = [...view.belote.map((b) => `${names[b.seat]}: ${b.kind}`),
    ...view.declarations.map((d) => `${names[d.seat]} declared ${d.kind} (${d.points})`)];
  if (extra.length) aside.appendChild(el("div", "box", "<h3>Announced</h3>" + extra.join("<br>")));
  if (view.dealt && opts.showDealt) {
    const d = el("div", "box");
    d.innerHTML = "<h3>Hands as dealt</h3>" + view.dealt.map((h, s) =>
      `${names[s]}: ${moveHtml(h.map((c) => cardParts(c).rank + SUITS[cardParts(c).suit]).join(" "))}`).join("<br>");
    aside.appendChild(d);
  }
  return aside;
}

function decisionBox(event, names) {
  const box = el("div", "box decision");
  box.innerHTML = `<h3>Last move</h3>${names[event.seat]}: <b>${moveHtml(event.text)}</b>`;
  const ex = event.extras;
  if (ex && ex.probs) {
    const rows = Object.entries(ex.probs).sort((a, b) => b[1] - a[1]).slice(0, 8);
    for (const [name, p] of rows) {
      const r = el("div", "prob" + (name === event.action ? " chosen" : ""));
      r.innerHTML = `<span style="width:5.5em">${name}</span><span class="bar" style="width:${Math.round(p * 120)}px"></span>${(100 * p).toFixed(1)}%`;
      box.appendChild(r);
    }
    if (ex.value !== undefined) box.appendChild(el("div", "", `value estimate ${ex.value}`));
  }
  return box;
}

// ---- live tables (play and watch) --------------------------------------------------------------------------

function liveOpts() {
  const t = ui.table;
  const bottom = t.human === null ? 0 : t.human;
  return {
    bottom,
    names: namesFor(bottom, t.seats, t.human),
    clickable: t.mode === "play",
    onNext: nextDeal,
    showDealt: true,
  };
}

function show(frame) {
  ui.frame = frame;
  const opts = liveOpts();
  opts.clickable = opts.clickable && ui.queue.length === 0;
  drawBoard($("board-main"), frame, opts);
  const live = ui.table && !frame.paused;
  if (ui.table && ui.table.mode === "play") {
    if (frame.paused) setStatus(frame.over ? "episode over" : "deal over");
    else if (frame.to_act === ui.table.human && ui.queue.length === 0) setStatus("your move");
    else setStatus("agents are playing\u2026");
  } else if (ui.table) {
    setStatus(frame.paused ? (frame.over ? "episode over" : "deal over") : `seat ${frame.to_act} to act`);
    $("watch-step").disabled = !live;
    $("watch-run").disabled = !live;
  }
}

function enqueue(frames) {
  ui.queue.push(...frames);
  if (!ui.showing) drain();
}

function delay() {
  if (ui.table && ui.table.mode === "watch") return 0;
  return Number($("watch-speed").value) / 2;
}

async function drain() {
  ui.showing = true;
  while (ui.queue.length) {
    const f = ui.queue.shift();
    show(f);
    if (ui.queue.length) await new Promise((r) => setTimeout(r, delay()));
  }
  ui.showing = false;
  if (ui.frame) show(ui.frame);
}

function adopt(reply, mode) {
  ui.table = { key: reply.table, mode, human: reply.human, seats: reply.seats, seed: reply.seed };
}

async function startPlay() {
  stopRun();
  const seed = $("play-seed").value;
  const body = {
    mode: "play", variant: $("play-variant").value, seat: Number($("play-seat").value),
    partner: $("play-partner").value, opponents: $("play-opponents").value, episode: $("play-episode").value,
  };
  if (seed !== "") body.seed = Number(seed);
  try {
    const reply = await api("POST", "/api/tables", body);
    adopt(reply, "play");
    ui.queue = [];
    enqueue(reply.frames);
    setStatusSeed(reply);
  } catch (e) { setStatus(e.message, true); }
}

function setStatusSeed(reply) {
  $("board-main").dataset.seed = reply.seed;
}

async function humanMove(action) {
  if (!ui.table || ui.queue.length || ui.showing || ui.busy) return;
  ui.busy = true;
  setStatus("\u2026");
  try {
    const reply = await api("POST", `/api/tables/${ui.table.key}/act`, { action });
    enqueue(reply.frames);
  } catch (e) { setStatus(e.message, true); } finally { ui.busy = false; }
}

async function nextDeal() {
  if (!ui.table || ui.showing) return;
  try {
    const reply = await api("POST", `/api/tables/${ui.table.key}/next`, {});
    enqueue(reply.frames);
  } catch (e) { setStatus(e.message, true); }
}

async function startWatch() {
  stopRun();
  const seed = $("watch-seed").value;
  const body = {
    mode: "watch", variant: $("watch-variant").value, episode: $("watch-episode").value,
    seats: [0, 1, 2, 3].map((s) => $(`watch-seat${s}`).value),
  };
  if (seed !== "") body.seed = Number(seed);
  try {
    const reply = await api("POST", "/api/tables", body);
    adopt(reply, "watch");
    ui.queue = [];
    enqueue(reply.frames);
    setStatusSeed(reply);
  } catch (e) { setStatus(e.message, true); }
}

async function watchStep() {
  if (!ui.table || ui.table.mode !== "watch") return false;
  if (ui.frame && ui.frame.paused) { stopRun(); return false; }
  try {
    const reply = await api("POST", `/api/tables/${ui.table.key}/step`, { n: 1 });
    enqueue(reply.frames);
    return !reply.frames[reply.frames.length - 1].paused;
  } catch (e) { setStatus(e.message, true); stopRun(); return false; }
}

function stopRun() {
  if (ui.running) clearTimeout(ui.running);
  ui.running = null;
  $("watch-run").textContent = "Run";
}

function toggleRun() {
  if (ui.running) { stopRun(); return; }
  $("watch-run").textContent = "Pause";
  const tick = async () => {
    const more = await watchStep();
    if (more && $("watch-run").textContent === "Pause") ui.running = setTimeout(tick, Number($("watch-speed").value));
    else stopRun();
  };
  ui.running = setTimeout(tick, 0);
}

// ---- replay ------------------------------------------------------------------------------------------------

async function loadFiles() {
  const sel = $("replay-file");
  sel.innerHTML = "";
  const files = (await api("GET", "/api/records")).files;
  if (!files.length) {
    sel.appendChild(new Option(ui.options.records ? "(no record files)" : "(start the server with --records DIR)", ""));
    return;
  }
  for (const f of files) sel.appendChild(new Option(f.file, f.file));
  await loadDeals();
}

async function loadDeals() {
  const file = $("replay-file").value;
  const sel = $("replay-deal");
  sel.innerHTML = "";
  if (!file) return;
  try {
    const deals = (await api("GET", `/api/records/deals?file=${encodeURIComponent(file)}`)).deals;
    for (const d of deals) {
      const m = d.meta || {};
      const who = m.match ? ` ${m.match[0]} v ${m.match[1]} pair ${m.pair} table ${m.table}` : "";
      const diff = m.pair_diff !== undefined ? ` (diff ${m.pair_diff})` : "";
      const c = d.contract ? ` ${d.contract.kind} ${d.contract.value || ""} ${d.contract.strain}` : "";
      sel.appendChild(new Option(`#${d.index}${who}:${c} ${d.outcome || ""} ${d.scores ? d.scores.join("-") : ""}${diff}`, d.index));
    }
    await loadDeal();
  } catch (e) { setStatus(e.message, true); }
}

async function loadDeal() {
  const file = $("replay-file").value;
  const index = $("replay-deal").value;
  if (!file || index === "") return;
  try {
    const deal = await api("GET", `/api/records/deal?file=${encodeURIComponent(file)}&index=${index}`);
    ui.replay = { file, deal, twin: null, pos: 0 };
    if (deal.twin !== null && deal.twin !== undefined) {
      ui.replay.twin = await api("GET", `/api/records/deal?file=${encodeURIComponent(file)}&index=${deal.twin}`);
    }
    drawReplay();
    setStatus(`deal ${deal.index} of ${file}` + (deal.twin !== null ? `, twin: deal ${deal.twin}` : ""));
  } catch (e) { setStatus(e.message, true); }
}

function replayNames(deal) {
  const m = deal.meta || {};
  return [0, 1, 2, 3].map((s) => {
    if (m.match && m.a_seats) return `seat ${s}: ${m.a_seats.includes(s) ? m.match[0] : m.match[1]}`;
    if (m.seats && m.seats[s]) return `seat ${s}: ${m.seats[s]}`;
    if (m.seats && m.seats[s] === null) return `seat ${s}: human`;
    return `seat ${s}`;
  });
}

function drawReplay() {
  const r = ui.replay;
  if (!r.deal) return;
  const n = r.deal.frames.length - 1;
  r.pos = Math.max(0, Math.min(r.pos, n));
  const f = r.deal.frames[r.pos];
  drawBoard($("board-main"), f, { bottom: 0, names: replayNames(r.deal), clickable: false, showDealt: r.pos === n,
    title: `deal ${r.deal.index}` });
  $("replay-pos").textContent = `${r.pos} / ${n}`;
  $("board-main").dataset.pos = r.pos;
  $("board-main").dataset.last = n;
  const twinBoard = $("board-twin");
  const pair = !!(r.twin && $("replay-twin").checked);
  $("boards").classList.toggle("pair", pair);
  if (pair) {
    twinBoard.classList.remove("hidden");
    const tn = r.twin.frames.length - 1;
    drawBoard(twinBoard, r.twin.frames[Math.min(r.pos, tn)], { bottom: 0, names: replayNames(r.twin),
      clickable: false, showDealt: r.pos >= tn, prefix: "twin-", title: `duplicate twin: deal ${r.twin.index}` });
  } else {
    twinBoard.classList.add("hidden");
    twinBoard.innerHTML = "";
  }
}

function replayMove(to) {
  const r = ui.replay;
  if (!r.deal) return;
  const n = r.deal.frames.length - 1;
  r.pos = to === "first" ? 0 : to === "last" ? n : r.pos + to;
  drawReplay();
}

// ---- tabs and start-up -------------------------------------------------------------------------------------

function selectTab(tab) {
  ui.tab = tab;
  stopRun();
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === tab);
  for (const t of ["play", "watch", "replay"]) $(`settings-${t}`).classList.toggle("hidden", t !== tab);
  $("board-main").innerHTML = "";
  $("board-twin").innerHTML = "";
  $("board-twin").classList.add("hidden");
  $("boards").classList.remove("pair");
  ui.table = null;
  ui.queue = [];
  ui.frame = null;
  setStatus("");
  if (tab === "replay") loadFiles().catch((e) => setStatus(e.message, true));
}

function fill(select, values, chosen) {
  select.innerHTML = "";
  for (const v of values) select.appendChild(new Option(v, v, false, v === chosen));
}

async function init() {
  try {
    ui.options = await api("GET", "/api/options");
  } catch (e) { setStatus(`cannot reach the server: ${e.message}`, true); return; }
  for (const s of document.querySelectorAll("select.variant")) fill(s, ui.options.variants, "coinche");
  for (const s of document.querySelectorAll("select.agent")) fill(s, ui.options.agents, "heuristic");
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("play-start").addEventListener("click", startPlay);
  $("watch-start").addEventListener("click", startWatch);
  $("watch-step").addEventListener("click", () => { stopRun(); watchStep(); });
  $("watch-run").addEventListener("click", toggleRun);
  $("watch-speed").addEventListener("input", () => { $("watch-speed-text").textContent = `${$("watch-speed").value} ms`; });
  $("replay-file").addEventListener("change", loadDeals);
  $("replay-deal").addEventListener("change", loadDeal);
  $("replay-twin").addEventListener("change", drawReplay);
  $("replay-first").addEventListener("click", () => replayMove("first"));
  $("replay-back").addEventListener("click", () => replayMove(-1));
  $("replay-forward").addEventListener("click", () => replayMove(1));
  $("replay-last").addEventListener("click", () => replayMove("last"));
  document.addEventListener("keydown", (e) => {
    if (ui.tab !== "replay" || e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") replayMove(1);
    if (e.key === "ArrowLeft") replayMove(-1);
  });
  const params = new URLSearchParams(location.search);
  const speed = Number(params.get("speed"));
  if (params.has("speed") && speed >= 0 && speed <= 2000) {
    $("watch-speed").value = speed;
    $("watch-speed-text").textContent = `${speed} ms`;
  }
  const tab = params.get("tab");
  if (tab === "watch" || tab === "replay") selectTab(tab);
  setStatus("ready");
}

init();
