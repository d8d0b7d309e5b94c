#ifndef CLV2_HOST_H
#define CLV2_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <lv2/core/lv2.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>

/// What pulsejack offers a hosted plugin, per instance: URID map and unmap (one table for the
/// process, behind a mutex, strings never freed), options (sample rate, block lengths, sequence
/// size), bounded block length, a worker (request and response rings, a thread, or synchronous
/// for offline renders), a log whose messages go through a ring, and state paths in a folder.
/// C because the log callback is C-variadic and the worker thread must not touch Swift's runtime.
typedef struct PJPluginHost PJPluginHost;

/// The process-wide URID table (thread-safe; usable before and after any instance).
LV2_URID pj_urid_map(const char *uri);
const char *pj_urid_unmap(LV2_URID urid);

/// Control thread. `state_folder` may be NULL (makePath then uses a temporary folder).
/// `synchronous_worker`: work runs inside `schedule_work` on the calling thread (offline render).
PJPluginHost *pj_host_new(double sample_rate, int32_t max_block, int32_t nominal_block, int32_t sequence_size,
                          const char *state_folder, int synchronous_worker);
/// The NULL-terminated feature array, valid for the host's life.
const LV2_Feature *const *pj_host_features(PJPluginHost *host);
/// The host's URID map (for lilv's state functions).
LV2_URID_Map *pj_host_map(PJPluginHost *host);
LV2_URID_Unmap *pj_host_unmap(PJPluginHost *host);
/// Control thread, after instantiation: the worker the plugin implements (NULL: none). Starts
/// the worker thread unless the worker is synchronous.
void pj_host_attach_worker(PJPluginHost *host, const LV2_Worker_Interface *iface, LV2_Handle handle);
/// Real-time safe. After each `run`: delivers the worker's responses, then `end_run`.
void pj_host_after_run(PJPluginHost *host);
/// Control thread. The next logged line (without a newline) into `buffer`; 0 when none waits.
int pj_host_next_log(PJPluginHost *host, char *buffer, size_t capacity);
/// An eventfd every plugin's logged line rings (-1: none), so the thread that drains the logs
/// sleeps until there is one. Any thread; the ring is one non-blocking write, safe in `run`.
void pj_host_ring_on_log(int eventfd);
/// No bell any more, if `eventfd` is still the one rung (another may have been set since).
void pj_host_stop_ringing(int eventfd);
/// Counters: worker requests refused because the ring was full, log lines dropped likewise.
uint64_t pj_host_worker_overflows(PJPluginHost *host);
/// Work the plugin scheduled, ever.
uint64_t pj_host_worker_requests(PJPluginHost *host);
uint64_t pj_host_log_overflows(PJPluginHost *host);
/// A line from a plugin of another format (CLAP's log) into `host`'s queue, at CLAP's severity
/// (2 a warning, 3 and above an error). Real-time safe, as the LV2 log is.
void pj_host_log_line(void *host, int32_t severity, const char *message);
/// Control thread, after the instance is cleaned up: stops the worker and frees everything.
void pj_host_free(PJPluginHost *host);

/// The features pulsejack offers, as URIs: a plugin requiring one not in this list is refused.
/// NULL-terminated, static.
const char *const *pj_host_supported_features(void);
/// The options it gives (`opts:requiredOption` must be among them). NULL-terminated, static.
const char *const *pj_host_supported_options(void);

/// URIs Swift cannot import (two-token macros).
const char *pj_lv2_atom_sequence(void);
const char *pj_lv2_atom_chunk(void);
const char *pj_lv2_coarse_block_length(void);
const char *pj_lv2_reports_latency(void);
const char *pj_lv2_connection_optional(void);
const char *pj_lv2_cv_port(void);
const char *pj_lv2_required_option(void);
const char *pj_lv2_latency_designation(void);

#endif
