/* A starter bot in C for arbiter's dots games (dots-and-triangles, dots-and-boxes) and
 * limit-nim: it keeps the position and plays a random legal move. The protocol is in
 * docs/protocol.md; docs/writing-a-bot.md walks through this file.
 *
 * Build:  gcc -O2 -Wall -o examples/bots/starter_c examples/bots/starter_c.c
 * Check:  arbiter check dots-and-triangles examples/bots/starter_c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_EDGES 4096 /* 40-row triangles have 2340 edges; 30 x 30 boxes 1860 */
#define MAX_CELLS 2048
#define MAX_PILES 64

/* --- the position ----------------------------------------------------------------- */
static char game[64];      /* the game's name, from the Game line */
static int players = 2;    /* seats */
static int seat = -1;      /* ours, from the Game line */
static int to_move = 0;    /* whose turn it is */

/* Dots games: an edge is two numbers and a direction ('-' for triangles, 'h' or 'v' for boxes). */
static int edge_a[MAX_EDGES], edge_b[MAX_EDGES], n_edges;
static char edge_dir[MAX_EDGES];
static int drawn[MAX_EDGES], n_drawn;
static int cell_edges[MAX_CELLS][4], cell_sides[MAX_CELLS], n_cells;

/* limit-nim: stones and limit per pile. */
static int stones[MAX_PILES], limit_[MAX_PILES], n_piles;

static int find_edge(int a, int b, char dir) {
    for (int e = 0; e < n_edges; e++)
        if (edge_a[e] == a && edge_b[e] == b && edge_dir[e] == dir) return e;
    return -1;
}

static int add_edge(int a, int b, char dir) {
    edge_a[n_edges] = a; edge_b[n_edges] = b; edge_dir[n_edges] = dir;
    return n_edges++;
}

static void add_cell(int sides, int e0, int e1, int e2, int e3) {
    int *c = cell_edges[n_cells];
    c[0] = e0; c[1] = e1; c[2] = e2; c[3] = e3;
    cell_sides[n_cells++] = sides;
}

/* Triangles: dots numbered from 1 row by row from the apex; row r holds r dots. */
static void setup_triangles(int rows) {
    for (int r = 1; r <= rows; r++)
        for (int i = 0; i < r; i++) {
            int d = r * (r - 1) / 2 + 1 + i;
            if (i < r - 1) add_edge(d, d + 1, '-');
            if (r < rows) { add_edge(d, d + r, '-'); add_edge(d, d + r + 1, '-'); }
        }
    for (int r = 1; r < rows; r++)
        for (int i = 0; i < r; i++) {
            int d = r * (r - 1) / 2 + 1 + i;
            /* the triangle pointing up below d, and the one pointing down right of it */
            add_cell(3, find_edge(d, d + r, '-'), find_edge(d, d + r + 1, '-'), find_edge(d + r, d + r + 1, '-'), -1);
            if (i < r - 1)
                add_cell(3, find_edge(d, d + 1, '-'), find_edge(d + 1, d + r + 1, '-'), find_edge(d, d + r + 1, '-'), -1);
        }
}

/* Boxes: a line is `r c h` (going right from dot (r, c)) or `r c v` (going down). */
static void setup_boxes(int rows, int cols) {
    for (int r = 1; r <= rows + 1; r++) for (int c = 1; c <= cols; c++) add_edge(r, c, 'h');
    for (int r = 1; r <= rows; r++) for (int c = 1; c <= cols + 1; c++) add_edge(r, c, 'v');
    for (int r = 1; r <= rows; r++)
        for (int c = 1; c <= cols; c++)
            add_cell(4, find_edge(r, c, 'h'), find_edge(r + 1, c, 'h'), find_edge(r, c, 'v'), find_edge(r, c + 1, 'v'));
}

/* Cells that drawing edge e completes (it must be undrawn). */
static int completes(int e) {
    int done = 0;
    for (int k = 0; k < n_cells; k++) {
        int missing = 0, has = 0;
        for (int s = 0; s < cell_sides[k]; s++) {
            if (cell_edges[k][s] == e) has = 1;
            else if (!drawn[cell_edges[k][s]]) missing++;
        }
        if (has && missing == 0) done++;
    }
    return done;
}

static int is_nim(void) { return strcmp(game, "limit-nim") == 0; }

static int game_over(void) {
    if (is_nim()) {
        for (int p = 0; p < n_piles; p++) if (stones[p]) return 0;
        return 1;
    }
    return n_drawn == n_edges;
}

/* Apply a move given as text (ours or relayed); exits on a move it cannot read. */
static void apply(const char *text) {
    int a, b; char dir = '-';
    if (is_nim()) {
        if (sscanf(text, "%d %d", &a, &b) != 2 || a < 1 || a > n_piles) goto bad;
        stones[a - 1] -= b;
        limit_[a - 1] = stones[a - 1] < 2 * b ? stones[a - 1] : 2 * b;
        to_move = (to_move + 1) % players;
        return;
    }
    if (strcmp(game, "dots-and-boxes") == 0) {
        if (sscanf(text, "%d %d %c", &a, &b, &dir) != 3) goto bad;
    } else {
        if (sscanf(text, "%d %d", &a, &b) != 2) goto bad;
        if (a > b) { int t = a; a = b; b = t; }
    }
    int e = find_edge(a, b, dir);
    if (e < 0 || drawn[e]) goto bad;
    int scored = completes(e); /* before drawing it */
    drawn[e] = 1; n_drawn++;
    if (!scored) to_move = (to_move + 1) % players; /* completing a cell: the same seat moves again */
    return;
bad:
    fprintf(stderr, "starter: cannot apply move '%s'\n", text);
    exit(1);
}

/* --- choosing a move: any legal one, at random ---------------------------------------- */
static void choose(char *out, size_t size) {
    if (is_nim()) {
        int options = 0;
        for (int p = 0; p < n_piles; p++) options += limit_[p];
        int k = rand() % options;
        for (int p = 0; p < n_piles; p++) {
            if (k < limit_[p]) { snprintf(out, size, "%d %d", p + 1, k + 1); return; }
            k -= limit_[p];
        }
    }
    int k = rand() % (n_edges - n_drawn);
    for (int e = 0; e < n_edges; e++) {
        if (drawn[e]) continue;
        if (k-- == 0) {
            if (edge_dir[e] == '-') snprintf(out, size, "%d %d", edge_a[e], edge_b[e]);
            else snprintf(out, size, "%d %d %c", edge_a[e], edge_b[e], edge_dir[e]);
            return;
        }
    }
}

/* `Game NAME key=value ...`: the game, its parameters, our seat. */
static void start_game(char *line) {
    int rows = -1, cols = 3;
    char *piles = "10/9,10/9,10/9";
    strtok(line, " ");
    snprintf(game, sizeof game, "%s", strtok(NULL, " "));
    for (char *word = strtok(NULL, " "); word; word = strtok(NULL, " ")) {
        char *value = strchr(word, '=');
        if (!value) continue;
        *value++ = '\0';
        if (!strcmp(word, "rows")) rows = atoi(value);
        else if (!strcmp(word, "cols")) cols = atoi(value);
        else if (!strcmp(word, "players")) players = atoi(value);
        else if (!strcmp(word, "seat")) seat = atoi(value);
        else if (!strcmp(word, "piles")) piles = value;
    }
    n_edges = n_drawn = n_cells = n_piles = to_move = 0;
    memset(drawn, 0, sizeof drawn);
    if (!strcmp(game, "dots-and-triangles")) setup_triangles(rows < 0 ? 4 : rows);
    else if (!strcmp(game, "dots-and-boxes")) setup_boxes(rows < 0 ? 3 : rows, cols);
    else if (is_nim()) {
        for (char *pile = strtok(piles, ","); pile; pile = strtok(NULL, ",")) {
            sscanf(pile, "%d/%d", &stones[n_piles], &limit_[n_piles]);
            n_piles++;
        }
    } else {
        fprintf(stderr, "starter: cannot play %s\n", game);
        exit(2);
    }
}

int main(void) {
    char line[8192], move[64];
    int forced = 0; /* opening moves still to come: apply them, never answer them */
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!strcmp(line, "Quit")) break;
        if (!strncmp(line, "Game ", 5)) { start_game(line); continue; }
        if (!strncmp(line, "Opening ", 8)) { forced = atoi(line + 8); continue; }
        if (forced > 0) { apply(line); forced--; continue; }
        if (strcmp(line, "Start") != 0) apply(line); /* a move of another seat */
        /* Our turn lasts while the rules say so: after completing a cell we move again. */
        while (!game_over() && to_move == seat) {
            choose(move, sizeof move);
            printf("%s\n", move);
            fflush(stdout); /* without it the move waits in a buffer and the clock runs out */
            apply(move);
        }
    }
    return 0;
}
