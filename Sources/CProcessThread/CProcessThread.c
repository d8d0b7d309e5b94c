#include "CProcessThread.h"

__thread int pj_rt_depth = 0;

void pj_rt_enter(void) { pj_rt_depth++; }
void pj_rt_exit(void) { pj_rt_depth--; }
int pj_rt_active(void) { return pj_rt_depth > 0; }

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

void pj_flush_denormals(void) {
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
