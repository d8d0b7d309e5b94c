// LD_PRELOAD shim for scripts/callback-time.sh: wraps the process callback a JACK client sets
// and times each call (CLOCK_MONOTONIC around it), into a histogram of 50 ns bins (the median
// is not moved by a call the scheduler preempted, the mean is). A thread of its own, never the
// process thread, writes the running counts to $CALLBACK_TIME_DIR/<pid> every half second:
// "calls total_ns" and then every bin's count.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jack/jack.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static JackProcessCallback wrapped;
static _Atomic unsigned long long total_ns, calls;
enum { BIN_NS = 50, BINS = 2000 };  // the last bin holds every call of 99.95 µs or more
static _Atomic unsigned long long bins[BINS];

static unsigned long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static int timed(jack_nframes_t frames, void *argument) {
    unsigned long long start = now_ns();
    int result = wrapped(frames, argument);
    unsigned long long took = now_ns() - start, bin = took / BIN_NS;
    atomic_fetch_add_explicit(&bins[bin < BINS ? bin : BINS - 1], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&total_ns, took, memory_order_relaxed);
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return result;
}

int jack_set_process_callback(jack_client_t *client, JackProcessCallback callback, void *argument) {
    int (*real)(jack_client_t *, JackProcessCallback, void *) = dlsym(RTLD_NEXT, "jack_set_process_callback");
    wrapped = callback;
    return real(client, timed, argument);
}

static void *report(void *unused) {
    (void)unused;
    // Started before the program's main: no signal of the program's (a stop request) lands here.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    const char *folder = getenv("CALLBACK_TIME_DIR");
    if (!folder) return NULL;
    char path[512], temporary[520];
    snprintf(path, sizeof path, "%s/%d", folder, (int)getpid());
    snprintf(temporary, sizeof temporary, "%s.new", path);
    for (;;) {
        usleep(500000);
        FILE *file = fopen(temporary, "w");
        if (!file) continue;
        fprintf(file, "%llu %llu", atomic_load(&calls), atomic_load(&total_ns));
        for (int bin = 0; bin < BINS; bin++) fprintf(file, " %llu", atomic_load(&bins[bin]));
        fprintf(file, "\n");
        fclose(file);
        rename(temporary, path);
    }
    return NULL;
}

__attribute__((constructor)) static void start_reporting(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, report, NULL) == 0) pthread_detach(thread);
}
