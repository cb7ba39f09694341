/* The launch helper (arbiter/transport/spawn.py): what a bot's launch must do between fork and
 * exec, done by a small program instead of Python in a copy of the arbiter, or instead of a
 * shell and util-linux's setpriv in a box (docs/performance.md, Throughput; docs/security.md).
 *
 *     spawn bot PARENT_PID DATA_BYTES REPORT_FD PROGRAM [ARGUMENT...]
 *
 * An unboxed bot, started by the arbiter with vfork: asks the kernel for SIGKILL when the thread
 * that started it ends (PR_SET_PDEATHSIG), makes itself a child subreaper (kept across exec: the
 * bot's orphans stay in its tree), exits 125 if its parent is no longer PARENT_PID (the arbiter
 * died before the signal was armed), caps RLIMIT_DATA at DATA_BYTES ("-": no cap) and becomes
 * PROGRAM, found on PATH as Python's subprocess finds it (`run`: no shell for a file that is
 * not a program, unlike execvp). What failed is written to REPORT_FD as an errno in decimal, then
 * it exits 127; REPORT_FD is closed on exec, so the arbiter reads end of file when the program
 * has started.
 *
 *     spawn box UID NPROC PROGRAM [ARGUMENT...]
 *
 * The first program in a box, run by bubblewrap's init under the box's system-call filter: puts
 * the bot's pipes, descriptors 3 and 4, on 0 and 1 (so that bubblewrap's own processes, which
 * close 3 and 4, do not hold them), caps RLIMIT_NPROC at NPROC ("-": none), and drops every
 * right, as `setpriv --no-new-privs --inh-caps=-all [--reuid=UID --regid=UID --clear-groups
 * --bounding-set=-all]` does: with UID ("-": keep the user, as in a user namespace), the
 * bounding set emptied while CAP_SETPCAP allows it, no supplementary groups, group and user
 * UID (which empties the permitted and effective sets); then the inheritable and ambient sets
 * emptied and no_new_privs. It checks that no capability is left, then becomes PROGRAM. On any
 * failure it says what on stderr (the bot's log) and exits 126, so the bot never runs with
 * more than it should. Its descriptor 7, when open (the keeper's report), is closed when PROGRAM runs.
 *
 *     spawn keeper PARENT_PID CORE_BYTES FILE_BYTES OPEN_FILES AS_BYTES SECCOMP REPORT_FD CGROUP2
 *                  [JOIN_FILE...] -- BWRAP [ARGUMENT...]
 *
 * A box's keeper (sandbox.py, Box), as IOI's isolate keeps its box: started by the arbiter with
 * vfork and the bot's environment, it asks for SIGKILL when the arbiter's thread that started it
 * ends, exits 125 if its parent is no longer PARENT_PID, and makes itself a child subreaper. It
 * starts bubblewrap already inside the box's control groups: with clone3(CLONE_INTO_CGROUP) into
 * the cgroup v2 folder CGROUP2 ("-": none; a kernel without clone3 has the child write itself
 * into its cgroup.procs), and the child writes 0 to each v1 JOIN_FILE (`tasks`: a thread moving
 * itself) before it execs. The child also caps core files, file size, open descriptors and
 * address space (AS_BYTES, "-": none), opens the system-call filter SECCOMP ("-": none) on
 * descriptor 5, puts the bot's pipes (the keeper's 0 and 1) on 3 and 4 with /dev/null on 0 and 1,
 * and REPORT_FD ("-": none) on 7, which `spawn box` closes when the bot's program runs. The
 * keeper itself stays outside the groups (never frozen, never counted), holds none of the bot's
 * pipes, reaps every process that comes to it (bubblewrap, and the box's init when bubblewrap
 * ends first) and, once none is left, exits with bubblewrap's status: the bot's, or 128+N when
 * the bot (or bubblewrap) was killed by signal N. What fails before bubblewrap runs is said on
 * stderr (the bot's log) with status 126. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>
#include <unistd.h>

/* Become argv[0] as Python's subprocess would: a name with a slash as it is, else each folder of
 * PATH (or /bin:/usr/bin) in turn; never a shell for a file the kernel cannot run (ENOEXEC), as
 * execvp would. Returns only on failure, with errno: the first error but "not there", else ENOENT. */
static void run(char **argv) {
    const char *file = argv[0];
    if (strchr(file, '/') != NULL) {
        execv(file, argv);
        return;
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/bin:/usr/bin";
    int first = 0;
    size_t length = strlen(file);
    char candidate[4096];
    for (const char *start = path;; start++) {
        const char *end = strchr(start, ':');
        size_t folder = end ? (size_t)(end - start) : strlen(start);
        if (folder == 0) {  /* an empty entry is the current folder */
            start = ".";
            folder = 1;
        }
        if (folder + 1 + length < sizeof candidate) {
            memcpy(candidate, start, folder);
            candidate[folder] = '/';
            memcpy(candidate + folder + 1, file, length + 1);
            execv(candidate, argv);
            if (first == 0 && errno != ENOENT && errno != ENOTDIR)
                first = errno;
        }
        if (end == NULL)
            break;
        start = end;
    }
    errno = first ? first : ENOENT;
}

static int bot(int argc, char **argv) {
    if (argc < 6)
        return 126;
    int report = atoi(argv[4]);
    int failed = 0;
    if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0)
        return 126;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        failed = errno;
    else if (getppid() != (pid_t)strtol(argv[2], NULL, 10))
        _exit(125);
    if (!failed && strcmp(argv[3], "-") != 0) {
        struct rlimit limit;
        limit.rlim_cur = limit.rlim_max = (rlim_t)strtoull(argv[3], NULL, 10);
        if (setrlimit(RLIMIT_DATA, &limit) != 0)
            failed = errno;
    }
    if (!failed) {
        run(argv + 5);
        failed = errno;
    }
    dprintf(report, "%d", failed);
    _exit(127);
}

static void refuse(const char *what) {
    fprintf(stderr, "arbiter box: %s: %s\n", what, strerror(errno));
    _exit(126);
}

/* Put the bot's pipes on 0 and 1, cap its tasks, drop every right and become argv[0] with
 * `environment` (NULL: its own), as `spawn box` and `spawn box-wait` do. */
static void become_bot(const char *uid_text, const char *nproc_text, char **argv, char **environment) {
    int change_user = strcmp(uid_text, "-") != 0;
    uid_t uid = (uid_t)strtoul(uid_text, NULL, 10);
    if (dup2(3, 0) < 0 || dup2(4, 1) < 0 || close(3) != 0 || close(4) != 0)
        refuse("the bot's pipes (descriptors 3 and 4)");
    if (strcmp(nproc_text, "-") != 0) {
        struct rlimit limit;
        limit.rlim_cur = limit.rlim_max = (rlim_t)strtoull(nproc_text, NULL, 10);
        if (setrlimit(RLIMIT_NPROC, &limit) != 0)
            refuse("RLIMIT_NPROC");
    }
    if (change_user) {
        for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
                refuse("emptying the capability bounding set");
        if (setgroups(0, NULL) != 0)
            refuse("clearing the supplementary groups");
        if (setresgid(uid, uid, uid) != 0)
            refuse("changing the group");
        if (setresuid(uid, uid, uid) != 0)
            refuse("changing the user");
    }
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0)
        refuse("reading the capabilities");
    data[0].inheritable = data[1].inheritable = 0;
    if (syscall(SYS_capset, &header, data) != 0)
        refuse("emptying the inheritable capabilities");
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        refuse("emptying the ambient capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        refuse("no_new_privs");
    if (syscall(SYS_capget, &header, data) != 0)
        refuse("reading the capabilities");
    if (data[0].inheritable | data[1].inheritable ||
        (change_user && (data[0].permitted | data[1].permitted | data[0].effective | data[1].effective))) {
        errno = EPERM;
        refuse("capabilities left after dropping them");
    }
    if (environment != NULL)
        environ = environment;  /* execvp looks for the program on the bot's own PATH */
    execvp(argv[0], argv);
    refuse(argv[0]);
}

static int box(int argc, char **argv) {
    if (argc < 5) {
        errno = EINVAL;
        refuse("usage");
    }
    if (fcntl(7, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)  /* the keeper's report: closed on exec */
        refuse("the box's descriptor 7");
    become_bot(argv[2], argv[3], argv + 4, NULL);
    return 126;
}

static void join(const char *file) {
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1)
        refuse(file);
    close(fd);
}

static void cap(int resource, const char *bytes, const char *what) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = (rlim_t)strtoull(bytes, NULL, 10);
    if (setrlimit(resource, &limit) != 0)
        refuse(what);
}

/* An inherited descriptor named on the command line ("-": none) moved to 10 or above, where
 * putting the pipes on 3 and 4 cannot overwrite it; -1 for none. */
static int keep_aside(const char *text) {
    if (strcmp(text, "-") == 0)
        return -1;
    int fd = atoi(text), moved = fcntl(fd, F_DUPFD, 10);
    if (moved < 0 || close(fd) != 0)
        refuse("a descriptor for the box");
    return moved;
}

/* `path` opened with `flags` on descriptor `target`, inherited by the program to come. */
static void open_on(const char *path, int flags, int target) {
    int fd = open(path, flags);
    if (fd < 0 || (fd != target && (dup2(fd, target) < 0 || close(fd) != 0)))
        refuse(path);
}

static int keeper(int argc, char **argv) {
    int split = 10;
    while (split < argc && strcmp(argv[split], "--") != 0)
        split++;
    if (split + 1 >= argc) {
        errno = EINVAL;
        refuse("usage");
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        refuse("the keeper's parent-death signal and subreaper flag");
    if (getppid() != (pid_t)strtol(argv[2], NULL, 10))
        _exit(125);  /* the arbiter died before the signal was armed */
    int report = keep_aside(argv[8]);
    int group = -1;
    if (strcmp(argv[9], "-") != 0 && (group = open(argv[9], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        refuse(argv[9]);
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = group >= 0 ? CLONE_INTO_CGROUP : 0;
    args.exit_signal = SIGCHLD;
    args.cgroup = (unsigned long long)(group >= 0 ? group : 0);
    long child = syscall(SYS_clone3, &args, sizeof args);
    int joined = child >= 0 || group < 0;
    if (child < 0)
        child = fork();  /* no clone3 here: the child joins by cgroup.procs */
    if (child < 0)
        refuse("starting bubblewrap");
    if (child == 0) {
        if (!joined) {
            char procs[4200];
            snprintf(procs, sizeof procs, "%s/cgroup.procs", argv[9]);
            join(procs);
        }
        for (int i = 10; i < split; i++)
            join(argv[i]);
        cap(RLIMIT_CORE, argv[3], "RLIMIT_CORE");
        cap(RLIMIT_FSIZE, argv[4], "RLIMIT_FSIZE");
        cap(RLIMIT_NOFILE, argv[5], "RLIMIT_NOFILE");
        if (strcmp(argv[6], "-") != 0)
            cap(RLIMIT_AS, argv[6], "RLIMIT_AS");
        if (dup2(0, 3) < 0 || dup2(1, 4) < 0)  /* 3 and up are free: the arbiter closes them */
            refuse("the bot's pipes (descriptors 3 and 4)");
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
            refuse("/dev/null on descriptors 0 and 1");
        if (strcmp(argv[7], "-") != 0)
            open_on(argv[7], O_RDONLY, 5);
        if (report >= 0 && (dup2(report, 7) < 0 || close(report) != 0))
            refuse("the box's descriptor 7");
        execv(argv[split + 1], argv + split + 1);
        refuse(argv[split + 1]);
    }
    /* The keeper holds nothing of the bot's: its pipes and the report are the box's alone. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
    }
    if (report >= 0)
        close(report);
    int status = 0, ended = 0;
    for (;;) {
        int got;
        pid_t pid = waitpid(-1, &got, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;  /* ECHILD: every process of the box is gone */
        if (pid == (pid_t)child) {
            status = got;
            ended = 1;
        }
    }
    if (!ended)
        _exit(126);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bot") == 0)
        return bot(argc, argv);
    if (argc > 1 && strcmp(argv[1], "box") == 0)
        return box(argc, argv);
    if (argc > 1 && strcmp(argv[1], "keeper") == 0)
        return keeper(argc, argv);
    return 126;
}
