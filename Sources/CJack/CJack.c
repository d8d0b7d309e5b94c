#include "CJack.h"
#include <stdio.h>

__thread int pj_rt_depth = 0;

jack_client_t *pj_client_open(const char *client_name, jack_options_t options,
                              jack_status_t *status, const char *server_name) {
    if (server_name != NULL)
        return jack_client_open(client_name, options | JackServerName, status, server_name);
    return jack_client_open(client_name, options, status);
}

void pj_rt_enter(void) { pj_rt_depth++; }
void pj_rt_exit(void) { pj_rt_depth--; }

const char *pj_metadata_pretty_name(void) { return JACK_METADATA_PRETTY_NAME; }
const char *pj_metadata_order(void) { return JACK_METADATA_ORDER; }

void pj_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }
