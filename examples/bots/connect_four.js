// A starter bot in JavaScript (node) for OpenSpiel's Connect Four as the arbiter referees it
// (`openspiel:connect_four`, docs/games.md): it carries its own rules (no OpenSpiel here),
// keeps the board, wins at once when it can, blocks the other's win when it must, and
// otherwise plays a random legal column. The protocol is in docs/protocol.md.
//
// A move is the text OpenSpiel writes: the player's mark and the column, 0-based from the
// left: `x3` for the first seat, `o3` for the second. A `Chance ...` line never comes in
// this game (it has no dice); a bot for a game with dice applies each as a move of chance.
//
// Build:  nothing to build (Debian: apt-get install nodejs)
// Check:  arbiter check openspiel:connect_four "node examples/bots/connect_four.js"
"use strict";
const fs = require("fs");
const readline = require("readline");

let rows = 6, columns = 7, inRow = 4;  // from the Game line (OpenSpiel's parameters)
let seat = -1;                         // ours: 0 plays x, 1 plays o
let toMove = 0;
let board = [];                        // board[column] = the marks in it, bottom first
let over = false;
let forced = 0;                        // opening moves still to come: apply them, never answer them
const MARKS = ["x", "o"];

function startGame(line) {
  const params = {};
  for (const word of line.split(/\s+/).slice(2)) {
    const eq = word.indexOf("=");
    if (eq > 0) params[word.slice(0, eq)] = word.slice(eq + 1);
  }
  if (line.split(/\s+/)[1] !== "openspiel:connect_four") {
    process.stderr.write(`connect_four: cannot play ${line.split(/\s+/)[1]}\n`);
    process.exit(2);
  }
  rows = Number(params.rows || 6);
  columns = Number(params.columns || 7);
  inRow = Number(params.x_in_row || 4);
  seat = Number(params.seat);
  toMove = 0;
  over = false;
  board = Array.from({ length: columns }, () => []);
}

const legal = () => board.map((column, c) => c).filter((c) => board[c].length < rows);

// Whether the mark just dropped in column c makes a line of inRow.
function wins(c) {
  const r = board[c].length - 1, mark = board[c][r];
  const at = (cc, rr) => cc >= 0 && cc < columns && rr >= 0 && board[cc][rr] === mark;
  for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    let count = 1;
    for (let k = 1; at(c + k * dc, r + k * dr); k++) count++;
    for (let k = 1; at(c - k * dc, r - k * dr); k++) count++;
    if (count >= inRow) return true;
  }
  return false;
}

// Apply a move given as text (ours or relayed): its mark must be the mover's.
function apply(text) {
  const c = Number(text.slice(1));
  if (text[0] !== MARKS[toMove] || !Number.isInteger(c) || c < 0 || c >= columns || board[c].length >= rows) {
    process.stderr.write(`connect_four: cannot apply move '${text}'\n`);
    process.exit(1);
  }
  board[c].push(text[0]);
  over = wins(c) || legal().length === 0;
  toMove = 1 - toMove;
}

// Whether `mark` dropped in column c would win.
function winsWith(c, mark) {
  board[c].push(mark);
  const result = wins(c);
  board[c].pop();
  return result;
}

function choose() {
  const free = legal();
  const mine = MARKS[seat], theirs = MARKS[1 - seat];
  const c = free.find((k) => winsWith(k, mine)) ?? free.find((k) => winsWith(k, theirs))
    ?? free[Math.floor(Math.random() * free.length)];
  return mine + c;
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (raw) => {
  const line = raw.trim();
  if (line === "Quit") { input.close(); return; }
  if (line.startsWith("Game ")) { startGame(line); return; }
  if (line.startsWith("Opening ")) { forced = Number(line.split(" ")[1]); return; }
  if (forced > 0) { apply(line); forced--; return; }
  if (line !== "Start") apply(line);  // the other seat's move
  while (!over && toMove === seat) {
    const move = choose();
    fs.writeSync(1, move + "\n");  // one synchronous write: nothing waits for a flush
    apply(move);
  }
});
