#ifndef PULSEJACK_CZITACONVOLVER_H
#define PULSEJACK_CZITACONVOLVER_H
// zita-convolver is C++; Swift calls it through these one-line wrappers.
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pj_convolver pj_convolver;

/// Configures a convolver with `channels` independent in→out paths, impulses up to `maxsize`
/// frames, processing `quantum` frames a call, smallest partition `quantum` (no added latency).
/// Returns NULL and sets *error (zita's code) on failure.
pj_convolver *pj_convolver_create(unsigned channels, unsigned maxsize, unsigned quantum, int *error);
/// Sets channel `channel`'s impulse response (before start).
int pj_convolver_set_impulse(pj_convolver *convolver, unsigned channel, float *data, unsigned length);
/// Starts the worker threads for the larger partitions (SCHED_OTHER: no privileges needed).
int pj_convolver_start(pj_convolver *convolver);
float *pj_convolver_input(pj_convolver *convolver, unsigned channel);
float *pj_convolver_output(pj_convolver *convolver, unsigned channel);
/// One quantum. sync = 0 never waits (real-time); sync = 1 waits for the workers (offline).
/// Returns zita's flags (nonzero low bits: some partitions were late).
int pj_convolver_process(pj_convolver *convolver, int sync);
void pj_convolver_destroy(pj_convolver *convolver);

#ifdef __cplusplus
}
#endif
#endif
