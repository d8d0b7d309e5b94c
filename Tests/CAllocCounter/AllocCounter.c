// Interposes the allocator for the whole test executable (the executable's definitions win over
// libc's in ELF symbol resolution) and counts calls made inside real-time sections.
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include "CAllocCounter.h"
#include <stddef.h>
#include <stdatomic.h>
#include <pthread.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <string.h>

extern __thread int pj_rt_depth;

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define PJ_UNDER_TSAN 1
#  endif
#endif

#ifdef PJ_UNDER_TSAN
// ThreadSanitizer interposes malloc and pthread itself, and calls malloc during its own start-up
// (dlsym -> malloc): a second interposer here crashes it before main. Counting is off.
int pj_alloc_counter_live(void) { return 0; }
uint64_t pj_rt_allocation_count(void) { return 0; }
uint64_t pj_rt_lock_count(void) { return 0; }
uint64_t pj_total_allocation_count(void) { return 0; }
void pj_rt_counters_reset(void) {}
const char *pj_rt_first_allocation_trace(void) { return ""; }
#else
int pj_alloc_counter_live(void) { return 1; }

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic uint64_t rt_allocations;
static _Atomic uint64_t rt_locks;
static _Atomic uint64_t total_allocations;

// PJ_RT_ALLOC_TRAP=N in the environment: the Nth real-time allocation counted since the last
// reset raises SIGTRAP, so a debugger shows who made it
// (gdb --args .build/debug/pulsejackPackageTests.xctest JackEngineTests.RealtimeSafetyTests/…).
static long trap_at = -1;
static atomic_int trap_armed;

// The first real-time allocation's call stack since the last reset, so that a failing test names
// its caller even where it happened once in many runs.
#define TRACE_DEPTH 48
static void *first_trace[TRACE_DEPTH];
static _Atomic int first_trace_depth;

static inline void count(void) {
    atomic_fetch_add_explicit(&total_allocations, 1, memory_order_relaxed);
    if (pj_rt_depth > 0) {
        uint64_t made = atomic_fetch_add_explicit(&rt_allocations, 1, memory_order_relaxed) + 1;
        if (made == 1) {
            // backtrace's own allocations (none after the constructor's first call) are not counted.
            int depth = pj_rt_depth;
            pj_rt_depth = 0;
            atomic_store(&first_trace_depth, backtrace(first_trace, TRACE_DEPTH));
            pj_rt_depth = depth;
        }
        if (trap_at < 0) { const char *trap = getenv("PJ_RT_ALLOC_TRAP"); trap_at = trap ? atol(trap) : 0; }
        if (trap_at > 0 && atomic_load(&trap_armed) && made == (uint64_t)trap_at) raise(SIGTRAP);
    }
}

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    count();
    void *p = __libc_memalign(a, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

typedef int (*mutex_fn)(pthread_mutex_t *);
static mutex_fn real_lock, real_trylock;

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (pj_rt_depth > 0) atomic_fetch_add_explicit(&rt_locks, 1, memory_order_relaxed);
    if (real_lock == NULL) real_lock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock");
    return real_lock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m) {
    if (pj_rt_depth > 0) atomic_fetch_add_explicit(&rt_locks, 1, memory_order_relaxed);
    if (real_trylock == NULL) real_trylock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    return real_trylock(m);
}

__attribute__((constructor)) static void resolve_real_locks(void) {
    // glibc's backtrace loads libgcc_s at its first call: done here, not on a process thread.
    void *warm[2];
    backtrace(warm, 2);
    real_lock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_trylock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_trylock");
}

uint64_t pj_rt_allocation_count(void) { return atomic_load(&rt_allocations); }
uint64_t pj_rt_lock_count(void) { return atomic_load(&rt_locks); }
uint64_t pj_total_allocation_count(void) { return atomic_load(&total_allocations); }
void pj_rt_counters_reset(void) {
    atomic_store(&trap_armed, 1);
    atomic_store(&first_trace_depth, 0);
    atomic_store(&rt_allocations, 0);
    atomic_store(&rt_locks, 0);
}

const char *pj_rt_first_allocation_trace(void) {
    static char text[TRACE_DEPTH * 1024];
    text[0] = 0;
    int depth = atomic_load(&first_trace_depth);
    if (depth == 0) return text;
    char **symbols = backtrace_symbols(first_trace, depth);
    if (symbols == NULL) return text;
    size_t used = 0;
    strcpy(text, "first real-time allocation at:\n");
    used = strlen(text);
    for (int frame = 0; frame < depth && used + 2 < sizeof text; frame++) {
        size_t length = strlen(symbols[frame]);
        if (used + length + 2 >= sizeof text) length = sizeof text - used - 2;
        memcpy(text + used, symbols[frame], length);
        used += length;
        text[used++] = '\n';
        text[used] = 0;
    }
    free(symbols);
    return text;
}
#endif

#include <sched.h>
/// Pins the calling thread to `core` (core < 0: every core). For benchmarks that must place
/// two threads on different cores; glibc declares the call only under _GNU_SOURCE.
int pj_pin_thread(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (core < 0) { for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &set); }
    else CPU_SET(core, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
