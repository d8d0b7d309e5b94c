#include "CZitaConvolver.h"
#include <zita-convolver.h>
#include <sched.h>

struct pj_convolver { Convproc proc; };

pj_convolver *pj_convolver_create(unsigned channels, unsigned maxsize, unsigned quantum, int *error) {
    pj_convolver *convolver = new pj_convolver;
    *error = convolver->proc.configure(channels, channels, maxsize, quantum, quantum, Convproc::MAXPART, 0.5f);
    if (*error != 0) { delete convolver; return nullptr; }
    return convolver;
}

int pj_convolver_set_impulse(pj_convolver *convolver, unsigned channel, float *data, unsigned length) {
    return convolver->proc.impdata_create(channel, channel, 1, data, 0, (int32_t)length);
}

int pj_convolver_start(pj_convolver *convolver) { return convolver->proc.start_process(0, SCHED_OTHER); }
float *pj_convolver_input(pj_convolver *convolver, unsigned channel) { return convolver->proc.inpdata(channel); }
float *pj_convolver_output(pj_convolver *convolver, unsigned channel) { return convolver->proc.outdata(channel); }
int pj_convolver_process(pj_convolver *convolver, int sync) { return convolver->proc.process(sync != 0); }

void pj_convolver_destroy(pj_convolver *convolver) {
    convolver->proc.stop_process();
    while (!convolver->proc.check_stop()) sched_yield();
    convolver->proc.cleanup();
    delete convolver;
}
