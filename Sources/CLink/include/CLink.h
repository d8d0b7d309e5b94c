#ifndef PULSEJACK_CLINK_H
#define PULSEJACK_CLINK_H
// Ableton Link is header-only C++ (Debian's ableton-link-dev); Swift calls it through these.
// Times are Link's clock in microseconds: CLOCK_MONOTONIC_RAW on Linux, jackd2's jack_get_time.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pj_link pj_link;
/// A session state to capture into and commit from: made off the process thread, then reused.
typedef struct pj_link_state pj_link_state;

/// A Link instance at `bpm`, not yet enabled. NULL if it could not be made.
pj_link *pj_link_create(double bpm);
void pj_link_destroy(pj_link *link);
/// Joins (true) or leaves (false) the session: starts or stops discovery on every interface up.
void pj_link_enable(pj_link *link, bool enable);
bool pj_link_is_enabled(const pj_link *link);
void pj_link_enable_start_stop_sync(pj_link *link, bool enable);
size_t pj_link_peers(const pj_link *link);
/// Link's clock now.
int64_t pj_link_micros(const pj_link *link);

pj_link_state *pj_link_state_create(void);
void pj_link_state_destroy(pj_link_state *state);
/// Real-time safe: the audio-thread capture and commit (never both from two threads at once).
void pj_link_capture_audio(const pj_link *link, pj_link_state *state);
void pj_link_commit_audio(pj_link *link, const pj_link_state *state);
/// Any other thread.
void pj_link_capture_app(const pj_link *link, pj_link_state *state);
void pj_link_commit_app(pj_link *link, const pj_link_state *state);

/// The state's tempo, and a tempo change from `micros` on.
double pj_link_tempo(const pj_link_state *state);
void pj_link_set_tempo(pj_link_state *state, double bpm, int64_t micros);
double pj_link_beat_at_time(const pj_link_state *state, int64_t micros, double quantum);
double pj_link_phase_at_time(const pj_link_state *state, int64_t micros, double quantum);
int64_t pj_link_time_at_beat(const pj_link_state *state, double beat, double quantum);
/// Asks the session to map `beat` to `micros` (on the quantum's phase when peers play on).
void pj_link_request_beat_at_time(pj_link_state *state, double beat, int64_t micros, double quantum);
void pj_link_force_beat_at_time(pj_link_state *state, double beat, int64_t micros, double quantum);
bool pj_link_is_playing(const pj_link_state *state);
void pj_link_set_is_playing(pj_link_state *state, bool playing, int64_t micros);
int64_t pj_link_time_for_is_playing(const pj_link_state *state);

#ifdef __cplusplus
}
#endif
#endif
