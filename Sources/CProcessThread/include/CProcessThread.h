#ifndef PULSEJACK_CPROCESSTHREAD_H
#define PULSEJACK_CPROCESSTHREAD_H

/// The process-thread marker: a thread-local depth (Swift cannot declare a thread-local), set
/// while the calling thread runs the process callback or an offline period. The test-only malloc
/// interposer reads pj_rt_depth to count allocations made there; debug builds assert against
/// pj_rt_active where locks and setup must never run. Real-time safe.
void pj_rt_enter(void);
void pj_rt_exit(void);
int pj_rt_active(void);
extern __thread int pj_rt_depth;

/// Flush-to-zero and denormals-are-zero on the calling thread (MXCSR's FTZ and DAZ on x86-64,
/// FPCR's FZ on arm64): no subnormal number slows its arithmetic or leaves it. Set where a
/// thread renders, each period (a plugin may have cleared them). Real-time safe: one register write.
void pj_flush_denormals(void);
/// Whether the calling thread flushes them (for tests). Real-time safe.
int pj_denormals_flushed(void);

#endif
