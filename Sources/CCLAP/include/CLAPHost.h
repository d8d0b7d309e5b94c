#ifndef CLAP_HOST_H
#define CLAP_HOST_H

#include <stddef.h>
#include <stdint.h>
#include "CLAPABI.h"

/// pulsejack's CLAP host, per plugin instance: the `clap_host_t` it offers (log, thread-check,
/// params, state, latency, tail, audio-ports, note-ports, timer-support, posix-fd-support), the
/// plugin's audio buffers and event lists, allocated at creation so `pj_clap_process` allocates
/// nothing. C because the plugin calls back through C function pointers on its own threads, and
/// because the callbacks the audio thread meets must not touch Swift's runtime.
typedef struct PJClapPlugin PJClapPlugin;

/// A plugin the bundles on the search path offer.
typedef struct {
    const char *id, *name, *vendor, *version, *description, *path;
    int instrument;  // its features include "instrument"
} PJClapDescriptor;

/// Control thread. Loads `path` (a `.clap`) once for the process (its `clap_entry.init`), and
/// the descriptors of the plugins it offers, appended to the catalog (`pj_clap_catalog`); a
/// bundle loaded before is not loaded again. 0 on success; otherwise `error` says why.
int pj_clap_load_bundle(const char *path, char *error, size_t capacity);
/// Control thread. The plugins of every bundle loaded so far.
uint32_t pj_clap_catalog_count(void);
PJClapDescriptor pj_clap_catalog_entry(uint32_t index);

/// Control thread. The entry of the bundle that offers plugin `id` (NULL: none loaded does).
const clap_plugin_entry_t *pj_clap_entry_for(const char *id);

/// One preset found: its name, where it is (CLAP_PRESET_DISCOVERY_LOCATION_FILE and a path, or
/// _PLUGIN and NULL or the plugin's own location) and its load key (NULL: none).
typedef void (*PJClapPresetFound)(void *context, const char *name, uint32_t location_kind, const char *location,
                                  const char *load_key);
/// Control thread. The presets of plugin `id` its bundle's preset discovery finds, each handed
/// to `found`, in the providers' order; how many (0: none or no discovery, -1: unknown plugin).
int pj_clap_find_presets(const char *id, PJClapPresetFound found, void *context);

/// What the plugin says of one of its parameters, one of its audio ports, its note input.
typedef struct {
    clap_id id;
    uint32_t flags;
    char name[CLAP_NAME_SIZE];
    char module[CLAP_PATH_SIZE];
    double minimum, maximum, default_value;
} PJClapParam;

/// Where the plugin's log lines go: a real-time-safe queue (the LV2 host's, `pj_host_log_line`).
typedef void (*PJClapLogLine)(void *context, int32_t severity, const char *message);

/// Control thread (the plugin's main thread from now on): creates and initialises plugin `id`
/// from the loaded bundles, with room for `max_frames` a process and `event_capacity` input
/// events; its log lines go to `log_line(log_host, …)`. NULL on failure, `error` saying why.
PJClapPlugin *pj_clap_new(const char *id, void *log_host, PJClapLogLine log_line, uint32_t max_frames, uint32_t event_capacity,
                          char *error, size_t capacity);
/// Control thread: deactivates (stopping processing first, if the audio thread left it
/// processing) and destroys it.
void pj_clap_free(PJClapPlugin *plugin);

/// Control thread. Its audio ports' channels (main ports first, as the plugin lists them),
/// its parameters and note inputs.
uint32_t pj_clap_audio_channels(PJClapPlugin *plugin, int is_input);
uint32_t pj_clap_param_count(PJClapPlugin *plugin);
int pj_clap_param(PJClapPlugin *plugin, uint32_t index, PJClapParam *param);
/// The parameter's value now (main thread, not while processing unless the plugin allows it).
int pj_clap_param_value(PJClapPlugin *plugin, uint32_t index, double *value);
/// Note input ports (0: takes no notes), and whether the first takes MIDI 1 bytes.
uint32_t pj_clap_note_inputs(PJClapPlugin *plugin);
int pj_clap_note_input_takes_midi(PJClapPlugin *plugin);

/// Control thread. Activates it at `sample_rate` for up to `max_frames` a process; 0 if refused.
int pj_clap_activate(PJClapPlugin *plugin, double sample_rate);
/// Control thread, not processing: the queued events (parameter values) given to the plugin's
/// `params.flush`, so a value set before the first process is the plugin's at once.
void pj_clap_flush(PJClapPlugin *plugin);
/// Frames of latency it reports (main thread; read at activation and when it says it changed).
/// The latency the audio thread reads is the last one read here.
uint32_t pj_clap_latency(PJClapPlugin *plugin);

/// Control thread. The plugin's state into `file`, or from it (its `state` extension). 0 on
/// failure (no extension, the plugin refused, the file could not be written or read).
int pj_clap_save_state(PJClapPlugin *plugin, const char *file);
int pj_clap_load_state(PJClapPlugin *plugin, const char *file);
int pj_clap_has_state(PJClapPlugin *plugin);
/// Control thread. Loads a preset through `preset-load` (CLAP_PRESET_DISCOVERY_LOCATION_*);
/// 0 when it has no such extension or refused.
int pj_clap_load_preset(PJClapPlugin *plugin, uint32_t location_kind, const char *location, const char *load_key);

/// Control thread, now and then (the plugin's main thread): due timers fired, registered file
/// descriptors polled (without waiting), a requested callback given (`on_main_thread`), the
/// latency re-read when the plugin said it changed. Returns what the plugin asked for that the
/// host could not do here: bit 0, a restart.
uint32_t pj_clap_idle(PJClapPlugin *plugin);
/// Any thread: the descriptors it registered now.
uint32_t pj_clap_fd_count(PJClapPlugin *plugin);
/// Main thread: milliseconds until its next timer is due (-1: none); its registered descriptor `index`.
int64_t pj_clap_next_timer_ms(PJClapPlugin *plugin);
int pj_clap_fd(PJClapPlugin *plugin, uint32_t index);

/// Real-time safe. The buffer of flat input or output channel `channel` for the next process.
void pj_clap_connect(PJClapPlugin *plugin, int is_input, uint32_t channel, float *buffer);
/// Real-time safe. Events for the next process, at frames from its start (any order: they are
/// put in time order, each kind keeping its own order, before the process). 0 when the list is full.
int pj_clap_add_param(PJClapPlugin *plugin, uint32_t time, uint32_t param_index, double value);
int pj_clap_add_midi(PJClapPlugin *plugin, uint32_t time, uint8_t status, uint8_t data1, uint8_t data2);
/// Where the music stands: `beat` beats since beat 0 at `tempo` BPM (0: no tempo), bars of
/// `beats_per_bar` beats of `beat_unit`, rolling or not; the process's transport when
/// `time` is 0 and none is set yet, a transport event otherwise.
int pj_clap_add_transport(PJClapPlugin *plugin, uint32_t time, double beat, double tempo, double beats_per_bar,
                          int32_t beat_unit, int playing, int64_t bar_number, double bar_start_beat);
/// Real-time safe. Processes `frames` frames (starting processing at the first call on this
/// thread), then empties the event list. Returns the plugin's status (CLAP_PROCESS_*, or -1
/// when it refused to start processing).
int32_t pj_clap_process(PJClapPlugin *plugin, uint32_t frames);
/// Real-time safe. The parameter values the plugin sent out in the last process (its meters:
/// read-only parameters), each into `values[index]`; the others are left as they are.
void pj_clap_take_outputs(PJClapPlugin *plugin, float *values);
/// Real-time safe. The latency read last on the main thread.
uint32_t pj_clap_cached_latency(PJClapPlugin *plugin);


#endif
