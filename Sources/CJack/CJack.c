#include "CJack.h"
#include <stdio.h>

jack_client_t *pj_client_open(const char *client_name, jack_options_t options,
                              jack_status_t *status, const char *server_name) {
    if (server_name != NULL)
        return jack_client_open(client_name, options | JackServerName, status, server_name);
    return jack_client_open(client_name, options, status);
}

const char *pj_metadata_pretty_name(void) { return JACK_METADATA_PRETTY_NAME; }
const char *pj_metadata_order(void) { return JACK_METADATA_ORDER; }

void pj_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PJ_THREAD_SANITIZER 1
#endif
#endif

#ifdef PJ_THREAD_SANITIZER
void __tsan_acquire(void *address);
void __tsan_release(void *address);
static char pj_process_order_token;
void pj_process_order_begin(void) { __tsan_acquire(&pj_process_order_token); }
void pj_process_order_end(void) { __tsan_release(&pj_process_order_token); }
#else
void pj_process_order_begin(void) {}
void pj_process_order_end(void) {}
#endif
