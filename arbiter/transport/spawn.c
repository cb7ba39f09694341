/* The launch helper (arbiter/transport/spawn.py): starts an unboxed bot with what its launch
 * must set between fork and exec, so that the arbiter itself can start this with vfork instead
 * of copying its whole process to run Python there (docs/performance.md, Throughput).
 *
 *     spawn PARENT_PID DATA_BYTES REPORT_FD PROGRAM [ARGUMENT...]
 *
 * It asks the kernel for SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG),
 * makes itself a child subreaper (kept across exec: the bot's orphans stay in its tree), exits
 * 125 if its parent is no longer PARENT_PID (the arbiter died before the signal was armed),
 * caps RLIMIT_DATA at DATA_BYTES ("-": no cap), and becomes PROGRAM, found on PATH as execvp
 * does. What failed is written to REPORT_FD as an errno in decimal, then it exits 127;
 * REPORT_FD is closed on exec, so the arbiter reads end of file when the program started. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 5)
        return 126;
    int report = atoi(argv[3]);
    int failed = 0;
    if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0)
        return 126;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        failed = errno;
    else if (getppid() != (pid_t)strtol(argv[1], NULL, 10))
        _exit(125);
    if (!failed && strcmp(argv[2], "-") != 0) {
        struct rlimit limit;
        limit.rlim_cur = limit.rlim_max = (rlim_t)strtoull(argv[2], NULL, 10);
        if (setrlimit(RLIMIT_DATA, &limit) != 0)
            failed = errno;
    }
    if (!failed) {
        execvp(argv[4], argv + 4);
        failed = errno;
    }
    dprintf(report, "%d", failed);
    _exit(127);
}
