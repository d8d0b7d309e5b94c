#include "CProcessThread.h"

__thread int pj_rt_depth = 0;

void pj_rt_enter(void) { pj_rt_depth++; }
void pj_rt_exit(void) { pj_rt_depth--; }
int pj_rt_active(void) { return pj_rt_depth > 0; }
