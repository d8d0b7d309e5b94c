#ifndef PULSEJACK_ALLOC_COUNTER_H
#define PULSEJACK_ALLOC_COUNTER_H
#include <stdint.h>

/// 1 when the counter is built in; 0 under ThreadSanitizer, where it is left out (the counts
/// below are then always 0, and the tests that read them skip).
int pj_alloc_counter_live(void);
/// Allocation calls (malloc, calloc, realloc, memalign family) made by any thread while it was
/// inside a real-time section (pj_rt_depth > 0), since the last reset.
uint64_t pj_rt_allocation_count(void);
/// pthread_mutex_lock / trylock calls made inside real-time sections.
uint64_t pj_rt_lock_count(void);
/// Allocation calls made by the process, all threads: proves the interposer is live.
uint64_t pj_total_allocation_count(void);
void pj_rt_counters_reset(void);
/// The call stack (raw symbols: demangle with `swift demangle`) of the first allocation counted
/// in a real-time section since the last reset, or "" when there was none. Not thread-safe:
/// read it after the counted section has ended.
const char *pj_rt_first_allocation_trace(void);
/// Pins the calling thread to one core (−1: all cores); for benchmarks.
int pj_pin_thread(int core);

#endif
