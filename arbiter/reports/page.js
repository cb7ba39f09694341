// The arbiter report page: draws everything from the JSON in #report-data.
// Games stay as compact arrays (fields named by data.game_fields) and are decoded only
// when opened in the viewer; the games list shows one page of rows at a time.
"use strict";
(() => {
  let data = JSON.parse(document.getElementById("report-data").textContent);  // the live page replaces it
  const F = Object.fromEntries(data.game_fields.map((name, i) => [name, i]));
  const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#65a30d"];
  const SVG_NS = "http://www.w3.org/2000/svg";
  const GAMES_PER_PAGE = 50;
  const CHANCE = -1;  // the seat of a chance outcome the referee drew (encoded "*")

  // A player's colour is the same everywhere on the page, and on the report and the live page
  // alike: it follows the player's index in data.players, the config's order of the players
  // on both (html.tournament_page_data, live.py), seat order on a game page. Past the palette, hues a golden angle apart keep every player distinct.
  const paletteColor = (i) => (i < PALETTE.length ? PALETTE[i] : `hsl(${((i - PALETTE.length) * 137.508 + 17) % 360} 70% 40%)`);
  const playerName = (index) => data.players[index];
  const colorOfName = (name) => paletteColor(Math.max(0, data.players.indexOf(name)));
  // Each seat's colour in one game: its player's, unless a player holds two seats (then by seat).
  const gameColors = (playerIndices) =>
    (new Set(playerIndices).size === playerIndices.length ? playerIndices : playerIndices.map((_, seat) => seat)).map(paletteColor);
  const swatch = (color) => h("span", { class: "swatch", style: `background:${color}` });

  // ---- small DOM helpers ---------------------------------------------------------------
  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    return node;
  }
  function addChildren(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const h = (tag, attrs, ...children) => addChildren(setAttrs(document.createElement(tag), attrs), children);
  const s = (tag, attrs, ...children) => addChildren(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);

  // ---- number formats: Python's format specs as standings.txt uses them -------------------
  const isNum = (x) => typeof x === "number" && Number.isFinite(x);
  // f"{x:.{d}f}": like toFixed, except that an exact tie rounds to even (toFixed rounds up).
  function pyFixed(x, digits) {
    if (!isNum(x)) return "–";
    const sign = x < 0 ? "-" : "";
    const twice = Math.abs(x) * 2 * 10 ** digits;
    // A tie is an odd multiple of one half-unit; for it to be an exact binary value too,
    // it must be divisible by 5**digits (otherwise `twice` only looks whole after rounding).
    if (Number.isInteger(twice) && twice % 2 === 1 && twice % 5 ** digits === 0) {
      const even = (twice - 1) / 2 % 2 === 0 ? (twice - 1) / 2 : (twice + 1) / 2;
      return sign + (even / 10 ** digits).toFixed(digits);
    }
    return sign + Math.abs(x).toFixed(digits);
  }
  const pyFixedSigned = (x, digits) => (isNum(x) ? (x < 0 ? "" : "+") + pyFixed(x, digits) : "–");
  // An Elo figure as stats.elo_text prints it: whole points, +0 for what rounds to zero.
  // An interval's end is null in summary.json where it is unbounded: -inf below, +inf above.
  const eloFixed = (x) => pyFixedSigned(isNum(x) && Math.abs(x) <= 0.5 ? 0 : x, 0);
  const eloText = (elo, low, high) =>
    `${eloFixed(elo)} [${isNum(low) ? eloFixed(low) : "-inf"}, ${isNum(high) ? eloFixed(high) : "+inf"}]`;
  const pyG = (x) => (isNum(x) ? String(Number(x.toPrecision(6))) : "–");  // f"{x:g}" for ordinary sizes
  const paramValue = (v) => (Array.isArray(v) ? v.map((x) => (Array.isArray(x) ? x.join("/") : x)).join(",") : String(v));
  const paramText = (params) => Object.entries(params || {}).filter(([, v]) => v !== null).map(([k, v]) => `${k}=${paramValue(v)}`).join(" ");

  // ---- games: decoded lazily ----------------------------------------------------------
  // A game page and the live page carry their games inline (data.games); a tournament report
  // keeps them in its games folder (data.chunks, html.GameChunks) as small script files, each
  // loaded the first time it is needed: a page of the games list, or an opened game.
  let games = data.games || [];
  let gameIndexById = null;
  function gameIndex(id) {
    if (!gameIndexById) gameIndexById = new Map(games.map((g, i) => [String(g[F.id]), i]));
    return gameIndexById.get(id);
  }
  const LIST_FIELDS = ["id", "round", "players", "scores", "winner", "termination", "offender", "moves", "duration_s"];
  const L = Object.fromEntries(LIST_FIELDS.map((name, i) => [name, i]));  // a row of the games list
  const listRow = (g) => [g[F.id], g[F.round], g[F.players], g[F.scores], g[F.winner], g[F.termination], g[F.offender],
    g[F.seats].length, g[F.duration_s]];
  // A filter of the games list as the games folder names it: `p3` (player 3), `e1` (the second
  // termination of data.terminations), `p3e1` (both); "" for every game.
  const viewName = (player, ending) => `${player === "" ? "" : `p${player}`}${ending === "" ? "" : `e${data.terminations.indexOf(ending)}`}`;

  // Games carried inline: every question is answered from data.games at once.
  const inlineGames = {
    total: () => games.length,
    endingCounts() {
      const counts = {};
      for (const g of games) counts[g[F.termination]] = (counts[g[F.termination]] || 0) + 1;
      return counts;
    },
    selection(player, ending) {
      const p = player === "" ? null : Number(player);
      const chosen = games.filter((g) => (p === null || g[F.players].includes(p)) && (ending === "" || g[F.termination] === ending));
      return { count: chosen.length, rows: async (from, to) => chosen.slice(from, to).map(listRow) };
    },
    game: async (id) => games[gameIndex(id)],
  };

  // A chunk file calls arbiterChunk(name, payload) as it runs; its <script> is then removed.
  const chunkWaiting = new Map();  // name -> the resolve functions of the loads waiting for it
  const chunkCache = new Map();  // name -> promise of its payload, the most recently used last
  // The live page reads its chunks anew after each update, and falls back on the last copy
  // when its server has gone (the run has ended): the page keeps showing what it showed.
  const staleChunks = new Map();
  const CHUNKS_KEPT = 48;
  function chunksChanged() {
    for (const [name, loaded] of chunkCache) staleChunks.set(name, loaded);
    while (staleChunks.size > CHUNKS_KEPT) staleChunks.delete(staleChunks.keys().next().value);
    chunkCache.clear();
  }
  window.arbiterChunk = (name, payload) => {
    const waiting = chunkWaiting.get(name) || new Set();
    chunkWaiting.delete(name);
    for (const resolve of waiting) resolve(payload);
    waiting.clear();  // answered: their scripts' load events find nothing left to fail
  };
  function loadChunk(name) {
    const cached = chunkCache.get(name);
    if (cached) { chunkCache.delete(name); chunkCache.set(name, cached); return cached; }
    const src = `${data.chunks.folder}/${name}.js`;
    const loaded = new Promise((resolve, reject) => {
      // Two loads of one name may overlap (the live page reloads after an update): the first
      // script to run answers both.
      const waiting = chunkWaiting.get(name) || new Set();
      chunkWaiting.set(name, waiting.add(resolve));
      // A <script>, not fetch(): a browser refuses fetch() of a file opened from disk.
      const script = h("script", { src });
      const fail = (why) => {
        script.remove();
        if (!waiting.delete(resolve)) return;  // answered
        const stale = staleChunks.get(name);
        if (stale) stale.then(resolve, () => reject(new Error(why)));
        else reject(new Error(why));
      };
      const gone = data.live ? "the live page's server has stopped"
        : `the report was rewritten, or moved without its ${data.chunks.folder.split("/")[0]} folder; reload the page`;
      script.addEventListener("load", () => fail(`${src} does not hold ${name}`));
      script.addEventListener("error", () => fail(`cannot read ${src}: ${gone}`));
      document.head.append(script);
    });
    loaded.catch(() => chunkCache.delete(name));
    chunkCache.set(name, loaded);
    while (chunkCache.size > CHUNKS_KEPT) chunkCache.delete(chunkCache.keys().next().value);
    return loaded;
  }
  // Which ids file holds a game id: FNV-1a of its UTF-8 bytes, as html.id_bucket computes it.
  function idBucket(id) {
    let digest = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(id)) digest = Math.imul(digest ^ byte, 0x01000193) >>> 0;
    return digest % data.chunks.id_buckets;
  }
  const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  // Where the games listed lately are in games.jsonl: a game opened from the list needs no ids file.
  const listedAt = new Map();  // id -> position
  // The rows at the given positions of games.jsonl, from the list files that hold them.
  async function rowsAt(positions) {
    const per = data.chunks.rows_per_chunk;
    const files = [...new Set(positions.map((p) => Math.floor(p / per)))];
    const loaded = new Map(await Promise.all(files.map(async (k) => [k, await loadChunk(`list-${k}`)])));
    if (listedAt.size > 10 * GAMES_PER_PAGE) listedAt.clear();
    const rows = [];
    for (const p of positions) {
      const row = loaded.get(Math.floor(p / per))[p % per];
      if (row === undefined) continue;  // one a stale copy lacks (the live page's server has gone)
      listedAt.set(String(row[L.id]), p);
      rows.push(row);
    }
    return rows;
  }
  const gamesFile = (position) => `games-${Math.floor(position / data.chunks.games_per_chunk)}`;
  const chunkedGames = {
    total: () => data.chunks.total,
    endingCounts: () => Object.fromEntries(data.terminations.map((t, i) => [t, data.chunks.views[`e${i}`] || 0]).filter(([, n]) => n)),
    selection(player, ending) {
      const view = viewName(player, ending);
      if (view === "") return { count: data.chunks.total, rows: (from, to) => rowsAt(range(from, Math.min(to, data.chunks.total))) };
      const count = data.chunks.views[view] || 0, per = data.chunks.rows_per_chunk;
      return {
        count,
        async rows(from, to) {
          to = Math.min(to, count);
          if (from >= to) return [];
          const files = range(Math.floor(from / per), Math.floor((to - 1) / per) + 1);
          const positions = (await Promise.all(files.map((k) => loadChunk(`${view}-${k}`)))).flat();
          return rowsAt(positions.slice(from - files[0] * per, to - files[0] * per));
        },
      };
    },
    async game(id) {
      const position = listedAt.has(id) ? listedAt.get(id) : (await loadChunk(`ids-${idBucket(id)}`))[id];
      if (position === undefined) return undefined;
      const game = (await loadChunk(gamesFile(position)))[position % data.chunks.games_per_chunk];
      return game !== undefined && String(game[F.id]) === id ? game : undefined;
    },
    // A game about to be opened (the pointer is on its row): its moves are read ahead.
    prefetch(id) {
      if (listedAt.has(id)) loadChunk(gamesFile(listedAt.get(id))).catch(() => {});
    },
  };
  // The live page's data is replaced by each snapshot: which source answers is asked each time.
  const gameSource = () => (data.chunks ? chunkedGames : inlineGames);

  const splitInts = (text) => (text === "" ? [] : text.split(",").map(Number));
  function decodeGame(entry) {
    const board = data.boards[entry[F.board]];
    const moves = splitInts(entry[F.moves]);
    return {
      id: String(entry[F.id]),
      round: entry[F.round],
      board,
      names: entry[F.players].map(playerName),
      colors: gameColors(entry[F.players]),
      scores: entry[F.scores],
      winner: entry[F.winner],
      termination: entry[F.termination],
      offender: entry[F.offender],
      detail: entry[F.detail],
      outcome: entry[F.outcome],
      forced: entry[F.forced],
      seats: Array.from(entry[F.seats], (c) => (c === "*" ? CHANCE : parseInt(c, 36))),  // *: chance's draw
      moves,
      texts: moves.map((m) => board.move_texts[m]),
      effects: moves.map((m) => board.move_effects[m]),
      timesMs: splitInts(entry[F.times_ms]),
      startedAt: entry[F.started_at],
      durationS: entry[F.duration_s],
      frames: entry[F.frames] || null,
    };
  }

  // Scores as records.score_text writes them: `6–3`, and signed apart below zero (OpenSpiel's
  // returns) `+1 / -1`, never `1–-1`.
  const scoreText = (scores) => (Math.min(...scores) >= 0 ? scores.join("–")
    : scores.map((s) => (s > 0 ? `+${s}` : String(s))).join(" / "));
  // Scores in seat order; after a fault they are the position's when the fault ended the game
  // (the winner may have fewer points, or none in a game scored only at its end), said plainly.
  // A void game (its rules failed, or its worker died) has no result: it counts for no one.
  function resultText(names, scores, winner, offender, termination) {
    if (termination === "void") return "void: no result, counted for no one";
    const when = offender !== null && offender !== undefined ? " when the fault ended it" : "";
    return `${winnerText(names, scores, winner, offender)} · score ${scoreText(scores)}${when}`;
  }
  // No winner: a draw of two seats, or with more seats a tie for first between the best
  // scores (a fault's offender is last whatever its score).
  function winnerText(names, scores, winner, offender) {
    if (winner !== null && winner !== undefined) return `winner ${names[winner]}`;
    if (names.length === 2) return "draw";
    const contenders = scores.map((score, seat) => (seat === offender ? -Infinity : score));
    const best = Math.max(...contenders);
    return `tie for first: ${names.filter((_, seat) => contenders[seat] === best).join(", ")}`;
  }
  function endingText(game) {
    const by = game.offender === null || game.offender === undefined ? "" : ` by ${game.names[game.offender]}`;
    const outcome = game.outcome ? ` (${game.outcome})` : "";
    return `${game.termination}${by}${outcome}`;
  }

  // ---- header and tournament sections -------------------------------------------------
  function renderHeader() {
    const header = document.getElementById("page-header");
    if (data.page === "tournament") {
      const t = data.tournament;
      header.replaceChildren(
        h("h1", { text: t.name }),
        h("div", { class: "subtitle", text: `${t.game} ${paramText(t.params)} · ${t.format} · ${gameSource().total()} games` }),
      );
      const boxed = (t.sandbox || {}).line;  // standings.txt's sandbox line (docs/security.md)
      if (boxed && boxed.startsWith("WARNING")) header.append(h("div", { class: "warning", id: "sandbox-warning", text: boxed }));
    } else {
      const game = decodeGame(games[0]);
      header.append(
        h("h1", { text: `${game.names.join(" vs ")}` }),
        h("div", { class: "subtitle", text: `${game.board.game} ${paramText(game.board.params)} · ${resultText(game.names, game.scores, game.winner, game.offender, game.termination)}` }),
      );
    }
  }

  function card(id, title, ...children) {
    return h("section", { class: "card", id }, h("h2", { text: title }), ...children);
  }

  // The tournament card: sentences written by html.overview_rows, shown as they are.
  function renderOverview() {
    const rows = data.tournament.overview || [];
    return card("overview", "Tournament", h("dl", { class: "overview" }, rows.map(([k, v]) => [h("dt", { text: k }), h("dd", { text: v })])));
  }

  const ordinal = (place) => `${place}${({ 1: "st", 2: "nd", 3: "rd" })[place] || "th"}`;  // as progress.ordinal
  const faultTotal = (faults) => Object.values(faults || {}).reduce((a, b) => a + b, 0);
  const faultText = (faults) =>
    Object.entries(faults || {}).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`).join(", ") || "-";

  // The same columns and formats as standings.txt.
  function renderStandings() {
    const columns = [
      ["rank", "#", (p) => p.rank],
      ["name", "player", null],
      ["games", "games", (p) => p.games],
      ["wins", "W", (p) => p.wins],
      ["draws", "D", (p) => p.draws],
      ["losses", "L", (p) => p.losses],
      // With more than two seats, how often the player finished 1st, 2nd, ... as standings.txt prints it.
      ...(data.seats > 2 ? [["places", Array.from({ length: data.seats }, (_, i) => ordinal(i + 1)).join("-"), (p) => (p.places || []).join("-")]] : []),
      ["points", "points", (p) => pyG(p.points)],
      ["score_pct", "score %", (p) => pyFixed(p.score_pct, 1)],
      // Two players: each row's Elo is over the other, the head-to-head line's figure (standings.py).
      ["rating", data.head_to_head ? "Elo over the other [95%]" : "Elo [95%]", (p) => eloText(p.rating, p.rating_low, p.rating_high)],
      ["faults", "faults", (p) => faultText(p.faults)],
      ["avg_move_ms", "avg ms/move", (p) => pyFixed(p.avg_move_ms, 1)],
      ["max_move_ms", "max ms/move", (p) => pyFixed(p.max_move_ms, 0)],
      ["max_startup_ms", "max start-up ms", (p) => (p.max_startup_ms == null ? "-" : pyFixed(p.max_startup_ms, 0))],
    ];
    const body = data.standings.map((p) =>
      h("tr", { "data-player": p.name }, columns.map(([key, , value]) => {
        if (key === "name") return h("td", { class: "text", "data-key": key }, swatch(colorOfName(p.name)), p.name);
        const faulty = key === "faults" && faultTotal(p.faults) > 0;
        return h("td", { "data-key": key, class: faulty ? "text faulty" : key === "faults" ? "text" : null, text: value(p) });
      })),
    );
    const table = h("table", { class: "data", id: "standings-table" },
      h("thead", {}, h("tr", {}, columns.map(([key, label]) => h("th", { class: key === "name" || key === "faults" ? "text" : null, text: label })))),
      h("tbody", {}, body));
    const hh = data.head_to_head;
    // The line standings.txt prints (standings.head_to_head_line), from summary.json's figures.
    const pair = hh && data.standings.length === 2
      ? h("p", { class: "note", id: "head-to-head", text: `${hh.first} vs ${hh.second}: Elo of ${hh.first} over ${hh.second} ${eloText(hh.elo, hh.low, hh.high)} (95% interval, ${hh.interval}), likelihood of superiority ${pyFixed(100 * hh.los, 1)}%` })
      : null;
    // Void games count for no one (docs/records.md): said beside the table, as standings.txt does.
    const voided = data.standings.filter((p) => p.void > 0);
    const voidCount = (((data.tournament || {}).totals || {}).void) || 0;
    const voidNote = voidCount ? h("p", { class: "note", id: "void-games", text: `${voidCount} void game${voidCount > 1 ? "s" : ""} (${voided.map((p) => `${p.name}: ${p.void}`).join(", ")}), counted for no one` }) : null;
    return card("standings", "Standings", h("div", { class: "scroll-x" }, table), pair, voidNote);
  }

  // A Swiss tournament with a final: the staged ranking and its tie-breaks, as standings.txt opens.
  function renderRanking() {
    if (!data.ranking) return null;
    const columns = [["rank", "#"], ["name", "player"], ["stage", "stage"], ["points", "points"],
      ["among_tied", "among tied"], ["swiss_rank", "Swiss rank"], ["swiss_points", "Swiss points"], ["buchholz", "Buchholz"]];
    const cell = (line, key) => (line[key] == null ? "" : typeof line[key] === "number" ? pyG(line[key]) : line[key]);
    const body = data.ranking.map((line) => h("tr", { "data-player": line.name, class: line.stage === "final" ? "finalist" : null },
      columns.map(([key]) => (key === "name"
        ? h("td", { class: "text", "data-key": key }, swatch(colorOfName(line.name)), line.name)
        : h("td", { "data-key": key, class: key === "stage" ? "text" : null, text: cell(line, key) })))));
    return card("ranking", "Final ranking", h("div", { class: "scroll-x" },
      h("table", { class: "data", id: "ranking-table" },
        h("thead", {}, h("tr", {}, columns.map(([key, label]) => h("th", { class: key === "name" || key === "stage" ? "text" : null, text: label })))),
        h("tbody", {}, body))),
      h("p", { class: "note", text: `The top ${data.final_top} of the Swiss ranking played the final. Ties: points among the tied players in the final, then the Swiss rank (Swiss points, then Buchholz, then the config's order).` }));
  }

  // A Swiss tournament's rounds: each group with the points its players took in that round.
  function renderRounds() {
    if (!data.rounds || !data.rounds.length) return null;
    const items = data.rounds.map((r) => h("li", { "data-round": String(r.round) },
      h("strong", { text: r.round === data.final_round ? "Final: " : `Round ${r.round}: ` }),
      r.groups.map((group) => group.map(([name, points]) => `${name} ${pyG(points)}`).join(" – ")).join("; ")
        + (r.out.length ? ` (out: ${r.out.join(", ")})` : "")));
    return card("rounds", "Rounds", h("ol", { class: "rounds", id: "rounds-list" }, items));
  }

  function niceStep(span) {
    const raw = span / 6;
    const base = 10 ** Math.floor(Math.log10(raw));
    return [1, 2, 5, 10].map((m) => m * base).find((step) => step >= raw);
  }

  function renderChart() {
    const players = data.standings;
    const values = players.flatMap((p) => [p.rating, p.rating_low, p.rating_high]).filter(isNum).concat([0]);
    let low = Math.min(...values), high = Math.max(...values);
    if (high - low < 1) { low -= 50; high += 50; }
    const pad = (high - low) * 0.06;
    low -= pad; high += pad;
    const width = 760, rowH = 28, top = 28, left = 170, right = 210;
    const height = top + rowH * players.length + 10;
    const x = (v) => left + ((v - low) / (high - low)) * (width - left - right);
    const step = niceStep(high - low);
    const ticks = [];
    for (let v = Math.ceil(low / step) * step; v <= high; v += step) ticks.push(v);
    const svg = s("svg", { id: "score-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Ratings with 95% intervals" },
      ticks.map((v) => [s("line", { class: "axis", x1: x(v), x2: x(v), y1: top - 8, y2: height - 6, "stroke-dasharray": v === 0 ? null : "2 3" }),
        s("text", { class: "tick", x: x(v), y: top - 14, text: pyG(v) })]),
      players.map((p, i) => {
        const y = top + rowH * i + rowH / 2;
        const color = colorOfName(p.name);
        // An infinite end (null in JSON) runs to the edge of the chart.
        const hasInterval = isNum(p.rating);
        const lowEnd = isNum(p.rating_low) ? p.rating_low : low, highEnd = isNum(p.rating_high) ? p.rating_high : high;
        return s("g", { class: "chart-row", "data-player": p.name },
          s("text", { class: "chart-name", x: 8, y, text: `${p.rank}. ${p.name}` }),
          hasInterval ? s("line", { class: "interval", x1: x(lowEnd), x2: x(highEnd), y1: y, y2: y, stroke: color }) : null,
          isNum(p.rating) ? s("circle", { cx: x(p.rating), cy: y, r: 5.5, fill: color }) : null,
          s("text", { class: "chart-value", x: width - right + 12, y, text: `${pyFixedSigned(p.rating, 0)}  (${pyFixed(p.score_pct, 1)}% of points)` }));
      }));
    return card("chart", "Rating with 95% interval", h("div", { class: "scroll-x" }, svg),
      h("p", { class: "note", text: "Each dot is a player's rating on the Elo scale; the bar is its 95% interval, from summary.json." }));
  }

  function renderCrosstable() {
    const names = data.standings.map((p) => p.name);
    const table = data.crosstable || {};
    const head = h("tr", {}, h("th", { class: "text", text: "Player" }),
      names.map((n, i) => h("th", { title: n }, swatch(colorOfName(n)), String(i + 1))), h("th", { text: "Points" }));
    const rows = data.standings.map((p, i) =>
      h("tr", { "data-player": p.name }, h("td", { class: "text" }, swatch(colorOfName(p.name)), `${i + 1}. ${p.name}`),
        names.map((other) => {
          if (other === p.name) return h("td", { class: "self", text: "x" });
          const value = (table[p.name] || {})[other] ?? 0;
          return h("td", { "data-opponent": other, title: `${p.name} vs ${other}`, text: pyG(value) });
        }),
        h("td", { text: pyG(p.points) })));
    return card("crosstable", "Crosstable", h("div", { class: "scroll-x" },
      h("table", { class: "data", id: "crosstable-table" }, h("thead", {}, head), h("tbody", {}, rows))),
      h("p", { class: "note", text: data.crosstable_counts === "finished_ahead"
        ? "Games in which the row's player finished ahead of the column's player (a tie counts 1/2)."
        : "Points scored by the row's player against the column's player." }));
  }

  // ---- games list ---------------------------------------------------------------------
  // One page of rows at a time, asked of the games' source (inline or the games folder); the
  // table says aria-busy while a page is on its way, and a page that arrives after another was
  // asked for is dropped.
  const gamesListState = { player: "", ending: "", page: 0 };  // kept when the live page redraws the list
  let listReady = null;  // the first page of the list drawn (the page is ready after it)
  function renderGamesList() {
    const counts = gameSource().endingCounts();
    const terminations = data.terminations.filter((t) => counts[t]);
    const playerSelect = h("select", { id: "filter-player" }, h("option", { value: "", text: "all" }),
      data.players.map((name, i) => h("option", { value: String(i), text: name })));
    const endingSelect = h("select", { id: "filter-termination" }, h("option", { value: "", text: "all" }),
      terminations.map((t) => h("option", { value: t, text: `${t} (${counts[t]})` })));
    const shown = h("span", { id: "games-count", class: "note" });
    const tbody = h("tbody");
    const table = h("table", { class: "data", id: "games-table", "aria-busy": "true" });
    const problem = h("p", { class: "note warning", id: "games-problem", hidden: true });
    const pageInput = h("input", { type: "number", id: "games-page", min: 1, value: 1, "aria-label": "page" });
    const pageCount = h("span", { class: "note", id: "games-pages" });
    const first = h("button", { type: "button", id: "games-first", text: "|◀" });
    const prev = h("button", { type: "button", id: "games-prev", text: "◀ previous page" });
    const next = h("button", { type: "button", id: "games-next", text: "next page ▶" });
    const last = h("button", { type: "button", id: "games-last", text: "▶|" });
    const idInput = h("input", { type: "search", id: "goto-game", placeholder: "game id", "aria-label": "game id", size: 10 });
    const idForm = h("form", { class: "goto", id: "goto-form" }, h("label", {}, "Open game", idInput), h("button", { type: "submit", text: "open" }));
    let page = gamesListState.page;
    let selection = null;
    let asked = 0;

    function row(g) {
      const id = String(g[L.id]);
      const names = g[L.players].map(playerName);
      const colors = gameColors(g[L.players]);
      const isVoid = g[L.termination] === "void";
      const fault = g[L.termination] !== "normal" && !isVoid;
      const offender = g[L.offender];
      const ending = fault && offender !== null ? `${g[L.termination]} (${names[offender]})` : g[L.termination];
      const source = gameSource();
      return h("tr", { "data-game": id, onclick: () => openGame(id), onpointerenter: source.prefetch ? () => source.prefetch(id) : null },
        h("td", { class: "text" }, h("a", { href: `#game=${encodeURIComponent(id)}`, text: id })),
        h("td", { text: g[L.round] ?? "" }),
        h("td", { class: "text" }, names.map((n, seat) => [seat ? " vs " : "", swatch(colors[seat]), n])),
        h("td", { text: scoreText(g[L.scores]) }),
        h("td", { class: "text", text: isVoid ? "none (void)" : g[L.winner] === null ? winnerText(names, g[L.scores], null, offender) : names[g[L.winner]] }),
        h("td", { class: fault ? "text ending-fault" : isVoid ? "text ending-void" : "text", text: ending }),
        h("td", { text: g[L.moves] }),
        h("td", { text: pyFixed(g[L.duration_s], 2) + " s" }));
    }
    async function draw() {
      const pages = Math.max(1, Math.ceil(selection.count / GAMES_PER_PAGE));
      page = Math.max(0, Math.min(page, pages - 1));
      gamesListState.page = page;
      shown.textContent = `${selection.count} of ${gameSource().total()} games`;
      pageInput.value = String(page + 1);
      pageInput.max = String(pages);
      pageCount.textContent = `of ${pages}`;
      first.disabled = prev.disabled = page === 0;
      next.disabled = last.disabled = page >= pages - 1;
      const token = ++asked;
      table.setAttribute("aria-busy", "true");
      let rows, failure = null;
      try {
        rows = await selection.rows(page * GAMES_PER_PAGE, (page + 1) * GAMES_PER_PAGE);
      } catch (error) {
        rows = [];
        failure = error.message;
      }
      if (token !== asked) return;
      tbody.replaceChildren(...rows.map(row));
      problem.hidden = failure === null;
      problem.textContent = failure || "";
      table.setAttribute("aria-busy", "false");
    }
    function filter() {
      gamesListState.player = playerSelect.value;
      gamesListState.ending = endingSelect.value;
      selection = gameSource().selection(playerSelect.value, endingSelect.value);
    }
    const refilter = () => { filter(); page = 0; draw(); };
    const turn = (to) => () => { page = to(); draw(); };
    playerSelect.addEventListener("change", refilter);
    endingSelect.addEventListener("change", refilter);
    first.addEventListener("click", turn(() => 0));
    prev.addEventListener("click", turn(() => page - 1));
    next.addEventListener("click", turn(() => page + 1));
    last.addEventListener("click", turn(() => Infinity));
    pageInput.addEventListener("change", turn(() => (Number(pageInput.value) || 1) - 1));
    idForm.addEventListener("submit", (event) => {
      event.preventDefault();
      if (idInput.value.trim()) openGame(idInput.value.trim());
    });
    playerSelect.value = gamesListState.player;
    endingSelect.value = gamesListState.ending;
    filter();
    listReady = draw();
    const head = ["Game", "Round", "Players", "Score", "Winner", "Ending", "Moves", "Time"];
    table.append(h("thead", {}, h("tr", {}, head.map((label, i) => h("th", { class: [0, 2, 4, 5].includes(i) ? "text" : null, text: label })))), tbody);
    return card("games", "Games",
      h("div", { class: "filters" }, h("label", {}, "Player", playerSelect), h("label", {}, "Ending", endingSelect), shown,
        h("span", { class: "spacer" }), idForm),
      problem,
      h("div", { class: "scroll-x" }, table),
      h("div", { class: "pager" }, first, prev, h("label", { class: "note" }, "page ", pageInput), pageCount, next, last));
  }

  // ---- board drawing: one module per board kind -----------------------------------------
  // Each has setup(game, svg) -> view, and view.show(ply) -> the running scores (or null).
  const BOARD_KINDS = {
    dots: {
      setup(game, svg) {
        const geo = game.board.geometry;
        const xs = geo.dots.map((d) => d[0]).concat(geo.labels.map((l) => l[0]));
        const ys = geo.dots.map((d) => d[1]).concat(geo.labels.map((l) => l[1]));
        const minX = Math.min(...xs) - 0.35, minY = Math.min(...ys) - 0.35;
        const width = Math.max(...xs) - minX + 0.35, height = Math.max(...ys) - minY + 0.35;
        svg.setAttribute("viewBox", `${minX} ${minY} ${width} ${height + 0.45}`);
        const edgeCells = geo.edges.map(() => []);
        geo.cells.forEach((cellEdges, cell) => cellEdges.forEach((e) => edgeCells[e].push(cell)));
        const point = (d) => geo.dots[d];
        const cells = geo.polygons.map((poly, cell) =>
          s("polygon", { class: "cell", "data-cell": cell, points: poly.map((d) => point(d).join(",")).join(" ") }));
        const glow = s("line", { class: "edge-glow", visibility: "hidden" });
        const edges = geo.edges.map(([a, b], e) =>
          s("line", { class: "edge", "data-edge": e, x1: point(a)[0], y1: point(a)[1], x2: point(b)[0], y2: point(b)[1] }));
        const banner = s("text", { class: "banner", x: minX + width / 2, y: minY + height + 0.2 });
        svg.replaceChildren(
          s("g", { class: "cells" }, cells), glow, s("g", { class: "edges" }, edges),
          s("g", { class: "dots" }, geo.dots.map(([x, y]) => s("circle", { class: "dot", cx: x, cy: y, r: 0.07 }))),
          s("g", { class: "labels" }, geo.labels.map(([x, y, text]) => s("text", { class: "label", x, y, text }))),
          banner);
        return {
          banner,
          show(ply) {
            const drawnBy = new Array(geo.edges.length).fill(-1);
            const owner = new Array(geo.cells.length).fill(-1);
            const completedAt = new Array(geo.cells.length).fill(-1);
            const scores = new Array(game.names.length).fill(0);
            for (let i = 0; i < ply; i++) {
              const edge = game.effects[i];
              if (edge === null || drawnBy[edge] >= 0) continue;
              drawnBy[edge] = i;
              for (const cell of edgeCells[edge]) {
                if (geo.cells[cell].every((e) => drawnBy[e] >= 0)) {
                  owner[cell] = game.seats[i];
                  completedAt[cell] = i;
                  scores[game.seats[i]] += 1;
                }
              }
            }
            edges.forEach((line, e) => {
              const i = drawnBy[e];
              line.setAttribute("class", i < 0 ? "edge" : `edge drawn${i < game.forced ? " forced" : ""}${i === ply - 1 ? " last" : ""}`);
              line.style.stroke = i < 0 ? "" : game.colors[game.seats[i]];
              line.setAttribute("data-move", i < 0 ? "" : String(i + 1));
            });
            cells.forEach((poly, cell) => {
              poly.setAttribute("class", completedAt[cell] >= 0 && completedAt[cell] === ply - 1 ? "cell owned fresh" : owner[cell] >= 0 ? "cell owned" : "cell");
              poly.style.fill = owner[cell] < 0 ? "" : game.colors[owner[cell]];
              poly.style.fillOpacity = owner[cell] < 0 ? "" : completedAt[cell] === ply - 1 ? "0.55" : "0.3";
            });
            const last = ply > 0 ? game.effects[ply - 1] : null;
            if (last !== null && last !== undefined) {
              const src = edges[last];
              for (const k of ["x1", "y1", "x2", "y2"]) glow.setAttribute(k, src.getAttribute(k));
              glow.setAttribute("visibility", "visible");
            } else glow.setAttribute("visibility", "hidden");
            return scores;
          },
        };
      },
    },
    nim: {
      setup(game, svg) {
        const piles = game.board.geometry.piles;
        const most = Math.max(1, ...piles.map((p) => p[0]));
        const unit = Math.min(0.5, 8 / most);  // height of one stone
        const colW = 1.6, top = 0.3, base = top + most * unit;
        const outlines = piles.map(([stones], p) => s("rect", { class: "pile-outline", x: p * colW + 0.3, y: base - stones * unit, width: 1, height: stones * unit }));
        const layer = s("g");
        const labels = piles.map((_, p) => s("text", { class: "pile-text", x: p * colW + 0.8, y: base + 0.45 }));
        const names = piles.map((_, p) => s("text", { class: "pile-text", x: p * colW + 0.8, y: base + 0.85, text: `pile ${p + 1}` }));
        const banner = s("text", { class: "banner", x: (piles.length * colW) / 2, y: base + 1.3 });
        svg.setAttribute("viewBox", `0 0 ${Math.max(piles.length * colW, 3)} ${base + 1.5}`);
        svg.replaceChildren(...outlines, layer, ...labels, ...names, banner);
        return {
          banner,
          show(ply) {
            const stones = piles.map((p) => p[0]);
            const limits = piles.map((p) => p[1]);
            const parts = [];
            let lastMover = null;
            for (let i = 0; i < ply; i++) {
              const effect = game.effects[i];
              if (effect === null) continue;
              const [pile, count] = effect;
              const taken = Math.min(count, stones[pile]);
              // A take removes stones from the top of the pile: draw it where those stones were.
              parts.push(s("rect", { class: `take${i === ply - 1 ? " last" : ""}`, "data-move": i + 1, x: pile * colW + 0.3, width: 1,
                y: base - stones[pile] * unit, height: taken * unit, fill: game.colors[game.seats[i]], "fill-opacity": i < game.forced ? 0.3 : 0.55 }));
              stones[pile] -= taken;
              limits[pile] = Math.min(2 * taken, stones[pile]);
              lastMover = game.seats[i];
            }
            const rest = piles.map((_, p) => s("rect", { class: "stones", x: p * colW + 0.3, y: base - stones[p] * unit, width: 1, height: stones[p] * unit }));
            layer.replaceChildren(...rest, ...parts);
            labels.forEach((label, p) => { label.textContent = `${stones[p]}/${limits[p]}`; });
            const scores = new Array(game.names.length).fill(0);
            if (ply > 0 && lastMover !== null && stones.every((n) => n === 0)) scores[lastMover] = 1;
            return scores;
          },
        };
      },
    },
    grid: {
      setup(game, svg) {
        const geo = game.board.geometry;
        const n = geo.size, box = geo.box;
        svg.setAttribute("viewBox", `-0.7 -0.7 ${n + 1} ${n + 1.3}`);
        const squares = [], digits = [];
        for (let cell = 0; cell < n * n; cell++) {
          const x = cell % n, y = Math.floor(cell / n);
          squares.push(s("rect", { class: "square", "data-cell": cell, x, y, width: 1, height: 1 }));
          digits.push(s("text", { class: "digit", "data-cell": cell, x: x + 0.5, y: y + 0.55 }));
        }
        const rules = [];
        for (let k = 0; k <= n; k++) {
          const cls = k % box === 0 ? "grid-line box" : "grid-line";
          rules.push(s("line", { class: cls, x1: k, y1: 0, x2: k, y2: n }), s("line", { class: cls, x1: 0, y1: k, x2: n, y2: k }));
        }
        const labels = [];
        for (let k = 0; k < n; k++) {
          labels.push(s("text", { class: "label grid-label", x: -0.35, y: k + 0.5, text: geo.row_names[k] }),
            s("text", { class: "label grid-label", x: k + 0.5, y: -0.35, text: geo.col_names[k] }));
        }
        const banner = s("text", { class: "banner", x: n / 2, y: n + 0.45 });
        const claim = s("text", { class: "claim", visibility: "hidden", text: "!" });
        svg.replaceChildren(...squares, ...rules, ...labels, ...digits, claim, banner);
        return {
          banner,
          show(ply) {
            const placedAt = new Array(n * n).fill(-1);
            const digitAt = new Array(n * n).fill(0);
            for (let i = 0; i < ply; i++) {
              const effect = game.effects[i];
              if (effect === null || effect[0] < 0) continue;
              placedAt[effect[0]] = i;
              digitAt[effect[0]] = effect[1];
            }
            const last = ply > 0 ? game.effects[ply - 1] : null;
            const lastCell = last ? last[0] : -1;
            digits.forEach((text, cell) => {
              const i = placedAt[cell];
              text.textContent = i < 0 ? "" : String(digitAt[cell]);
              text.setAttribute("class", i < 0 ? "digit" : `digit placed${i < game.forced ? " forced" : ""}`);
              text.style.fill = i < 0 ? "" : game.colors[game.seats[i]];
            });
            squares.forEach((rect, cell) => rect.setAttribute("class", cell === lastCell ? "square last" : "square"));
            // A claim: a `!` beside the move's cell, or over the middle of the grid for a bare `!`.
            claim.setAttribute("visibility", last && last[2] ? "visible" : "hidden");
            if (last && last[2]) {
              claim.setAttribute("x", lastCell < 0 ? n / 2 : (lastCell % n) + 0.88);
              claim.setAttribute("y", lastCell < 0 ? n / 2 : Math.floor(lastCell / n) + 0.3);
            }
            return null;
          },
        };
      },
    },
    text: {
      setup(game, svg, area) {
        const pre = h("pre", { id: "board-text" });
        area.replaceChildren(pre);
        // A position drawn as text (OpenSpiel's own pictures) is set as large as the area
        // allows, one size for the whole game (its largest frame), not at the page's text size.
        const frames = Array.isArray(game.frames) ? game.frames : []; // a string: why there are none
        const rows = Math.max(1, ...frames.map((f) => f.split("\n").length));
        const cols = Math.max(1, ...frames.flatMap((f) => f.split("\n").map((line) => line.length)));
        const fit = () => {
          const width = area.clientWidth, height = area.clientHeight || width;
          if (!width) return;
          const size = Math.floor(Math.min(width / (cols * 0.62), height / (rows * 1.3), 48));
          pre.style.fontSize = `${Math.max(12, size)}px`;
        };
        return {
          banner: null,
          show(ply) {
            if (typeof game.frames === "string") pre.textContent = game.frames; // the rules failed drawing them
            else if (!game.frames) pre.textContent = game.board.note || "No picture of this game's positions.";
            else if (ply < game.frames.length) pre.textContent = game.frames[ply];
            else pre.textContent = `${game.frames[game.frames.length - 1]}\n\n(the rules library rejected move ${game.frames.length}; later positions are not shown)`;
            fit();
            return null;
          },
        };
      },
    },
  };

  // ---- the viewer ---------------------------------------------------------------------
  const viewer = {};  // filled by buildViewer
  let current = null;  // {game, view, ply}

  function buildViewer(container, closable) {
    viewer.title = h("h2");
    viewer.meta = h("span", { class: "note" });
    viewer.seats = h("div", { class: "seats", id: "viewer-seats" });
    viewer.termination = h("div", { class: "termination", id: "viewer-termination" });
    viewer.area = h("div", { class: "board-area" });
    viewer.first = h("button", { type: "button", id: "btn-first", title: "first (Home)", text: "|◀" });
    viewer.prev = h("button", { type: "button", id: "btn-prev", title: "previous (←)", text: "◀" });
    viewer.next = h("button", { type: "button", id: "btn-next", title: "next (→)", text: "▶" });
    viewer.last = h("button", { type: "button", id: "btn-last", title: "last (End)", text: "▶|" });
    viewer.slider = h("input", { type: "range", id: "ply-slider", min: 0, max: 0, value: 0, "aria-label": "move" });
    viewer.plyLabel = h("span", { class: "ply-label", id: "ply-label" });
    viewer.info = h("div", { class: "move-info", id: "move-info" });
    viewer.list = h("ol", { class: "move-list", id: "move-list" });
    viewer.first.addEventListener("click", () => goTo(0));
    viewer.prev.addEventListener("click", () => goTo(current.ply - 1));
    viewer.next.addEventListener("click", () => goTo(current.ply + 1));
    viewer.last.addEventListener("click", () => goTo(current.game.moves.length));
    viewer.slider.addEventListener("input", () => goTo(Number(viewer.slider.value)));
    const close = closable ? h("button", { type: "button", id: "btn-close", title: "close (Esc)", text: "✕ close", onclick: closeViewer }) : null;
    const panel = h("div", { class: "viewer", id: "viewer" },
      h("div", { class: "viewer-head" }, viewer.title, viewer.meta, h("span", { class: "spacer" }), close),
      viewer.seats,
      viewer.termination,
      h("div", { class: "viewer-body" },
        h("div", {}, viewer.area,
          h("div", { class: "controls" }, viewer.first, viewer.prev, viewer.slider, viewer.next, viewer.last, viewer.plyLabel),
          viewer.info),
        h("div", { class: "side" }, h("h3", { text: "Moves" }), viewer.list)));
    container.append(panel);
  }

  function showGame(entry) {
    const game = decodeGame(entry);
    viewer.title.textContent = data.page === "tournament" ? `Game ${game.id}` : `${game.board.game} ${paramText(game.board.params)}`;
    viewer.meta.textContent = [game.round !== null && game.round !== undefined ? `round ${game.round}` : "",
      game.startedAt ? `started ${game.startedAt}` : "", `${pyFixed(game.durationS, 2)} s`].filter(Boolean).join(" · ");
    if (data.live && data.live.logs) {  // served with --serve-logs: each seat's stderr log
      viewer.meta.append(" · logs:", ...game.names.map((name, seat) =>
        [" ", h("a", { class: "log-link", href: `logs/${encodeURIComponent(game.id)}/${seat}`, target: "_blank", rel: "noopener", text: name })]).flat());
    } else if (data.live && data.live.entrant && game.names.includes(data.live.entrant)) {  // an entrant's own link
      const query = `?entrant=${encodeURIComponent(data.live.entrant)}&key=${encodeURIComponent(data.live.key)}`;
      viewer.meta.append(" · your log:", ...game.names.map((name, seat) => (name === data.live.entrant
        ? [" ", h("a", { class: "log-link", href: `logs/${encodeURIComponent(game.id)}/${seat}${query}`, target: "_blank", rel: "noopener", text: `seat ${seat}` })]
        : [])).flat());
    }
    viewer.seatScores = game.names.map(() => h("span", { class: "seat-score" }));
    viewer.seatNodes = game.names.map((name, seat) =>
      h("span", { class: "seat", "data-seat": seat }, swatch(game.colors[seat]),
        h("span", { class: "seat-name", text: name }), viewer.seatScores[seat]));
    viewer.seats.replaceChildren(...viewer.seatNodes);
    const fault = game.termination !== "normal" && game.termination !== "void";
    viewer.termination.className = fault ? "termination fault" : game.termination === "void" ? "termination void" : "termination";
    viewer.termination.textContent = [fault ? endingText(game).replace(/^./, (c) => c.toUpperCase()) : game.outcome, resultText(game.names, game.scores, game.winner, game.offender, game.termination), game.detail]
      .filter(Boolean).join(" · ");
    const svg = s("svg", { id: "board", "data-kind": game.board.kind, role: "img", "aria-label": "board" });
    viewer.area.replaceChildren(svg);
    const view = (BOARD_KINDS[game.board.kind] || BOARD_KINDS.text).setup(game, svg, viewer.area);
    viewer.slider.max = String(game.moves.length);
    viewer.list.replaceChildren(...game.texts.map((text, i) => {
      const item = h("li", { "data-ply": i + 1, onclick: () => goTo(i + 1) },
        h("span", { class: "time", text: `${i + 1}.` }),
        h("span", {}, swatch(game.colors[game.seats[i]]), text,
          game.effects[i] === null && game.board.kind !== "text" ? h("span", { class: "undrawable", text: " (not drawn)" }) : null,
          i < game.forced ? h("span", { class: "forced-tag", text: "opening" }) : null),
        h("span", { class: "time", text: `${game.timesMs[i]} ms` }));
      if (i < game.forced) item.classList.add("forced");
      return item;
    }), h("li", { class: "end", text: `end: ${endingText(game)}` }));
    current = { game, view, ply: 0 };
    goTo(game.moves.length);  // opens on the final position: how the game ended; Home goes to the start
  }

  function goTo(ply) {
    if (!current) return;
    const { game, view } = current;
    ply = Math.max(0, Math.min(game.moves.length, ply));
    current.ply = ply;
    const scores = view.show(ply);
    const atEnd = ply === game.moves.length;
    // The running score from the replay; at the end, the recorded scores (a fault may change them).
    const shown = atEnd ? game.scores : scores;
    viewer.seatScores.forEach((node, seat) => { node.textContent = shown ? String(shown[seat]) : "–"; });
    const mover = ply < game.moves.length ? game.seats[ply] : null;
    viewer.seatNodes.forEach((node, seat) => node.classList.toggle("to-move", seat === mover));
    if (view.banner) view.banner.textContent = atEnd && game.termination !== "normal" ? endingText(game).toUpperCase() : "";
    viewer.slider.value = String(ply);
    viewer.plyLabel.textContent = `move ${ply} of ${game.moves.length}`;
    viewer.first.disabled = viewer.prev.disabled = ply === 0;
    viewer.next.disabled = viewer.last.disabled = atEnd;
    viewer.info.replaceChildren();
    if (ply === 0) addChildren(viewer.info, ["Start position", game.forced ? ` · the first ${game.forced} moves are a forced opening` : ""]);
    else {
      const i = ply - 1;
      const by = game.seats[i] === CHANCE ? " drawn by the referee (chance)" : ` by ${game.names[game.seats[i]]} (seat ${game.seats[i]}) · ${game.timesMs[i]} ms`;
      addChildren(viewer.info, [`Move ${ply}: `, h("strong", { text: game.texts[i] }), by,
        i < game.forced ? h("span", { class: "forced-tag", text: "forced opening move" }) : null,
        game.effects[i] === null && game.board.kind !== "text" ? h("span", { class: "undrawable", text: " · not a move of this game, not drawn" }) : null,
        atEnd ? ` · then ${endingText(game)}` : ""]);
    }
    for (const item of viewer.list.querySelectorAll("li.current")) item.classList.remove("current");
    const item = viewer.list.children[ply - 1];
    if (item) { item.classList.add("current"); item.scrollIntoView({ block: "nearest" }); }
  }

  // ---- opening and closing, keys, and the #game=ID address ----------------------------------
  let overlay = null;
  function openGame(id) {
    // Open at once (a hashchange event would come later); the address still names the game.
    const hash = `#game=${encodeURIComponent(id)}`;
    if (location.hash !== hash) history.pushState(null, "", hash);
    route();
  }
  function closeViewer() {
    history.pushState(null, "", location.pathname + location.search);
    route();
  }
  // Which game the address names is looked up (in the games folder, a chunk to load), then shown;
  // an address naming no game says so in the games list and leaves the viewer closed.
  let routed = 0;
  async function route() {
    const token = ++routed;
    const match = /^#game=(.*)$/.exec(location.hash);
    if (!match) { overlay.hidden = true; current = null; return; }
    const id = decodeURIComponent(match[1]);
    if (current && current.game.id === id) { overlay.hidden = false; return; }
    let entry, failure = null;
    try {
      entry = await gameSource().game(id);
    } catch (error) {
      failure = error.message;
    }
    if (token !== routed) return;
    const problem = document.getElementById("games-problem");
    if (entry === undefined) {
      overlay.hidden = true;
      current = null;
      if (problem) { problem.hidden = false; problem.textContent = failure || `No game has the id ${id}.`; }
      return;
    }
    if (problem) problem.hidden = true;
    showGame(entry);
    overlay.hidden = false;
    viewer.next.focus();
  }
  document.addEventListener("keydown", (event) => {
    if (!current || (overlay && overlay.hidden)) return;
    const target = event.target;
    if (target instanceof HTMLSelectElement || target === viewer.slider) return;
    const moves = { ArrowLeft: current.ply - 1, ArrowRight: current.ply + 1, Home: 0, End: current.game.moves.length };
    if (event.key in moves) { event.preventDefault(); goTo(moves[event.key]); }
    else if (event.key === "Escape" && overlay) closeViewer();
  });

  // ---- live: the page served by `arbiter run --serve` and `arbiter serve` (docs/live.md) ---------
  // The server pushes server-sent events: `snapshot` (the whole data, first on every connection)
  // and `update` (new records with the recomputed tables, and the running games). The browser's
  // EventSource reconnects by itself after a lost connection or a restarted server.
  const live = { source: null, status: "connecting", received: 0, nodes: null };

  function formatClock(ms) {
    if (!isNum(ms)) return "–";
    const tenths = Math.max(0, Math.floor(ms / 100));
    const minutes = Math.floor(tenths / 600), seconds = (tenths % 600) / 10;
    return minutes ? `${minutes}:${seconds.toFixed(1).padStart(4, "0")}` : `${seconds.toFixed(1)} s`;
  }
  const formatEta = (s) => (isNum(s) ? `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, "0")}` : "–");

  function renderProgress() {
    const p = data.live.progress;
    const share = p.planned ? Math.min(1, p.done / p.planned) : 0;
    // A run that ended short of its plan was stopped (an SPRT's plan is only its maximum).
    const ending = p.done < p.planned && !p.sprt ? "the run was stopped (the same command resumes it)" : "the run has finished";
    const state = p.ended ? (live.status === "live" ? ending : `${ending}; its server has stopped`)
      : live.status !== "live" ? live.status
        : p.source === "run" ? "live" : "watching the results folder";
    const parts = [`${p.done} of ${p.sprt ? "at most " : ""}${p.planned} games recorded`,
      p.running ? `${p.running} playing` : null, !p.ended && p.done < p.planned ? `ETA ${formatEta(p.eta_s)}` : null];
    return card("live-progress", "Progress",
      h("div", { class: "progress-bar" }, h("div", { class: "progress-done", style: `width:${(100 * share).toFixed(1)}%` })),
      h("p", { id: "progress-text", text: parts.filter(Boolean).join(" · ") }),
      h("p", { class: `note live-status status-${live.status === "live" ? "ok" : "off"}`, id: "live-status", text: state }));
  }

  function renderSprt() {
    const t = data.live.sprt;
    if (!t) return null;
    const lo = t.lower, hi = t.upper;
    const at = Math.min(hi, Math.max(lo, t.llr));
    const x = (v) => (100 * (v - lo) / (hi - lo)).toFixed(2);
    const verdict = t.verdict ? `verdict: ${t.verdict}` : "undecided";
    return card("live-sprt", "SPRT",
      h("p", { id: "sprt-llr", text: `${t.candidate} against ${t.baseline}: LLR ${pyFixedSigned(t.llr, 2)} between ${pyFixedSigned(lo, 2)} (H0) and ${pyFixedSigned(hi, 2)} (H1) · ${verdict}` }),
      h("div", { class: "llr-bar" }, h("div", { class: "llr-zero", style: `left:${x(0)}%` }),
        h("div", { class: "llr-mark", style: `left:${x(at)}%` })),
      h("p", { class: "note", text: t.status }));
  }

  function renderRunning() {
    const running = data.live.running || [];
    const cards = running.map((r) => {
      const game = decodeGame(r.entry);
      const svg = s("svg", { class: "mini-board", "data-kind": game.board.kind, role: "img", "aria-label": `board of game ${game.id}` });
      const area = h("div", { class: "board-area mini" }, svg);
      const view = (BOARD_KINDS[game.board.kind] || BOARD_KINDS.text).setup(game, svg, area);
      const scores = view.show(game.moves.length) || r.entry[F.scores];
      const clocks = game.names.map((name, seat) => {
        const clock = h("span", { class: "clock", "data-seat": seat });
        clock.dataset.left = String(r.limits_ms[seat] - r.used_ms[seat]);
        return h("div", { class: seat === r.to_move ? "seat to-move" : "seat", "data-seat": seat },
          swatch(game.colors[seat]), h("span", { class: "seat-name", text: name }),
          h("span", { class: "seat-score", text: String(scores[seat]) }), clock);
      });
      const last = game.moves.length ? `move ${game.moves.length}: ${game.texts[game.moves.length - 1]}` : "start position";
      return h("div", { class: "now-game", "data-game": game.id, "data-moves": game.moves.length },
        h("div", { class: "now-head" }, h("strong", { text: `Game ${game.id}` }), h("span", { class: "note", text: r.ended ? "ended, recording…" : last })),
        h("div", { class: "now-seats" }, clocks), area);
    });
    live.tickFrom = performance.now();
    return card("now-playing", "Now playing", running.length ? h("div", { class: "now-grid" }, cards)
      : h("p", { class: "note", text: data.live.progress.ended ? "No game is running: the run has finished." : "No game is running at the moment." }));
  }

  // The clock of the seat to move runs down between updates.
  function tickClocks() {
    const elapsed = performance.now() - (live.tickFrom || 0);
    for (const [i, r] of (data.live.running || []).entries()) {
      const node = document.querySelectorAll("#now-playing .now-game")[i];
      if (!node) continue;
      node.querySelectorAll(".clock").forEach((clock) => {
        const seat = Number(clock.dataset.seat);
        const moving = seat === r.to_move && !r.ended ? r.since_ms + elapsed : 0;
        clock.textContent = formatClock(Number(clock.dataset.left) - moving);
      });
    }
  }

  function liveCards() {
    return [renderProgress(), renderSprt(), renderRunning()].filter(Boolean);
  }

  function redrawLive() {
    for (const node of liveCards()) {
      const old = document.getElementById(node.id);
      if (old) old.replaceWith(node);
      else main.prepend(node);
    }
    tickClocks();
  }

  function accept(message, whole) {
    if (whole) {
      const own = data.live && data.live.entrant ? { entrant: data.live.entrant, key: data.live.key } : {};
      data = message;
      data.live = { ...data.live, ...own };  // an entrant's page keeps its link's key
    }
    else {
      for (const key of ["page", "tournament", "seats", "standings", "crosstable", "crosstable_counts", "head_to_head", "boards", "players",
        "rounds", "ranking", "final_top", "final_round", "chunks"]) {
        if (key in message) data[key] = message[key];
      }
      data.live = { ...data.live, ...message.live };
    }
    // New games may be in any chunk a page has kept (the last of each kind grows): read them anew.
    if (whole || "chunks" in message) chunksChanged();
    games = data.games || [];
    gameIndexById = null;
    live.received += 1;
    if (whole || "standings" in message) renderTournament();
    else redrawLive();
    document.body.dataset.updates = String(live.received);
  }

  function setStatus(status) {
    if (live.status === status) return;
    live.status = status;
    const node = document.getElementById("live-progress");
    if (node) node.replaceWith(renderProgress());
  }

  function reconnect() {
    if (live.source) live.source.close();
    connect();
  }

  function connect() {
    const source = live.source = new EventSource(data.live.events);
    source.addEventListener("snapshot", (event) => accept(JSON.parse(event.data), true));
    source.addEventListener("update", (event) => accept(JSON.parse(event.data), false));
    source.addEventListener("open", () => setStatus("live"));
    source.addEventListener("error", () => {
      setStatus("connection lost: reconnecting…");
      // EventSource retries by itself after a network error; one that gave up is replaced.
      if (source.readyState === EventSource.CLOSED && live.source === source) setTimeout(reconnect, 2000);
    });
  }

  // ---- the page -----------------------------------------------------------------------
  const main = document.getElementById("page-main");
  function renderTournament() {
    renderHeader();
    main.replaceChildren(...(data.live ? liveCards() : []), renderOverview(), ...[renderRanking()].filter(Boolean),
      renderStandings(), ...[renderRounds()].filter(Boolean), renderChart(), renderCrosstable(), renderGamesList());
    if (data.live) tickClocks();
    if (overlay && !overlay.hidden) route();
  }
  if (data.page === "tournament") {
    overlay = h("div", { class: "viewer-overlay", id: "viewer-overlay", hidden: true,
      onclick: (event) => { if (event.target === overlay) closeViewer(); } });
    renderTournament();
    buildViewer(overlay, true);
    document.body.append(overlay);
    window.addEventListener("hashchange", route);
    window.addEventListener("popstate", route);  // Back and Forward across opened games
    // Ready (for a reader, and for the tests' and the benchmark's wait) once the first page of
    // the games list and the game the address names are drawn.
    Promise.all([listReady, route()]).then(() => { document.body.dataset.ready = "true"; });
    if (data.live) {
      connect();
      setInterval(tickClocks, 200);
    }
  } else {
    renderHeader();
    buildViewer(main, false);
    showGame(games[0]);
    document.body.dataset.ready = "true";
  }
})();
