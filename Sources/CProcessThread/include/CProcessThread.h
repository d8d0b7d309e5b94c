#ifndef PULSEJACK_CPROCESSTHREAD_H
#define PULSEJACK_CPROCESSTHREAD_H

/// The process-thread marker: a thread-local depth (Swift cannot declare a thread-local), set
/// while the calling thread runs the process callback or an offline period. The test-only malloc
/// interposer reads pj_rt_depth to count allocations made there; debug builds assert against
/// pj_rt_active where locks and setup must never run. Real-time safe.
///
/// Inline, as is the denormal switch below: every period calls them, and a call out to a
/// one-line function elsewhere in the binary costs a period a cold line of code (and its page)
/// for a single increment.
extern __thread int pj_rt_depth;
static inline void pj_rt_enter(void) { pj_rt_depth++; }
static inline void pj_rt_exit(void) { pj_rt_depth--; }
static inline int pj_rt_active(void) { return pj_rt_depth > 0; }

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

/// Flush-to-zero and denormals-are-zero on the calling thread (MXCSR's FTZ and DAZ on x86-64,
/// FPCR's FZ on arm64): no subnormal number slows its arithmetic or leaves it. Set where a
/// thread renders, each period (a plugin may have cleared them). Real-time safe: one register write.
static inline void pj_flush_denormals(void) {
#if defined(__x86_64__) || defined(__i386__)
    // MXCSR: FTZ (bit 15) flushes subnormal results to zero, DAZ (bit 6) reads subnormal inputs as zero.
    _mm_setcsr(_mm_getcsr() | 0x8040);
#elif defined(__aarch64__)
    // FPCR: FZ (bit 24) flushes subnormal inputs and results to zero.
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | (1UL << 24)));
#endif
}
/// Whether the calling thread flushes them (for tests). Real-time safe.
int pj_denormals_flushed(void);

#include <stdint.h>

/// An isolated plugin's child is driven through a word in shared memory (the futex system call
/// is variadic, so Swift cannot make it). Waits while *word equals expected, at most timeout_ns
/// (relative, monotonic): 0 when woken or the word had changed, -1 on timeout. Real-time safe:
/// a bounded wait, as JACK's own client semaphores.
int pj_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns);
/// Wakes every waiter on *word. Real-time safe: no wait.
void pj_futex_wake(uint32_t *word);
/// An anonymous shared-memory file (memfd_create), -1 on failure.
int pj_shared_memory(const char *name);
/// A pipe whose ends close on exec (pipe2, which Glibc's Swift module does not declare).
int pj_pipe(int ends[2]);
/// A descriptor that becomes readable when process `pid` ends (pidfd_open), -1 on failure.
int pj_pidfd_open(int pid);
/// Whether the process behind `pidfd` has ended. Real-time safe: a poll that does not wait.
int pj_pidfd_exited(int pidfd);

/// A doorbell: an eventfd (non-blocking, closed on exec), -1 on failure.
int pj_eventfd(void);
/// Rings it. Real-time safe: one write(2) to a non-blocking eventfd adds to its counter and wakes
/// its waiters; it never sleeps (at worst it fails, with EAGAIN, after 2^64 - 2 unread rings).
void pj_eventfd_ring(int fd);
/// Waits until `fd` is rung (and takes its rings), `other` (if not -1) is readable, or
/// `timeout_ns` (relative; negative: no limit) has passed. Bit 1: rung; bit 2: `other` ready.
int pj_eventfd_wait(int fd, int other, int64_t timeout_ns);
/// The same beside `count` (at most 7) other descriptors: bit 0 rung, bit 1 + i `others[i]` readable.
int pj_eventfd_wait_any(int fd, const int *others, int count, int64_t timeout_ns);
/// A deadline: a timerfd on CLOCK_MONOTONIC (non-blocking, closed on exec), -1 on failure.
int pj_deadline(void);
/// Sets it `after_ns` from now (one shot), clearing any expiry not yet read. Real-time safe:
/// timerfd_settime only reprograms a kernel timer under the kernel's own spinlock; it never
/// sleeps, allocates or does I/O.
void pj_deadline_set(int fd, int64_t after_ns);
/// Whether it expired since it was last set or read (the expiry is taken). Never waits.
int pj_deadline_expired(int fd);
/// Names the calling thread for top -H, ps and gdb (pthread_setname_np; at most 15 bytes are kept).
void pj_name_thread(const char *name);
/// Names the calling thread `pj-process` and returns its id. Real-time safe: one
/// prctl(PR_SET_NAME) and one gettid, which never wait, and no string built in Swift.
int pj_name_process_thread(void);

#endif
