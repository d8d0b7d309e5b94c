// pulsejack's own CLAP test plugins, one per behaviour, each a stereo effect with a
// sample-accurate gain (each parameter event applied at its frame, so a host's event times can
// be read in its output), a latency it reports and applies (a delay of `latency` frames), a
// state (its gain, latency, and a count of loads), and a 25 ms timer it counts. "clean" behaves;
// the others behave for their first second of audio, then put out NaN, spin for ever, or crash.
// Built by the tests (Tests/TestSupport/MisbehavingPlugins.swift) against pulsejack's own ABI
// declarations, as any CLAP plugin is built against the specification's.
#define _GNU_SOURCE
#include "../../Sources/CCLAP/include/CLAPABI.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// "instrument" takes notes instead of audio: a note-on is a 1.0 impulse at its frame, a note-off
// a −0.75 one, so a host's note times can be read in its output.
enum behaviour { CLEAN, NAN_OUT, HANG, SEGFAULT, INSTRUMENT, BEHAVIOURS };
static const char *names[BEHAVIOURS] = {"clean", "nan", "hang", "segfault", "instrument"};
static char ids[BEHAVIOURS][64], labels[BEHAVIOURS][64];
static clap_plugin_descriptor_t descriptors[BEHAVIOURS];
static const char *features[] = {"audio-effect", NULL}, *instrument_features[] = {"instrument", NULL};

enum { PARAM_GAIN = 10, PARAM_LATENCY = 11, PARAM_TIMER_FIRES = 12, DELAY_FRAMES = 1 << 16 };

typedef struct {
    clap_plugin_t plugin;
    const clap_host_t *host;
    const clap_host_log_t *log;
    const clap_host_timer_support_t *timers;
    int behaviour;
    double rate, gain, latency, loads;
    uint64_t frames;
    uint32_t timer_fires;
    clap_id timer;
    int pipe[2], asked_callback;
    uint32_t told_fires;
    const clap_host_posix_fd_support_t *fds;
    float *delay[2];
    uint32_t write;
} Plugin;

static Plugin *self_of(const clap_plugin_t *plugin) { return plugin->plugin_data; }

static void crash(void) {
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static bool init(const clap_plugin_t *plugin) {
    Plugin *self = self_of(plugin);
    self->log = self->host->get_extension(self->host, CLAP_EXT_LOG);
    self->timers = self->host->get_extension(self->host, CLAP_EXT_TIMER_SUPPORT);
    const clap_host_thread_check_t *check = self->host->get_extension(self->host, CLAP_EXT_THREAD_CHECK);
    if (check && !check->is_main_thread(self->host) && self->log) {
        self->log->log(self->host, CLAP_LOG_HOST_MISBEHAVING, "init() not on the main thread");
    }
    if (self->timers) self->timers->register_timer(self->host, 25, &self->timer);
    // A descriptor with a byte waiting: the host's control thread finds it readable.
    self->fds = self->host->get_extension(self->host, CLAP_EXT_POSIX_FD_SUPPORT);
    if (self->fds && pipe(self->pipe) == 0 && write(self->pipe[1], "x", 1) == 1) {
        self->fds->register_fd(self->host, self->pipe[0], CLAP_POSIX_FD_READ);
    }
    return true;
}

static void destroy(const clap_plugin_t *plugin) {
    Plugin *self = self_of(plugin);
    if (self->timers) self->timers->unregister_timer(self->host, self->timer);
    if (self->fds && self->pipe[0] > 0) {
        self->fds->unregister_fd(self->host, self->pipe[0]);
        close(self->pipe[0]);
        close(self->pipe[1]);
    }
    free(self->delay[0]);
    free(self->delay[1]);
    free(self);
}

static bool activate(const clap_plugin_t *plugin, double rate, uint32_t min_frames, uint32_t max_frames) {
    (void)min_frames; (void)max_frames;
    Plugin *self = self_of(plugin);
    self->rate = rate;
    for (int c = 0; c < 2; c++) self->delay[c] = calloc(DELAY_FRAMES, sizeof(float));
    if (self->log) {
        char line[128];
        snprintf(line, sizeof line, "activated at %.0f Hz with latency %.0f", rate, self->latency);
        self->log->log(self->host, CLAP_LOG_INFO, line);
    }
    return self->delay[0] && self->delay[1];
}

static void deactivate(const clap_plugin_t *plugin) { (void)plugin; }
static bool start_processing(const clap_plugin_t *plugin) { (void)plugin; return true; }
static void stop_processing(const clap_plugin_t *plugin) { (void)plugin; }
static void reset(const clap_plugin_t *plugin) { (void)plugin; }

static void apply(Plugin *self, const clap_event_header_t *event) {
    if (event->space_id != CLAP_CORE_EVENT_SPACE_ID || event->type != CLAP_EVENT_PARAM_VALUE) return;
    const clap_event_param_value_t *value = (const clap_event_param_value_t *)event;
    if (value->param_id == PARAM_GAIN) self->gain = value->value;
    // The latency is taken at activation only (a change asks for a restart, as the specification says).
    if (value->param_id == PARAM_LATENCY && !self->delay[0]) self->latency = value->value;
}

static void render(Plugin *self, const clap_process_t *process, uint32_t from, uint32_t to) {
    uint32_t latency = (uint32_t)self->latency;
    for (uint32_t i = from; i < to; i++) {
        uint32_t at = (self->write + i) & (DELAY_FRAMES - 1), back = (self->write + i - latency) & (DELAY_FRAMES - 1);
        for (int c = 0; c < 2; c++) {
            const float *in = process->audio_inputs[0].data32[c];
            self->delay[c][at] = in[i] * (float)self->gain;
            process->audio_outputs[0].data32[c][i] = self->delay[c][back];
        }
    }
}

static int32_t play(Plugin *self, const clap_process_t *process) {
    for (int c = 0; c < 2; c++) memset(process->audio_outputs[0].data32[c], 0, process->frames_count * sizeof(float));
    uint32_t count = process->in_events->size(process->in_events);
    for (uint32_t index = 0; index < count; index++) {
        const clap_event_header_t *event = process->in_events->get(process->in_events, index);
        if (event->space_id != CLAP_CORE_EVENT_SPACE_ID || event->time >= process->frames_count) continue;
        float level = event->type == CLAP_EVENT_NOTE_ON ? 1.0f : event->type == CLAP_EVENT_NOTE_OFF ? -0.75f : 0;
        if (event->type == CLAP_EVENT_PARAM_VALUE) apply(self, event);
        for (int c = 0; c < 2 && level != 0; c++) process->audio_outputs[0].data32[c][event->time] = level;
    }
    return CLAP_PROCESS_CONTINUE;
}

static int32_t process(const clap_plugin_t *plugin, const clap_process_t *process) {
    Plugin *self = self_of(plugin);
    if (self->behaviour == INSTRUMENT) return play(self, process);
    const clap_host_thread_check_t *check = self->host->get_extension(self->host, CLAP_EXT_THREAD_CHECK);
    if (check && (!check->is_audio_thread(self->host) || check->is_main_thread(self->host)) && self->log) {
        self->log->log(self->host, CLAP_LOG_HOST_MISBEHAVING, "process() not on the audio thread");
    }
    uint32_t count = process->in_events->size(process->in_events), from = 0;
    for (uint32_t index = 0; index < count; index++) {
        const clap_event_header_t *event = process->in_events->get(process->in_events, index);
        uint32_t at = event->time < process->frames_count ? event->time : process->frames_count;
        if (at > from) { render(self, process, from, at); from = at; }
        apply(self, event);
    }
    render(self, process, from, process->frames_count);
    self->write += process->frames_count;
    if (!self->asked_callback) {
        self->asked_callback = 1;
        self->host->request_callback(self->host);
    }
    if (self->told_fires != self->timer_fires) {
        // The timer's count out as a meter, as a plugin reports a gain reduction.
        self->told_fires = self->timer_fires;
        clap_event_param_value_t out = {{sizeof out, 0, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_PARAM_VALUE, 0}, PARAM_TIMER_FIRES, NULL,
                                        -1, -1, -1, -1, (double)self->told_fires};
        process->out_events->try_push(process->out_events, &out.header);
    }
    int faulty = self->frames >= (uint64_t)self->rate;
    self->frames += process->frames_count;
    if (faulty) {
        switch (self->behaviour) {
        case NAN_OUT:
            for (uint32_t i = 0; i < process->frames_count; i++) process->audio_outputs[0].data32[0][i] = NAN;
            break;
        case HANG: for (volatile int forever = 1; forever;) {} break;
        case SEGFAULT: crash(); break;
        default: break;
        }
    }
    return CLAP_PROCESS_CONTINUE;
}

// MARK: - Extensions

static uint32_t ports_count(const clap_plugin_t *plugin, bool is_input) {
    return is_input && self_of(plugin)->behaviour == INSTRUMENT ? 0 : 1;
}
static bool ports_get(const clap_plugin_t *plugin, uint32_t index, bool is_input, clap_audio_port_info_t *info) {
    if (index >= ports_count(plugin, is_input)) return false;
    info->id = is_input ? 0 : 1;
    snprintf(info->name, sizeof info->name, "%s", is_input ? "In" : "Out");
    info->flags = CLAP_AUDIO_PORT_IS_MAIN;
    info->channel_count = 2;
    info->port_type = "stereo";
    info->in_place_pair = CLAP_INVALID_ID;
    return true;
}

static uint32_t notes_count(const clap_plugin_t *plugin, bool is_input) { return is_input && self_of(plugin)->behaviour == INSTRUMENT; }
static bool notes_get(const clap_plugin_t *plugin, uint32_t index, bool is_input, clap_note_port_info_t *info) {
    if (index >= notes_count(plugin, is_input)) return false;
    *info = (clap_note_port_info_t){0, CLAP_NOTE_DIALECT_CLAP | CLAP_NOTE_DIALECT_MIDI, CLAP_NOTE_DIALECT_CLAP, "Notes"};
    return true;
}

static uint32_t params_count(const clap_plugin_t *plugin) { (void)plugin; return 3; }
static bool params_info(const clap_plugin_t *plugin, uint32_t index, clap_param_info_t *info) {
    (void)plugin;
    memset(info, 0, sizeof *info);
    switch (index) {
    case 0: *info = (clap_param_info_t){PARAM_GAIN, 0, NULL, "Gain", "", 0, 4, 1}; return true;
    case 1: *info = (clap_param_info_t){PARAM_LATENCY, CLAP_PARAM_IS_STEPPED, NULL, "Latency Frames", "", 0, 48000, 0}; return true;
    case 2: *info = (clap_param_info_t){PARAM_TIMER_FIRES, CLAP_PARAM_IS_READONLY, NULL, "Timer Fires", "", 0, 1e9, 0}; return true;
    default: return false;
    }
}
static bool params_value(const clap_plugin_t *plugin, clap_id id, double *value) {
    Plugin *self = self_of(plugin);
    if (id == PARAM_GAIN) *value = self->gain;
    else if (id == PARAM_LATENCY) *value = self->latency;
    else if (id == PARAM_TIMER_FIRES) *value = self->timer_fires;
    else return false;
    return true;
}
static bool params_text(const clap_plugin_t *plugin, clap_id id, double value, char *text, uint32_t capacity) {
    (void)plugin; (void)id;
    snprintf(text, capacity, "%g", value);
    return true;
}
static bool params_parse(const clap_plugin_t *plugin, clap_id id, const char *text, double *value) {
    (void)plugin; (void)id;
    *value = atof(text);
    return true;
}
static void params_flush(const clap_plugin_t *plugin, const clap_input_events_t *in, const clap_output_events_t *out) {
    (void)out;
    for (uint32_t i = 0; i < in->size(in); i++) apply(self_of(plugin), in->get(in, i));
}

static uint32_t latency_get(const clap_plugin_t *plugin) { return (uint32_t)self_of(plugin)->latency; }

static bool state_save(const clap_plugin_t *plugin, const clap_ostream_t *stream) {
    Plugin *self = self_of(plugin);
    double saved[3] = {self->gain, self->latency, self->loads};
    return stream->write(stream, saved, sizeof saved) == sizeof saved;
}
static bool state_load(const clap_plugin_t *plugin, const clap_istream_t *stream) {
    Plugin *self = self_of(plugin);
    double saved[3];
    if (stream->read(stream, saved, sizeof saved) != sizeof saved) return false;
    self->gain = saved[0];
    if (!self->delay[0]) self->latency = saved[1];
    self->loads = saved[2] + 1;
    return true;
}

static void say(Plugin *self, const char *line) { if (self->log) self->log->log(self->host, CLAP_LOG_INFO, line); }

static int on_main(Plugin *self) {
    const clap_host_thread_check_t *check = self->host->get_extension(self->host, CLAP_EXT_THREAD_CHECK);
    return !check || (check->is_main_thread(self->host) && !check->is_audio_thread(self->host));
}

static void on_timer(const clap_plugin_t *plugin, clap_id timer) {
    Plugin *self = self_of(plugin);
    if (timer != self->timer) return;
    if (++self->timer_fires == 10) say(self, on_main(self) ? "timer fired 10 times" : "timer not on the main thread");
}

static void on_fd(const clap_plugin_t *plugin, int fd, uint32_t flags) {
    Plugin *self = self_of(plugin);
    char byte;
    if (fd == self->pipe[0] && (flags & CLAP_POSIX_FD_READ) && read(fd, &byte, 1) == 1) {
        say(self, on_main(self) ? "descriptor readable" : "descriptor not on the main thread");
    }
}

// Two presets inside the plugin ("Quiet" and "Loud": a gain each) and one in a file beside the
// bundle (misbehave-presets/Half.gain: its gain as text), found through preset discovery and
// loaded through preset-load.
static bool load_preset(const clap_plugin_t *plugin, uint32_t kind, const char *location, const char *key) {
    Plugin *self = self_of(plugin);
    if (kind == CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN && key) {
        if (!strcmp(key, "quiet")) { self->gain = 0.25; return true; }
        if (!strcmp(key, "loud")) { self->gain = 3; return true; }
        return false;
    }
    if (kind != CLAP_PRESET_DISCOVERY_LOCATION_FILE || !location) return false;
    FILE *file = fopen(location, "r");
    double gain;
    int read = file ? fscanf(file, "%lf", &gain) : 0;
    if (file) fclose(file);
    if (read != 1) return false;
    self->gain = gain;
    return true;
}

static const void *get_extension(const clap_plugin_t *plugin, const char *id) {
    (void)plugin;
    static const clap_plugin_audio_ports_t ports = {ports_count, ports_get};
    static const clap_plugin_note_ports_t notes = {notes_count, notes_get};
    static const clap_plugin_params_t params = {params_count, params_info, params_value, params_text, params_parse, params_flush};
    static const clap_plugin_latency_t latency = {latency_get};
    static const clap_plugin_state_t state = {state_save, state_load};
    static const clap_plugin_timer_support_t timer = {on_timer};
    static const clap_plugin_posix_fd_support_t fd = {on_fd};
    static const clap_plugin_preset_load_t preset = {load_preset};
    if (!strcmp(id, CLAP_EXT_AUDIO_PORTS)) return &ports;
    if (!strcmp(id, CLAP_EXT_NOTE_PORTS)) return &notes;
    if (!strcmp(id, CLAP_EXT_PARAMS)) return &params;
    if (!strcmp(id, CLAP_EXT_LATENCY)) return &latency;
    if (!strcmp(id, CLAP_EXT_STATE)) return &state;
    if (!strcmp(id, CLAP_EXT_TIMER_SUPPORT)) return &timer;
    if (!strcmp(id, CLAP_EXT_POSIX_FD_SUPPORT)) return &fd;
    if (!strcmp(id, CLAP_EXT_PRESET_LOAD)) return &preset;
    return NULL;
}

static void on_main_thread(const clap_plugin_t *plugin) {
    Plugin *self = self_of(plugin);
    say(self, on_main(self) ? "main-thread callback" : "callback not on the main thread");
}

// MARK: - Factory and entry

static uint32_t count(const clap_plugin_factory_t *factory) { (void)factory; return BEHAVIOURS; }
static const clap_plugin_descriptor_t *descriptor(const clap_plugin_factory_t *factory, uint32_t index) {
    (void)factory;
    return index < BEHAVIOURS ? &descriptors[index] : NULL;
}
static const clap_plugin_t *create(const clap_plugin_factory_t *factory, const clap_host_t *host, const char *id) {
    (void)factory;
    for (int b = 0; b < BEHAVIOURS; b++) {
        if (strcmp(id, ids[b]) != 0) continue;
        Plugin *self = calloc(1, sizeof(Plugin));
        if (!self) return NULL;
        self->host = host;
        self->behaviour = b;
        self->gain = 1;
        self->plugin = (clap_plugin_t){&descriptors[b], self, init, destroy, activate, deactivate, start_processing,
                                       stop_processing, reset, process, get_extension, on_main_thread};
        return &self->plugin;
    }
    return NULL;
}

static const clap_plugin_factory_t factory = {count, descriptor, create};

// MARK: - Preset discovery

static char presets_folder[1024];
static const clap_preset_discovery_provider_descriptor_t provider_descriptor = {{1, 2, 0}, "org.pulsejack.misbehave.presets",
                                                                                "misbehave presets", "pulsejack tests"};
typedef struct { clap_preset_discovery_provider_t provider; const clap_preset_discovery_indexer_t *indexer; } Provider;

static bool provider_init(const clap_preset_discovery_provider_t *provider) {
    const clap_preset_discovery_indexer_t *indexer = ((Provider *)provider->provider_data)->indexer;
    clap_preset_discovery_filetype_t type = {"gain", "a gain as text", "gain"};
    clap_preset_discovery_location_t inside = {0, "factory", CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN, NULL};
    clap_preset_discovery_location_t files = {0, "files", CLAP_PRESET_DISCOVERY_LOCATION_FILE, presets_folder};
    return indexer->declare_filetype(indexer, &type) && indexer->declare_location(indexer, &inside)
        && indexer->declare_location(indexer, &files);
}
static void provider_destroy(const clap_preset_discovery_provider_t *provider) { free(provider->provider_data); }
static bool provider_metadata(const clap_preset_discovery_provider_t *provider, uint32_t kind, const char *location,
                              const clap_preset_discovery_metadata_receiver_t *receiver) {
    (void)provider;
    clap_universal_plugin_id_t clean = {"clap", ids[CLEAN]}, other = {"vst3", "nothing"};
    if (kind == CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN) {
        receiver->begin_preset(receiver, "Quiet", "quiet");
        receiver->add_plugin_id(receiver, &clean);
        receiver->begin_preset(receiver, "Loud", "loud");
        receiver->add_plugin_id(receiver, &clean);
        receiver->begin_preset(receiver, "Elsewhere", "elsewhere");  // for another plugin: not listed
        receiver->add_plugin_id(receiver, &other);
        return true;
    }
    const char *slash = strrchr(location, '/'), *dot = strrchr(location, '.');
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(dot - slash - 1), slash + 1);
    receiver->begin_preset(receiver, name, NULL);
    receiver->add_plugin_id(receiver, &clean);
    return true;
}
static const void *provider_extension(const clap_preset_discovery_provider_t *provider, const char *id) {
    (void)provider; (void)id;
    return NULL;
}
static uint32_t provider_count(const clap_preset_discovery_factory_t *factory) { (void)factory; return 1; }
static const clap_preset_discovery_provider_descriptor_t *provider_get(const clap_preset_discovery_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &provider_descriptor : NULL;
}
static const clap_preset_discovery_provider_t *provider_create(const clap_preset_discovery_factory_t *factory,
                                                               const clap_preset_discovery_indexer_t *indexer, const char *id) {
    (void)factory;
    if (strcmp(id, provider_descriptor.id) != 0) return NULL;
    Provider *made = calloc(1, sizeof(Provider));
    if (!made) return NULL;
    made->indexer = indexer;
    made->provider = (clap_preset_discovery_provider_t){&provider_descriptor, made, provider_init, provider_destroy,
                                                         provider_metadata, provider_extension};
    return &made->provider;
}
static const clap_preset_discovery_factory_t discovery = {provider_count, provider_get, provider_create};

static bool entry_init(const char *path) {
    const char *slash = strrchr(path, '/');
    snprintf(presets_folder, sizeof presets_folder, "%.*s/misbehave-presets", slash ? (int)(slash - path) : 1, slash ? path : ".");
    for (int b = 0; b < BEHAVIOURS; b++) {
        snprintf(ids[b], sizeof ids[b], "org.pulsejack.misbehave.%s", names[b]);
        snprintf(labels[b], sizeof labels[b], "Misbehaving CLAP %s", names[b]);
        descriptors[b] = (clap_plugin_descriptor_t){{1, 2, 0}, ids[b], labels[b], "pulsejack tests", "", "", "", "1.0",
                                                    "a test plugin", b == INSTRUMENT ? instrument_features : features};
    }
    return true;
}
static void entry_deinit(void) {}
static const void *get_factory(const char *id) {
    if (!strcmp(id, CLAP_PLUGIN_FACTORY_ID)) return &factory;
    if (!strcmp(id, CLAP_PRESET_DISCOVERY_FACTORY_ID)) return &discovery;
    return NULL;
}

__attribute__((visibility("default"))) const clap_plugin_entry_t clap_entry = {{1, 2, 0}, entry_init, entry_deinit, get_factory};
