// Ableton Link behind a C interface (Link has no packaged C API). Each call is one line of Link's.
#include "CLink.h"
#include <ableton/Link.hpp>
#include <chrono>
#include <new>

struct pj_link {
    ableton::Link link;
    explicit pj_link(double bpm) : link(bpm) {}
};

struct pj_link_state {
    // Link's SessionState has no default constructor: kept in place once captured.
    alignas(ableton::Link::SessionState) unsigned char storage[sizeof(ableton::Link::SessionState)];
    bool held = false;
    ableton::Link::SessionState &get() { return *reinterpret_cast<ableton::Link::SessionState *>(storage); }
    const ableton::Link::SessionState &get() const { return *reinterpret_cast<const ableton::Link::SessionState *>(storage); }
    void hold(const ableton::Link::SessionState &state) {
        if (held) get() = state; else { new (storage) ableton::Link::SessionState(state); held = true; }
    }
    ~pj_link_state() { if (held) get().~SessionState(); }
};

static std::chrono::microseconds micros(int64_t value) { return std::chrono::microseconds(value); }

pj_link *pj_link_create(double bpm) {
    try { return new pj_link(bpm); } catch (...) { return nullptr; }
}
void pj_link_destroy(pj_link *link) { delete link; }
void pj_link_enable(pj_link *link, bool enable) { link->link.enable(enable); }
bool pj_link_is_enabled(const pj_link *link) { return link->link.isEnabled(); }
void pj_link_enable_start_stop_sync(pj_link *link, bool enable) { link->link.enableStartStopSync(enable); }
size_t pj_link_peers(const pj_link *link) { return link->link.numPeers(); }
int64_t pj_link_micros(const pj_link *link) { return link->link.clock().micros().count(); }

pj_link_state *pj_link_state_create(void) { return new (std::nothrow) pj_link_state(); }
void pj_link_state_destroy(pj_link_state *state) { delete state; }
void pj_link_capture_audio(const pj_link *link, pj_link_state *state) { state->hold(link->link.captureAudioSessionState()); }
void pj_link_commit_audio(pj_link *link, const pj_link_state *state) { if (state->held) link->link.commitAudioSessionState(state->get()); }
void pj_link_capture_app(const pj_link *link, pj_link_state *state) { state->hold(link->link.captureAppSessionState()); }
void pj_link_commit_app(pj_link *link, const pj_link_state *state) { if (state->held) link->link.commitAppSessionState(state->get()); }

double pj_link_tempo(const pj_link_state *state) { return state->get().tempo(); }
void pj_link_set_tempo(pj_link_state *state, double bpm, int64_t at) { state->get().setTempo(bpm, micros(at)); }
double pj_link_beat_at_time(const pj_link_state *state, int64_t at, double quantum) { return state->get().beatAtTime(micros(at), quantum); }
double pj_link_phase_at_time(const pj_link_state *state, int64_t at, double quantum) { return state->get().phaseAtTime(micros(at), quantum); }
int64_t pj_link_time_at_beat(const pj_link_state *state, double beat, double quantum) { return state->get().timeAtBeat(beat, quantum).count(); }
void pj_link_request_beat_at_time(pj_link_state *state, double beat, int64_t at, double quantum) { state->get().requestBeatAtTime(beat, micros(at), quantum); }
void pj_link_force_beat_at_time(pj_link_state *state, double beat, int64_t at, double quantum) { state->get().forceBeatAtTime(beat, micros(at), quantum); }
bool pj_link_is_playing(const pj_link_state *state) { return state->get().isPlaying(); }
void pj_link_set_is_playing(pj_link_state *state, bool playing, int64_t at) { state->get().setIsPlaying(playing, micros(at)); }
int64_t pj_link_time_for_is_playing(const pj_link_state *state) { return state->get().timeForIsPlaying().count(); }
