#define _GNU_SOURCE
#include "CProcessThread.h"

__thread int pj_rt_depth = 0;

int pj_denormals_flushed(void) {
#if defined(__x86_64__) || defined(__i386__)
    return (_mm_getcsr() & 0x8040) == 0x8040;
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr >> 24) & 1;
#else
    return 0;
#endif
}

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int pj_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
    // Shared between processes: no FUTEX_PRIVATE_FLAG.
    long result = syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
    if (result == -1 && errno == ETIMEDOUT) return -1;
    return 0;
}

void pj_futex_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0); }

int pj_shared_memory(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int pj_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

#include <poll.h>

int pj_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int pj_pidfd_exited(int pidfd) {
    struct pollfd ready = {pidfd, POLLIN, 0};
    return poll(&ready, 1, 0) == 1;
}

#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>

int pj_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void pj_eventfd_ring(int fd) {
    uint64_t one = 1;
    // Non-blocking: adds to the counter, or fails with EAGAIN at 2^64 - 2 unread rings; never waits.
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

int pj_eventfd_wait(int fd, int other, int64_t timeout_ns) {
    return pj_eventfd_wait_any(fd, &other, other >= 0 ? 1 : 0, timeout_ns);
}

int pj_eventfd_wait_any(int fd, const int *others, int count, int64_t timeout_ns) {
    struct pollfd entries[8] = {{fd, POLLIN, 0}};
    if (count > 7) count = 7;
    for (int index = 0; index < count; index++) entries[1 + index] = (struct pollfd){others[index], POLLIN, 0};
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
    int ready = ppoll(entries, (nfds_t)(1 + count), timeout_ns < 0 ? NULL : &timeout, NULL);
    int result = 0;
    if (ready > 0 && (entries[0].revents & POLLIN)) {
        uint64_t rings;
        ssize_t got = read(fd, &rings, sizeof rings);
        (void)got;
        result |= 1;
    }
    for (int index = 0; ready > 0 && index < count; index++) {
        if (entries[1 + index].revents) result |= 2 << index;
    }
    return result;
}

#include <sys/timerfd.h>

int pj_deadline(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

void pj_deadline_set(int fd, int64_t after_ns) {
    struct itimerspec when = {{0, 0}, {(time_t)(after_ns / 1000000000), (long)(after_ns % 1000000000)}};
    timerfd_settime(fd, 0, &when, NULL);
}

int pj_deadline_expired(int fd) {
    uint64_t expiries = 0;
    return read(fd, &expiries, sizeof expiries) == (ssize_t)sizeof expiries && expiries > 0;
}

void pj_name_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, 15);
    shortened[15] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

int pj_name_process_thread(void) {
    pthread_setname_np(pthread_self(), "pj-process");
    return (int)gettid();
}
