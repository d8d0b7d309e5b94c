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

/// JACK's metadata keys are mutable `extern const char *` globals, which Swift 6 refuses to
/// read; these return them.
const char *pj_metadata_pretty_name(void);
const char *pj_metadata_order(void);

/// Line-buffers stdout, so status lines reach a pipe as they happen (Swift 6 cannot name the
/// C `stdout` global).
void pj_line_buffer_stdout(void);

/// JACK runs the process callbacks of connected clients in graph order, each cycle after the
/// last; libjack orders them with futexes on shared memory, which ThreadSanitizer cannot see, so
/// a port buffer one client writes and the next reads looks like a race. Every process callback
/// in this process calls pj_process_order_begin first and pj_process_order_end last: under TSan
/// they tell it that order (an acquire and a release of one token); otherwise they do nothing.
/// Real-time safe.
void pj_process_order_begin(void);
void pj_process_order_end(void);

#endif
