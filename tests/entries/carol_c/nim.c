/* Limit Nim entrant in C: takes one stone from the first pile that has any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stones[64];
static int piles;
static int forced;  /* opening moves still to apply without answering */

static void move(void) {
    for (int i = 0; i < piles; i++) {
        if (stones[i] > 0) {
            stones[i]--;
            printf("%d 1\n", i + 1);
            fflush(stdout);
            return;
        }
    }
}

int main(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "Game ", 5) == 0) {
            char *p = strstr(line, "piles=");
            piles = 0;
            if (p != NULL) {
                p += 6;
                while (*p >= '0' && *p <= '9' && piles < 64) {
                    stones[piles++] = (int)strtol(p, &p, 10);
                    if (*p == '/') strtol(p + 1, &p, 10);
                    if (*p == ',') p++;
                }
            }
        } else if (strncmp(line, "Opening ", 8) == 0) {
            forced = atoi(line + 8);
        } else if (strncmp(line, "Start", 5) == 0) {
            move();
        } else if (strncmp(line, "Quit", 4) == 0) {
            return 0;
        } else {
            int pile, taken, left = 0;
            if (sscanf(line, "%d %d", &pile, &taken) == 2) {
                stones[pile - 1] -= taken;
                for (int i = 0; i < piles; i++) left += stones[i];
                if (forced > 0) forced--;
                else if (left > 0) move();
            }
        }
    }
    return 0;
}
