/* A measuring aid for benchmarks/bench_box_cost.py, not a sandbox: the kernel work a box needs
 * (the same namespaces as bubblewrap's, read-only binds of the given paths onto a fresh root,
 * /dev with the same device nodes, /tmp and /dev/shm as tmpfs, /proc, the loopback up, the
 * root changed), done in as few system calls as the kernel allows, and then /bin/true. What
 * bubblewrap costs beyond it is what it does on top: reading the mount table after each bind,
 * covering parts of /proc, its own start and its two processes. It drops no right, loads no
 * filter and keeps no init: nothing of it may stand for a box.
 *
 *     box_floor ROOT PATH...      (as root; ROOT: an empty folder to build the box's root on) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(const char *what) {
    perror(what);
    _exit(99);
}

static void make_parents(const char *path) {
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    for (char *p = copy + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(copy, 0755);
            *p = '/';
        }
}

/* `source` shown at the same path under `root`, read-only (devices: writable, no exec). */
static void show(const char *root, const char *source, int device) {
    char target[4096];
    snprintf(target, sizeof target, "%s%s", root, source);
    make_parents(target);
    struct stat st;
    if (stat(source, &st) != 0)
        fail(source);
    if (S_ISDIR(st.st_mode))
        mkdir(target, 0755);
    else
        close(open(target, O_CREAT | O_WRONLY, 0644));
    unsigned long flags = device ? MS_NOSUID | MS_NOEXEC : MS_RDONLY | MS_NOSUID | MS_NODEV;
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0 ||
        mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | flags, NULL) != 0)
        fail(source);
}

static void tmpfs(const char *root, const char *at, const char *options) {
    char target[4096];
    snprintf(target, sizeof target, "%s%s", root, at);
    mkdir(target, 01777);
    if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        fail(at);
}

int main(int argc, char **argv) {
    if (argc < 2)
        fail("usage: box_floor ROOT PATH...");
    const char *root = argv[1];
    if (unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP) != 0)
        fail("unshare");
    pid_t child = fork();  /* the first process of the new PID namespace */
    if (child < 0)
        fail("fork");
    if (child > 0) {
        int status;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        fail("private mounts");
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
        fail("the root");
    for (int i = 2; i < argc; i++)
        show(root, argv[i], 0);
    tmpfs(root, "/dev", "mode=0755,size=64k");
    const char *devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"};
    for (size_t i = 0; i < sizeof devices / sizeof *devices; i++)
        show(root, devices[i], 1);
    tmpfs(root, "/dev/shm", "mode=1777,size=64m");
    tmpfs(root, "/tmp", "mode=1777,size=64m");
    char proc[4096];
    snprintf(proc, sizeof proc, "%s/proc", root);
    mkdir(proc, 0555);
    if (mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        fail("/proc");
    const char *links[][2] = {{"usr/bin", "/bin"}, {"usr/lib", "/lib"}, {"usr/lib64", "/lib64"}, {"usr/sbin", "/sbin"}};
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        char at[4096];
        snprintf(at, sizeof at, "%s%s", root, links[i][1]);
        symlink(links[i][0], at);
    }
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq loopback;
    memset(&loopback, 0, sizeof loopback);
    strcpy(loopback.ifr_name, "lo");
    loopback.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
    if (sock < 0 || ioctl(sock, SIOCSIFFLAGS, &loopback) != 0)
        fail("the loopback");
    close(sock);
    sethostname("box", 3);
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 || umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        fail("the new root");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
        fail("the root read-only");
    execl("/bin/true", "true", (char *)NULL);
    fail("/bin/true");
}
