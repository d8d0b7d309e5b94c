#ifndef PULSEJACK_CJACK_H
#define PULSEJACK_CJACK_H

#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/ringbuffer.h>
#include <jack/metadata.h>
#include <jack/transport.h>
#include <jack/uuid.h>

/// jack_client_open is variadic; Swift cannot call it. Opens with an optional server name.
jack_client_t *pj_client_open(const char *client_name, jack_options_t options,
                              jack_status_t *status, const char *server_name);

/// Marks the calling thread as inside a real-time section (the process callback).
/// A test-only malloc interposer reads pj_rt_depth to count allocations made there.
void pj_rt_enter(void);
void pj_rt_exit(void);
extern __thread int pj_rt_depth;

#endif
