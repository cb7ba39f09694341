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
 * more than it should.
 *
 *     spawn prelude CORE_BYTES FILE_BYTES OPEN_FILES SCRIPT CONTROL_FD REPORT_FD [JOIN_FILE...]
 *
 * A box's first process, started by the arbiter before its bot is known (sandbox.py, Box): joins
 * the box's control groups by writing 0 to each JOIN_FILE, caps core files, file size and open
 * descriptors (soft and hard), puts the bot's pipes (its 0 and 1) on descriptors 3 and 4 with
 * /dev/null on 0 and 1, then reads SCRIPT to its end (the arbiter writes it once it knows what
 * the box shows; empty: the box was not used, exit 0). CONTROL_FD and REPORT_FD ("-": none),
 * inherited pipes, are put on 6 and 7 for `spawn box-wait`. SCRIPT is data, not a shell's text: NUL-terminated
 * entries, each a tag and its text: 'v' the address-space cap in bytes, 's' the system-call
 * filter's file (opened on descriptor 5 for bubblewrap), 'i' the file bubblewrap writes the box
 * init's pid to (opened for writing on descriptor 8), 'e' one NAME=VALUE of the environment,
 * 'a' one argument of the command to become (bubblewrap's, its program first). It becomes that
 * command with that environment alone. On any failure it says what on stderr (the bot's log)
 * and exits 126, as the shell prelude it replaces did with `set -e`.
 *
 *     spawn box-wait UID NPROC
 *
 * `spawn box` in a box built before its bot was known (a player's box for its next game, built
 * while this one is played): reads the bot's command and environment from descriptor 6 to its
 * end, the same entries as the prelude's ('a' and 'e' only; empty: the box was not used, exit
 * 0), then does what `spawn box` does with them. Descriptors 6 and 7 are closed on exec: the
 * arbiter, which holds the other end of 7, sees it close once the bot's program runs. */
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

/* What `fd` holds, read to its end of file (NUL-terminated once more), or NULL. */
static char *slurp(int fd, size_t *length) {
    size_t size = 0, room = 8192;
    char *data = malloc(room + 1);
    for (;;) {
        if (data == NULL)
            return NULL;
        if (size == room) {
            room *= 2;
            data = realloc(data, room + 1);
            continue;
        }
        ssize_t got = read(fd, data + size, room - size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return NULL;
        if (got == 0)
            break;
        size += (size_t)got;
    }
    data[size] = '\0';
    *length = size;
    return data;
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

/* A command and its environment read from `fd` to its end of file: NUL-terminated entries,
 * 'a' an argument, 'e' a NAME=VALUE, and (with `limits`, the prelude's) 'v' the address-space
 * cap, 's' the system-call filter's file, opened on descriptor 5, and 'i' the file bubblewrap
 * writes its word on the box to (`--info-fd`), opened for writing on descriptor 8. `spare` free
 * places are left at the environment's end. Nothing there: the box was given no bot, exit 0. */
struct order {
    char **command, **environment;
    size_t variables;
};

static struct order read_order(int fd, int limits, size_t spare, const char *what) {
    size_t length = 0;
    char *data = fd < 0 ? NULL : slurp(fd, &length);
    if (data == NULL)
        refuse(what);
    close(fd);
    if (length == 0)
        _exit(0);
    size_t entries = 0;
    for (size_t at = 0; at < length; at++)
        entries += data[at] == '\0';
    struct order order = {calloc(entries + 1, sizeof(char *)), calloc(entries + spare + 1, sizeof(char *)), 0};
    if (order.command == NULL || order.environment == NULL)
        refuse(what);
    size_t arguments = 0;
    for (char *entry = data; entry < data + length; entry += strlen(entry) + 1) {
        if (entry[0] == 'a')
            order.command[arguments++] = entry + 1;
        else if (entry[0] == 'e')
            order.environment[order.variables++] = entry + 1;
        else if (limits && entry[0] == 'v')
            cap(RLIMIT_AS, entry + 1, "RLIMIT_AS");
        else if (limits && entry[0] == 's')
            open_on(entry + 1, O_RDONLY, 5);
        else if (limits && entry[0] == 'i')
            open_on(entry + 1, O_WRONLY, 8);
        else {
            errno = EINVAL;
            refuse(what);
        }
    }
    if (arguments == 0) {
        errno = EINVAL;
        refuse(what);
    }
    return order;
}

static int prelude(int argc, char **argv) {
    if (argc < 8) {
        errno = EINVAL;
        refuse("usage");
    }
    int control = keep_aside(argv[6]), report = keep_aside(argv[7]);
    for (int i = 8; i < argc; i++)
        join(argv[i]);
    cap(RLIMIT_CORE, argv[2], "RLIMIT_CORE");
    cap(RLIMIT_FSIZE, argv[3], "RLIMIT_FSIZE");
    cap(RLIMIT_NOFILE, argv[4], "RLIMIT_NOFILE");
    if (dup2(0, 3) < 0 || dup2(1, 4) < 0)  /* 3 and up are free: the arbiter closes them */
        refuse("the bot's pipes (descriptors 3 and 4)");
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || close(null) != 0)
        refuse("/dev/null on descriptors 0 and 1");
    struct order order = read_order(open(argv[5], O_RDONLY | O_CLOEXEC), 1, 0, "reading the box's script");
    if ((control >= 0 && (dup2(control, 6) < 0 || close(control) != 0)) ||
        (report >= 0 && (dup2(report, 7) < 0 || close(report) != 0)))
        refuse("the box's descriptors 6 and 7");
    execve(order.command[0], order.command, order.environment);
    refuse(order.command[0]);
    return 126;
}

/* spawn box-wait UID NPROC: `spawn box` for a box made before its bot was known. */
static int box_wait(int argc, char **argv) {
    if (argc < 4) {
        errno = EINVAL;
        refuse("usage");
    }
    if (fcntl(6, F_SETFD, FD_CLOEXEC) != 0 || fcntl(7, F_SETFD, FD_CLOEXEC) != 0)
        refuse("the box's descriptors 6 and 7");
    struct order order = read_order(6, 0, 1, "reading the bot's command");
    /* bubblewrap sets PWD to the folder it starts the command in, over the one it was given */
    const char *folder = getenv("PWD");
    if (folder != NULL) {
        size_t kept = 0;
        for (size_t i = 0; i < order.variables; i++)
            if (strncmp(order.environment[i], "PWD=", 4) != 0)
                order.environment[kept++] = order.environment[i];
        if (asprintf(&order.environment[kept++], "PWD=%s", folder) < 0)
            refuse("the bot's PWD");
        order.environment[kept] = NULL;
    }
    become_bot(argv[2], argv[3], order.command, order.environment);
    return 126;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bot") == 0)
        return bot(argc, argv);
    if (argc > 1 && strcmp(argv[1], "box") == 0)
        return box(argc, argv);
    if (argc > 1 && strcmp(argv[1], "prelude") == 0)
        return prelude(argc, argv);
    if (argc > 1 && strcmp(argv[1], "box-wait") == 0)
        return box_wait(argc, argv);
    return 126;
}
