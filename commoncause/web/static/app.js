// Common Cause in the browser: a page that uses only the documented HTTP API (docs/web.md).
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_ORDER = "CDHS";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
// Card codes as the engine writes them: upper case only (so the word "as" is no A of spades).
const CARD_RE = /^(10|[2-9AJQK])([CDHS])(\(.*\))?$|^JK(\(.*\))?$/;

let meta = null;
let form = { partners: null, note: null, asked: 0 };
let game = { id: null, token: null, view: null, sort: "game", poll: null, busy: false, pollError: false, since: null,
  handsSeen: null };
let replay = { id: null, record: null, move: 0, total: 0, seat: "" };

// ------------------------------------------------------------------ helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// An error line; ``fromPoll``: the polling's own, cleared by the next good poll.
function showError(message, fromPoll = false) {
  game.pollError = fromPoll && !!message;
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  let resp;
  try {
    resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {  // no answer at all (the browser's "Failed to fetch")
    const err = new Error("connection lost: the server does not answer");
    err.lost = true;
    throw err;
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
  if (!resp.ok) {
    const err = new Error((data && data.error) || resp.statusText);
    err.status = resp.status;
    err.data = data;
    throw err;
  }
  return data;
}

function cardParts(code) {
  const m = CARD_RE.exec(code);
  if (!m) return null;
  if (code.startsWith("JK")) return { rank: "JK", suit: "", note: m[4] || "" };
  return { rank: m[1], suit: m[2], note: m[3] || "" };
}

function card(code, extra = {}) {
  const p = cardParts(code);
  if (!p) return el("span", { class: "word", text: code });
  const red = p.suit === "D" || p.suit === "H";
  const cls = ["card", red ? "red" : "black", p.rank === "JK" ? "joker" : "", extra.small ? "small" : "",
    extra.cls || ""].join(" ");
  const label = p.rank === "JK" ? "★" : p.rank;
  const node = el("span", { class: cls, title: code, "data-card": code.replace(/\(.*\)$/, "") },
    el("span", { class: "rank", text: label }),
    el("span", { class: "suit", text: p.rank === "JK" ? "JK" : SUITS[p.suit] }));
  if (p.note) node.append(el("span", { class: "note", text: p.note.slice(1, -1) }));
  return node;
}

// Text with card codes drawn as small cards ("set 1: 7D 7S JK(7H)").
function cardText(text) {
  const span = el("span", { class: "cardtext" });
  for (const word of String(text).split(/\s+/)) {
    if (!word) continue;
    if (cardParts(word.replace(/[.,;]$/, ""))) span.append(card(word.replace(/[.,;]$/, ""), { small: true }));
    else span.append(el("span", { class: "word", text: word }));
  }
  return span;
}

function seatName(view, p) {
  if (p === null || p === undefined) return "";
  if (p < 0) return "the deal";
  const base = view.seats ? view.seats[p] : `player_${p}`;
  if (view.seat === p) return `${base} (you)`;
  const kind = view.kinds ? view.kinds[p] : "";
  const who = kind === "person" ? "a person" : (view.players ? view.players[p] : "");
  return who ? `${base} (${who})` : base;
}

function rankIndex(code) {
  const p = cardParts(code);
  if (!p || p.rank === "JK") return 99;
  return RANKS.indexOf(p.rank);
}

function sortedHand(hand, how) {
  const cards = hand.slice();
  if (how === "suit") {
    cards.sort((a, b) => {
      const pa = cardParts(a), pb = cardParts(b);
      const sa = pa && pa.suit ? SUIT_ORDER.indexOf(pa.suit) : 9, sb = pb && pb.suit ? SUIT_ORDER.indexOf(pb.suit) : 9;
      return sa - sb || rankIndex(a) - rankIndex(b);
    });
  } else if (how === "rank") {
    cards.sort((a, b) => rankIndex(a) - rankIndex(b) || a.localeCompare(b));
  }
  return cards;
}

// ------------------------------------------------------------------ start form

function selectedGame() {
  return meta.games.find((g) => g.name === $("f-game").value) || meta.games[0];
}

function seatCount(g) {
  const np = document.querySelector('#f-options [name="num_players"]');
  return np && np.value ? Math.max(2, parseInt(np.value, 10) || g.seats) : g.seats;
}

// The start form's options as the API takes them (body.options, and level where it applies).
function formOptions(g) {
  const options = {};
  for (const input of document.querySelectorAll("#f-options input")) {
    const kind = input.dataset.kind;
    if (kind === "bool") {
      const f = g.options.find((o) => o.name === input.name);
      if (input.checked !== f.default) options[input.name] = input.checked;
    } else if (input.value !== "") {
      options[input.name] = kind === "int" ? parseInt(input.value, 10) : input.value;
    }
  }
  const body = { game: g.name, options };
  if (g.levels.length && !g.level_fields.some((name) => name in options)) body.level = $("f-level").value;
  return body;
}

// Who may play the other seats with the options chosen (POST /api/partners), then the seats.
async function refreshPartners() {
  const g = selectedGame();
  const asked = ++form.asked;
  let answer;
  try {
    answer = await api("POST", "/api/partners", formOptions(g));
  } catch (e) {
    answer = { partners: form.partners || g.partners, note: e.message };
  }
  if (asked !== form.asked) return;  // a later change is on its way
  form.partners = answer.partners;
  form.note = answer.note;
  buildSeats();
}

function buildOptions() {
  const g = selectedGame();
  form.partners = g.partners;
  form.note = null;
  $("l-level").hidden = !g.levels.length;
  $("f-level").replaceChildren(...g.levels.map((l) => el("option", { value: l, text: l, selected: l === g.level })));
  const box = $("f-options");
  box.replaceChildren();
  for (const f of g.options) {
    if (g.level_fields.includes(f.name)) {
      box.append(el("label", {}, f.name.replace(/_/g, " ") + " (overrides level) ",
        el("input", { type: "number", name: f.name, placeholder: String(f.default), "data-kind": "int" })));
    } else if (f.type === "bool") {
      box.append(el("label", { class: "check" },
        el("input", { type: "checkbox", name: f.name, "data-kind": "bool", checked: f.default }), " " + f.name.replace(/_/g, " ")));
    } else if (f.type === "int") {
      box.append(el("label", {}, f.name.replace(/_/g, " ") + " ",
        el("input", { type: "number", name: f.name, value: f.default, "data-kind": "int" })));
    } else {
      box.append(el("label", {}, f.name.replace(/_/g, " ") + " ",
        el("input", { type: "text", name: f.name, value: f.default, "data-kind": "str" })));
    }
  }
  buildSeats();
  refreshPartners();
}

function buildSeats() {
  const g = selectedGame();
  const n = seatCount(g);
  const seat = Math.min(parseInt($("f-seat").value || "0", 10), n - 1);
  $("f-seat").replaceChildren(...Array.from({ length: n }, (_, i) =>
    el("option", { value: i, text: `player_${i}${i === 0 ? " (begins)" : ""}`, selected: i === seat })));
  const box = $("f-others");
  // a choice the person made stays while it is offered; the others follow the default
  const chosen = new Map(Array.from(box.querySelectorAll(".f-other[data-chosen]")).map((s) => [s.dataset.seat, s.value]));
  box.replaceChildren();
  const choices = form.partners || g.partners;
  const offered = new Set(choices.map((c) => c.value));
  const others = Array.from({ length: n }, (_, i) => i).filter((i) => i !== seat);
  for (const p of others) {
    const title = g.team ? "Partner" : `player_${p}`;
    const kept = offered.has(chosen.get(String(p))) ? chosen.get(String(p)) : choices[0].value;
    box.append(el("label", {}, `${title} `, el("select", {
      class: "f-other", "data-seat": p, "data-chosen": chosen.has(String(p)) && kept === chosen.get(String(p)),
      onchange: (ev) => { ev.target.dataset.chosen = ""; },
    },
      ...choices.map((c) => el("option", { value: c.value, text: c.label, selected: c.value === kept })))));
  }
  $("f-note").textContent = form.note || "";
  $("f-note").hidden = !form.note;
}

async function startGame(ev) {
  ev.preventDefault();
  showError("");
  const g = selectedGame();
  const body = Object.assign(formOptions(g), {
    seat: parseInt($("f-seat").value, 10),
    partner: Array.from(document.querySelectorAll(".f-other")).map((s) => s.value),
  });
  if ($("f-seed").value !== "") body.seed = parseInt($("f-seed").value, 10);
  $("f-submit").disabled = true;
  try {
    const made = await api("POST", "/api/games", body);
    localStorage.setItem("cc-token-" + made.id, made.token);
    history.pushState({}, "", `/play/${made.id}`);  // the token is no part of the address
    showInvites(made, g);
    openGame(made.id, made.token, made.view);
  } catch (e) {
    showError(e.message);
  } finally {
    $("f-submit").disabled = false;
  }
}

// One link to send per seat another person plays, labelled by seat.
function showInvites(made, g) {
  const others = made.others || [];
  const box = $("invite");
  box.replaceChildren(...others.map((o) => {
    const name = `player_${o.seat}`;
    const who = g.team ? `Your partner (${name})` : `Your opponent ${name}`;
    const link = el("input", { readonly: true, class: "invite-link", "data-testid": "invite-link", "data-seat": o.seat,
      value: `${location.origin}/play/${made.id}#token=${o.token}` });
    const copy = el("button", { type: "button", onclick: () => {
      link.select();
      if (navigator.clipboard) navigator.clipboard.writeText(link.value).catch(() => {});
    } }, "Copy");
    return el("div", { class: "invite" },
      el("p", {}, el("strong", { text: `${who} plays in their own browser.` }), " Send this link:"),
      el("p", {}, link, " ", copy));
  }));
  box.hidden = !others.length;
}

// ------------------------------------------------------------------ the table

function drawOthers(v, box) {
  box.replaceChildren();
  for (let p = 0; p < v.hand_sizes.length; p++) {
    if (p === v.seat) continue;
    const last = (v.last_moves[p] || []).join("; ");
    const open = v.open_hands && v.open_hands[p];
    const hands = v.hands ? v.hands[p] : open;
    box.append(el("div", { class: "seat" + (v.current === p ? " to-move" : ""), "data-seat": p },
      el("div", { class: "seat-name", text: seatName(v, p) + (v.current === p ? " — to move" : "") }),
      el("div", { class: "small", text: `${v.hand_sizes[p]} cards` }),
      hands ? el("div", { class: "cards" }, ...hands.map((c) => card(c, { small: true }))) :
        el("div", { class: "backs" }, ...Array.from({ length: Math.min(v.hand_sizes[p], 14) }, () => el("span", { class: "card small back" }))),
      el("div", { class: "last", text: last ? `just did: ${last}` : "" })));
  }
}

function drawSections(v, box) {
  box.replaceChildren();
  for (const s of v.sections || []) {
    const head = s.seat === null || s.seat === undefined ? s.label : `${seatName(v, s.seat)}: ${s.label}`;
    const div = el("div", { class: "section" }, el("div", { class: "label", text: head }));
    if (s.items) {
      if (!s.items.length) div.append(el("div", { class: "small", text: "none" }));
      for (const item of s.items) div.append(el("div", { class: "meld" }, cardText(item)));
    }
    if (s.text !== undefined) div.append(el("div", { class: "text", text: s.text }));
    box.append(div);
  }
}

function drawDiscards(v, box) {
  box.replaceChildren();
  for (const d of v.discards || []) {
    const who = d.by < 0 ? "turned up" : `by ${v.seats[d.by]}`;
    const took = d.taken ? (v.hand_sizes.length === 2 && d.by >= 0 ? `, taken by ${v.seats[1 - d.by]}` : ", taken") : "";
    box.append(el("div", { class: "discard" + (d.taken ? " taken" : "") + (d.reshuffled ? " gone" : ""), title: who + took },
      card(d.card, { small: true }), el("span", { class: "tiny", text: (d.by < 0 ? "deal" : `p${d.by}`) + (d.taken ? "→" : "") })));
  }
  box.scrollLeft = box.scrollWidth;
}

function drawHand(v) {
  const hand = $("hand");
  hand.replaceChildren();
  const discards = new Map();
  for (const m of v.legal || []) {
    const mm = /^discard (\S+)$/i.exec(m.text);
    if (mm) discards.set(mm[1].toUpperCase(), m.text);
  }
  for (const code of sortedHand(v.hand || [], game.sort)) {
    const move = discards.get(code.toUpperCase());
    const node = card(code, { cls: move ? "playable" : "" });
    if (move) {
      node.title = `click: ${move}`;
      node.addEventListener("click", () => play(move));
    }
    hand.append(node);
  }
}

// Every move since the person's last one (game.since: its number), the others' turns and the
// moves played for the person (its only legal one), so that none goes unseen.
function drawSince(v) {
  if (game.since === null) {  // opened from a link: since its last move on record here
    const own = (v.history || []).filter((h) => h.seat === v.seat);
    game.since = own.length ? own[own.length - 1].n : 0;
  }
  const entries = (v.history || []).filter((h) => h.n > game.since);
  $("since").hidden = !entries.length;
  $("since-list").replaceChildren(...entries.map((h) => el("li", { value: h.n },
    `${h.seat === v.seat ? "you" : seatName(v, h.seat)}: `, cardText(h.move),
    h.seat === v.seat ? el("span", { class: "small", text: " (the only move: played for you)" }) : null)));
}

// One finished hand (SeatView.hand_ends): who went out, each seat's cards left and points.
function handEndNodes(v, end) {
  const out = end.out === null || end.out === undefined ? "nobody went out" : `${seatName(v, end.out)} went out`;
  return [el("div", { class: "hand-end-title", text: `${end.title} is over: ${out}.` }),
    el("table", { class: "hand-end-seats" }, ...end.left.map((cards, p) => el("tr", { "data-seat": p },
      el("td", { text: seatName(v, p) }),
      el("td", {}, cards.length ? el("span", { class: "cards" }, ...cards.map((c) => card(c, { small: true }))) : "(no cards)"),
      el("td", { text: `${end.points[p]} ${end.points_label}` }))))];
}

// The hands finished since the person last looked (who went out, every seat's cards left
// and points): the table waits behind them until the person goes on to the next hand.
function drawHandEnds(v) {
  const ends = v.hand_ends || [];
  if (game.handsSeen === null) game.handsSeen = ends.length;  // opened again: seen before
  const fresh = ends.slice(game.handsSeen);
  const box = $("hand-end");
  box.hidden = !fresh.length;
  $("game").classList.toggle("paused", !!fresh.length && !v.over);
  if (!fresh.length) { box.replaceChildren(); return false; }
  const parts = fresh.flatMap((end) => handEndNodes(v, end));
  if (!v.over) {
    parts.push(el("button", { type: "button", id: "next-hand", "data-testid": "next-hand",
      onclick: () => { game.handsSeen = ends.length; render(game.view); } }, "Next hand"));
  }
  box.replaceChildren(...parts);
  return !v.over;
}

function statusText(v) {
  const bits = [`${v.title} (${v.label})`, `turn ${v.turn}`];
  if (v.stock !== null && v.stock !== undefined) bits.push(`stock ${v.stock}`);
  if (v.over) bits.push("game over");
  else if (v.your_turn) bits.push("your turn");
  else bits.push(`${seatName(v, v.current)} to move`);
  return bits.join(" · ");
}

function render(v) {
  game.view = v;
  $("subtitle").textContent = `${v.title} · ${v.label}`;
  $("status").textContent = statusText(v);
  $("status").className = "status" + (v.your_turn ? " mine" : "");
  drawOthers(v, $("others"));
  drawSince(v);
  $("stock").textContent = v.stock === null || v.stock === undefined ? "—" : String(v.stock);
  $("discard-top").replaceChildren(v.discard_top ? card(v.discard_top) : el("span", { class: "card empty" }));
  drawDiscards(v, $("discards"));
  drawSections(v, $("sections"));
  drawHand(v);
  const paused = drawHandEnds(v);
  const moves = $("moves");
  moves.replaceChildren(...(v.legal || []).map((m) =>
    el("button", { type: "button", class: "move", "data-move": m.text, title: `move ${m.n}`, onclick: () => play(m.text) }, cardText(m.text))));
  $("moves-box").hidden = v.over || paused;
  $("hint-btn").disabled = !v.your_turn;  // a hint is for the seat to move
  $("moves-label").textContent = v.your_turn ? "Your moves (click one)" : (v.over ? "" : `Waiting for ${seatName(v, v.current)}…`);
  const mine = (v.last_moves[v.seat] || []).join("; ");
  const log = $("log");
  log.replaceChildren(...(v.history || []).map((h) => el("li", { value: h.n }, `${v.seats[h.seat]}: `, cardText(h.move))));
  if (mine) log.title = mine;
  if (v.over) {
    $("end").hidden = false;
    const won = v.won ? "won" : "lost";
    const cut = v.summary && v.summary.truncated;  // the move limit: neither won nor lost
    // a team game's result begins with its word ("won: ...", "lost: ..."), said once
    const result = cut ? `Game over: ${v.result}` :
      v.team ? `You ${won}: ${v.result.replace(/^\w+: /, "")}` : `Game over, you ${won}: ${v.result}`;
    $("result").textContent = result;
    $("result").className = cut ? "" : v.won ? "won" : "lost";
    $("record-link").href = v.record_url;
    $("replay-link").href = v.replay_url;
    stopPolling();
  } else {
    $("end").hidden = true;
    if (!v.your_turn) startPolling(); else stopPolling();
  }
}

async function play(text) {
  if (game.busy || !game.view || !game.view.your_turn) return;
  game.busy = true;
  showError("");
  $("hint").textContent = "";
  for (const b of document.querySelectorAll("#moves button")) b.disabled = true;
  try {
    const played = game.view.moves_played + 1;  // this move's number
    const v = await api("POST", `/api/games/${game.id}/moves`, { move: text }, game.token);
    game.since = played;
    render(v);
  } catch (e) {
    showError(e.message);
    try { render(await api("GET", `/api/games/${game.id}`, undefined, game.token)); } catch (e2) { /* keep the error */ }
  } finally {
    game.busy = false;
  }
}

function startPolling() {
  if (game.poll) return;
  game.poll = setInterval(async () => {
    if (game.busy) return;
    try {
      const v = await api("GET", `/api/games/${game.id}`, undefined, game.token);
      if (game.pollError) showError("");  // the poll's own message only
      if (v.moves_played !== game.view.moves_played || v.over !== game.view.over) render(v);
    } catch (e) {
      showError(e.lost ? "connection lost, retrying…" : e.message, true);
    }
  }, 1500);
}

function stopPolling() {
  if (game.poll) clearInterval(game.poll);
  game.poll = null;
}

async function openGame(id, token, view) {
  game.id = id;
  game.token = token;
  game.since = view ? 0 : null;  // a game just made: every move so far is new
  game.handsSeen = view ? 0 : null;
  $("start").hidden = true;
  $("replay").hidden = true;
  $("game").hidden = false;
  if (!token) {
    showError("This link has no seat token: open the link you were given (it ends in #token=...).");
    return;
  }
  localStorage.setItem("cc-token-" + id, token);
  try {
    render(view || await api("GET", `/api/games/${id}`, undefined, token));
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------ replay

async function replayStep(move) {
  showError("");
  const seat = replay.seat === "" ? "" : `&seat=${replay.seat}`;
  try {
    let frame;
    if (replay.record) frame = await api("POST", `/api/replay?move=${move}${seat}`, replay.record);
    else frame = await api("GET", `/api/games/${replay.id}/replay?move=${move}${seat}`, undefined,
      localStorage.getItem("cc-token-" + replay.id));
    drawReplay(frame);
  } catch (e) {
    showError(e.message);
  }
}

function drawReplay(f) {
  replay.move = f.move;
  replay.total = f.total;
  const v = f.screen;
  $("replay-pos").textContent = `move ${f.move} of ${f.total}`;
  const seatSel = $("replay-seat");
  if (seatSel.options.length === 1) {
    v.seats.forEach((name, i) => seatSel.append(el("option", { value: i, text: `${name}'s view` })));
  }
  const line = f.line ? `${f.line.n}. ${v.seats[f.line.seat]} (${f.line.player}): ${f.line.move}` +
    (f.line.forced ? " [only move]" : "") + (f.line.hint ? ` [hint asked: ${f.line.hint}]` : "") : "The deal.";
  $("replay-line").replaceChildren(cardText(line));
  const box = $("replay-table");
  const hands = el("div", { class: "others" });
  const showAll = v.seat === null || v.seat === undefined;
  const vv = Object.assign({}, v, { seat: showAll ? -1 : v.seat });
  drawOthers(vv, hands);
  const sections = el("div", { class: "sections" });
  drawSections(vv, sections);
  const discards = el("div", { class: "discards" });
  drawDiscards(v, discards);
  const parts = [el("div", { class: "status", text: statusText(Object.assign({}, v, { your_turn: false })) }), hands];
  if (v.hand_end) parts.unshift(el("div", { class: "end", "data-testid": "replay-hand-end" }, ...handEndNodes(vv, v.hand_end)));
  if (!showAll) parts.push(el("div", { class: "label", text: "Hand of " + v.seats[v.seat] }),
    el("div", { class: "hand" }, ...(v.hand || []).map((c) => card(c))));
  parts.push(el("div", { class: "label", text: `Discards · stock ${v.stock ?? "—"}` }), discards, sections);
  if (f.summary && f.move === f.total) parts.push(el("div", { class: "end", "data-testid": "replay-result", text: `Result: ${f.summary.result}` }));
  box.replaceChildren(...parts);
}

function openReplay(id) {
  $("start").hidden = true;
  $("game").hidden = true;
  $("replay").hidden = false;
  replay.id = id || null;
  $("replay-pick").hidden = !!id;
  if (id) replayStep(0);
}

// ------------------------------------------------------------------ routes

async function route() {
  const path = location.pathname;
  const hash = new URLSearchParams(location.hash.slice(1));
  let m;
  if ((m = /^\/play\/([0-9a-f]{16})$/.exec(path))) {
    const token = hash.get("token") || localStorage.getItem("cc-token-" + m[1]);
    // the seat's key leaves the address bar once read (kept in this browser for a reload)
    if (hash.has("token")) history.replaceState(history.state, "", path);
    return openGame(m[1], token);
  }
  if ((m = /^\/replay(?:\/([0-9a-f]{16}))?$/.exec(path))) return openReplay(m ? m[1] : null);
  $("start").hidden = false;
  try {
    meta = await api("GET", "/api/meta");
  } catch (e) {
    showError(e.message);
    return;
  }
  $("f-game").replaceChildren(...meta.games.map((g) => el("option", { value: g.name, text: g.title, selected: g.name === meta.default })));
  buildOptions();
}

function wire() {
  $("f-game").addEventListener("change", buildOptions);
  $("f-seat").addEventListener("change", buildSeats);
  $("f-level").addEventListener("change", refreshPartners);
  $("f-options").addEventListener("input", refreshPartners);
  $("start-form").addEventListener("submit", startGame);
  for (const b of document.querySelectorAll("[data-sort]")) {
    b.addEventListener("click", () => { game.sort = b.dataset.sort; if (game.view) drawHand(game.view); });
  }
  $("hint-btn").addEventListener("click", async () => {
    try {
      const h = await api("GET", `/api/games/${game.id}/hint`, undefined, game.token);
      $("hint").textContent = `Hint: the baseline would play ${h.move} (move ${h.n}).`;
      for (const b of document.querySelectorAll("#moves button")) b.classList.toggle("hinted", b.dataset.move === h.move);
    } catch (e) { showError(e.message); }
  });
  $("rules-btn").addEventListener("click", async () => {
    const box = $("rules");
    if (!box.hidden) { box.hidden = true; return; }
    try {
      const r = await api("GET", `/api/games/${game.id}/rules`);
      box.textContent = r.rules + (r.examples ? "\n\nMoves look like: " + r.examples : "");
      box.hidden = false;
    } catch (e) { showError(e.message); }
  });
  for (const b of document.querySelectorAll("[data-step]")) {
    b.addEventListener("click", () => {
      const to = { first: 0, prev: replay.move - 1, next: replay.move + 1, last: replay.total }[b.dataset.step];
      replayStep(Math.max(0, Math.min(to, replay.total)));
    });
  }
  $("replay-seat").addEventListener("change", () => { replay.seat = $("replay-seat").value; replayStep(replay.move); });
  $("replay-file").addEventListener("change", async () => {
    const file = $("replay-file").files[0];
    if (!file) return;
    try {
      replay.record = JSON.parse(await file.text());
      replay.id = null;
      replayStep(0);
    } catch (e) { showError("not a JSON file: " + e.message); }
  });
  window.addEventListener("popstate", () => location.reload());
}

wire();
route();
