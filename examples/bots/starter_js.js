// A starter bot in JavaScript (node) for arbiter's dots games (dots-and-triangles,
// dots-and-boxes) and limit-nim: it keeps the position and plays a random legal move. The
// protocol is in docs/protocol.md; docs/writing-a-bot.md walks through the C twin of this file.
//
// Build:  nothing to build (Debian: apt-get install nodejs)
// Check:  arbiter check dots-and-triangles "node examples/bots/starter_js.js"
"use strict";
const readline = require("readline");

let game = null;   // the game's name, from the Game line
let players = 2;   // seats
let seat = -1;     // ours
let toMove = 0;    // whose turn it is
let edges = [];    // dots games: each edge's text (canonical), index = edge number
let edgeIndex = new Map();
let drawn = [];    // drawn[e]: is edge e drawn?
let cells = [];    // each cell's edge numbers
let piles = [];    // limit-nim: [stones, limit] per pile
let forced = 0;    // opening moves still to come: apply them, never answer them

function startGame(line) {
  const words = line.split(/\s+/);
  game = words[1];
  const params = {};
  for (const word of words.slice(2)) {
    const eq = word.indexOf("=");
    if (eq > 0) params[word.slice(0, eq)] = word.slice(eq + 1);
  }
  players = Number(params.players || 2);
  seat = Number(params.seat);
  toMove = 0;
  edges = []; edgeIndex = new Map(); cells = []; piles = [];
  const addEdge = (text) => { edgeIndex.set(text, edges.length); edges.push(text); };
  const edge = (text) => edgeIndex.get(text);
  if (game === "dots-and-triangles") {
    // Dots numbered from 1 row by row from the apex; row r holds r dots; a move is "a b", a < b.
    const rows = Number(params.rows || 4);
    const first = (r) => (r * (r - 1)) / 2 + 1;
    for (let r = 1; r <= rows; r++) {
      for (let i = 0; i < r; i++) {
        const d = first(r) + i;
        if (i < r - 1) addEdge(`${d} ${d + 1}`);
        if (r < rows) { addEdge(`${d} ${d + r}`); addEdge(`${d} ${d + r + 1}`); }
      }
    }
    for (let r = 1; r < rows; r++) {
      for (let i = 0; i < r; i++) {
        const d = first(r) + i;
        cells.push([edge(`${d} ${d + r}`), edge(`${d} ${d + r + 1}`), edge(`${d + r} ${d + r + 1}`)]);
        if (i < r - 1) cells.push([edge(`${d} ${d + 1}`), edge(`${d + 1} ${d + r + 1}`), edge(`${d} ${d + r + 1}`)]);
      }
    }
  } else if (game === "dots-and-boxes") {
    // A line is "r c h" (right from dot (r, c)) or "r c v" (down from it).
    const rows = Number(params.rows || 3), cols = Number(params.cols || 3);
    for (let r = 1; r <= rows + 1; r++) for (let c = 1; c <= cols; c++) addEdge(`${r} ${c} h`);
    for (let r = 1; r <= rows; r++) for (let c = 1; c <= cols + 1; c++) addEdge(`${r} ${c} v`);
    for (let r = 1; r <= rows; r++) {
      for (let c = 1; c <= cols; c++) {
        cells.push([edge(`${r} ${c} h`), edge(`${r + 1} ${c} h`), edge(`${r} ${c} v`), edge(`${r} ${c + 1} v`)]);
      }
    }
  } else if (game === "limit-nim") {
    piles = (params.piles || "10/9,10/9,10/9").split(",").map((p) => p.split("/").map(Number));
  } else {
    process.stderr.write(`starter: cannot play ${game}\n`);
    process.exit(2);
  }
  drawn = edges.map(() => false);
}

function gameOver() {
  if (game === "limit-nim") return piles.every(([stones]) => stones === 0);
  return drawn.every((d) => d);
}

// Apply a move given as text (ours or relayed).
function apply(text) {
  if (game === "limit-nim") {
    const [p, n] = text.split(" ").map(Number);
    const pile = piles[p - 1];
    pile[0] -= n;
    pile[1] = Math.min(2 * n, pile[0]);
    toMove = (toMove + 1) % players;
    return;
  }
  let key = text;
  if (game === "dots-and-triangles") {
    const [a, b] = text.split(" ").map(Number);
    key = `${Math.min(a, b)} ${Math.max(a, b)}`;
  }
  const e = edgeIndex.get(key);
  if (e === undefined || drawn[e]) {
    process.stderr.write(`starter: cannot apply move '${text}'\n`);
    process.exit(1);
  }
  drawn[e] = true;
  const completed = cells.filter((cell) => cell.includes(e) && cell.every((k) => drawn[k])).length;
  if (completed === 0) toMove = (toMove + 1) % players; // completing a cell: the same seat moves again
}

// Any legal move, at random.
function choose() {
  if (game === "limit-nim") {
    const moves = [];
    piles.forEach(([, limit], p) => { for (let n = 1; n <= limit; n++) moves.push(`${p + 1} ${n}`); });
    return moves[Math.floor(Math.random() * moves.length)];
  }
  const free = edges.filter((_, e) => !drawn[e]);
  return free[Math.floor(Math.random() * free.length)];
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (raw) => {
  const line = raw.trim();
  if (line === "Quit") { input.close(); return; }
  if (line.startsWith("Game ")) { startGame(line); return; }
  if (line.startsWith("Opening ")) { forced = Number(line.split(" ")[1]); return; }
  if (forced > 0) { apply(line); forced--; return; }
  if (line !== "Start") apply(line); // a move of another seat
  // Our turn lasts while the rules say so: after completing a cell we move again.
  while (!gameOver() && toMove === seat) {
    const move = choose();
    // One synchronous write per move: nothing is buffered, so nothing waits for a flush.
    require("fs").writeSync(1, move + "\n");
    apply(move);
  }
});
