#define _GNU_SOURCE
#include "CLAPHost.h"

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


// MARK: - Bundles and the catalog (control threads, behind one mutex)

enum { MAX_BUNDLES = 256, MAX_PLUGINS = 2048 };

typedef struct {
    char *path;
    void *library;
    const clap_plugin_entry_t *entry;
    const clap_plugin_factory_t *factory;
} Bundle;

static pthread_mutex_t catalog_lock = PTHREAD_MUTEX_INITIALIZER;
static Bundle bundles[MAX_BUNDLES];
static uint32_t bundle_count;
static struct { PJClapDescriptor descriptor; uint32_t bundle; } plugins[MAX_PLUGINS];
static uint32_t plugin_count;

static int has_feature(const clap_plugin_descriptor_t *descriptor, const char *feature) {
    for (const char *const *each = descriptor->features; each && *each; each++) if (strcmp(*each, feature) == 0) return 1;
    return 0;
}

static const char *or_empty(const char *text) { return text ? text : ""; }

int pj_clap_load_bundle(const char *path, char *error, size_t capacity) {
    pthread_mutex_lock(&catalog_lock);
    for (uint32_t index = 0; index < bundle_count; index++) {
        if (strcmp(bundles[index].path, path) == 0) { pthread_mutex_unlock(&catalog_lock); return 0; }
    }
    int status = -1;
    // The bundle stays loaded for the process's life (its deinit is never called): a plugin's
    // library unloaded under a thread it left running crashes later, far from the cause.
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const clap_plugin_entry_t *entry = library ? dlsym(library, "clap_entry") : NULL;
    if (!library) {
        snprintf(error, capacity, "%s", dlerror());
    } else if (!entry) {
        snprintf(error, capacity, "%s exports no clap_entry", path);
    } else if (entry->clap_version.major != 1) {
        snprintf(error, capacity, "%s is CLAP %u.%u.%u; pulsejack hosts CLAP 1.x", path, entry->clap_version.major,
                 entry->clap_version.minor, entry->clap_version.revision);
    } else if (bundle_count == MAX_BUNDLES) {
        snprintf(error, capacity, "more than %d CLAP bundles", MAX_BUNDLES);
    } else if (!entry->init(path)) {
        snprintf(error, capacity, "%s: its clap_entry.init refused", path);
    } else {
        const clap_plugin_factory_t *factory = entry->get_factory(CLAP_PLUGIN_FACTORY_ID);
        if (!factory) {
            snprintf(error, capacity, "%s offers no plugin factory", path);
        } else {
            uint32_t bundle = bundle_count++;
            bundles[bundle] = (Bundle){strdup(path), library, entry, factory};
            uint32_t count = factory->get_plugin_count(factory);
            for (uint32_t index = 0; index < count && plugin_count < MAX_PLUGINS; index++) {
                const clap_plugin_descriptor_t *d = factory->get_plugin_descriptor(factory, index);
                if (!d || !d->id) continue;
                plugins[plugin_count].descriptor = (PJClapDescriptor){
                    d->id, d->name ? d->name : d->id, or_empty(d->vendor), or_empty(d->version), or_empty(d->description),
                    bundles[bundle].path, has_feature(d, "instrument")};
                plugins[plugin_count++].bundle = bundle;
            }
            status = 0;
        }
    }
    pthread_mutex_unlock(&catalog_lock);
    return status;
}

uint32_t pj_clap_catalog_count(void) {
    pthread_mutex_lock(&catalog_lock);
    uint32_t count = plugin_count;
    pthread_mutex_unlock(&catalog_lock);
    return count;
}

PJClapDescriptor pj_clap_catalog_entry(uint32_t index) {
    pthread_mutex_lock(&catalog_lock);
    PJClapDescriptor descriptor = index < plugin_count ? plugins[index].descriptor : (PJClapDescriptor){0};
    pthread_mutex_unlock(&catalog_lock);
    return descriptor;
}

// MARK: - An instance

typedef union {
    clap_event_header_t header;
    clap_event_note_t note;
    clap_event_param_value_t param;
    clap_event_midi_t midi;
    clap_event_transport_t transport;
} Event;

enum { MAX_TIMERS = 32, MAX_FDS = 32, MAX_PORTS = 16 };

typedef struct { clap_id id; uint32_t period_ms; uint64_t due_ms; int used; } Timer;
typedef struct { int fd; uint32_t flags; } Descriptor;

struct PJClapPlugin {
    clap_host_t host;
    const clap_plugin_t *plugin;
    void *log_host;
    PJClapLogLine log_line;
    const clap_plugin_params_t *params;
    const clap_plugin_audio_ports_t *audio_ports;
    const clap_plugin_note_ports_t *note_ports;
    const clap_plugin_state_t *state;
    const clap_plugin_latency_t *latency;
    const clap_plugin_timer_support_t *timer_support;
    const clap_plugin_posix_fd_support_t *fd_support;
    const clap_plugin_preset_load_t *preset_load;

    clap_param_info_t *param_infos;
    uint32_t param_count;
    // Values the plugin sent as output events in this process (read-only parameters: meters).
    double *param_outputs;
    uint8_t *param_output_set;

    // Audio: each port's channel pointers, the flat channels in port order.
    clap_audio_buffer_t inputs[MAX_PORTS], outputs[MAX_PORTS];
    uint32_t input_ports, output_ports, input_channels, output_channels;
    float **input_pointers, **output_pointers;
    float *silence;
    uint32_t max_frames;

    uint32_t note_inputs;
    int16_t note_port;
    int note_midi;

    // This process's events, and their order (a stable sort by time before the process).
    Event *events;
    uint32_t *order;
    uint32_t event_capacity, event_count;
    clap_event_transport_t transport;
    int has_transport;
    clap_input_events_t in_events;
    clap_output_events_t out_events;
    int64_t steady_time;

    int activated, processing, process_refused;
    _Atomic uint32_t cached_latency;
    _Atomic int latency_changed, callback_requested, restart_requested;

    pthread_t creator;
    Timer timers[MAX_TIMERS];
    clap_id next_timer;
    Descriptor fds[MAX_FDS];
    _Atomic uint32_t fd_count;
};

// The threads, as the plugin asks (thread-check): the thread inside a main-thread call, or the
// one that made it; the thread inside `process`.
static _Thread_local int in_main_call;
static _Thread_local int in_audio_call;

static PJClapPlugin *from(const clap_host_t *host) { return host->host_data; }

static bool is_main_thread(const clap_host_t *host) {
    return !in_audio_call && (in_main_call || pthread_equal(pthread_self(), from(host)->creator));
}
static bool is_audio_thread(const clap_host_t *host) { (void)host; return in_audio_call != 0; }

static void host_log(const clap_host_t *host, int32_t severity, const char *message) {
    if (severity == CLAP_LOG_DEBUG) return;
    // The queue is lock-free and fixed: safe from `process`.
    PJClapPlugin *p = from(host);
    if (p->log_line) p->log_line(p->log_host, severity, message ? message : "");
}

static void request_restart(const clap_host_t *host) { atomic_store(&from(host)->restart_requested, 1); }
static void request_process(const clap_host_t *host) { (void)host; }  // it is always processed
static void request_callback(const clap_host_t *host) { atomic_store(&from(host)->callback_requested, 1); }
static void latency_changed(const clap_host_t *host) { atomic_store(&from(host)->latency_changed, 1); }
// pulsejack runs every insert every period, whether or not its voice sounds: no tail is cut short, so none is asked for.
static void tail_changed(const clap_host_t *host) { (void)host; }
static void state_dirty(const clap_host_t *host) { (void)host; }
static void params_rescan(const clap_host_t *host, uint32_t flags) { (void)host; (void)flags; }
static void params_clear(const clap_host_t *host, clap_id id, uint32_t flags) { (void)host; (void)id; (void)flags; }
static void params_request_flush(const clap_host_t *host) { (void)host; }  // processed every period
static bool ports_rescan_supported(const clap_host_t *host, uint32_t flag) { (void)host; (void)flag; return false; }
static void ports_rescan(const clap_host_t *host, uint32_t flags) { (void)flags; atomic_store(&from(host)->restart_requested, 1); }
static uint32_t note_dialects(const clap_host_t *host) { (void)host; return CLAP_NOTE_DIALECT_CLAP | CLAP_NOTE_DIALECT_MIDI; }
static void note_rescan(const clap_host_t *host, uint32_t flags) { (void)host; (void)flags; }

static uint64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

static bool register_timer(const clap_host_t *host, uint32_t period_ms, clap_id *timer_id) {
    PJClapPlugin *p = from(host);
    if (!is_main_thread(host) || !timer_id) return false;
    for (int index = 0; index < MAX_TIMERS; index++) {
        if (p->timers[index].used) continue;
        uint32_t period = period_ms < 10 ? 10 : period_ms;
        p->timers[index] = (Timer){p->next_timer++, period, now_ms() + period, 1};
        *timer_id = p->timers[index].id;
        return true;
    }
    return false;
}

static bool unregister_timer(const clap_host_t *host, clap_id timer_id) {
    PJClapPlugin *p = from(host);
    for (int index = 0; index < MAX_TIMERS; index++) {
        if (p->timers[index].used && p->timers[index].id == timer_id) {
            p->timers[index].used = 0;
            return true;
        }
    }
    return false;
}

static int find_fd(PJClapPlugin *p, int fd) {
    for (uint32_t index = 0; index < atomic_load(&p->fd_count); index++) if (p->fds[index].fd == fd) return (int)index;
    return -1;
}

static bool register_fd(const clap_host_t *host, int fd, uint32_t flags) {
    PJClapPlugin *p = from(host);
    uint32_t count = atomic_load(&p->fd_count);
    if (!is_main_thread(host) || fd < 0 || find_fd(p, fd) >= 0 || count == MAX_FDS) return false;
    p->fds[count] = (Descriptor){fd, flags};
    atomic_store(&p->fd_count, count + 1);
    return true;
}

static bool modify_fd(const clap_host_t *host, int fd, uint32_t flags) {
    PJClapPlugin *p = from(host);
    int index = find_fd(p, fd);
    if (index < 0) return false;
    p->fds[index].flags = flags;
    return true;
}

static bool unregister_fd(const clap_host_t *host, int fd) {
    PJClapPlugin *p = from(host);
    int index = find_fd(p, fd);
    if (index < 0) return false;
    uint32_t count = atomic_load(&p->fd_count);
    p->fds[index] = p->fds[count - 1];
    atomic_store(&p->fd_count, count - 1);
    return true;
}

static const clap_host_log_t log_extension = {host_log};
static const clap_host_thread_check_t thread_check_extension = {is_main_thread, is_audio_thread};
static const clap_host_latency_t latency_extension = {latency_changed};
static const clap_host_tail_t tail_extension = {tail_changed};
static const clap_host_state_t state_extension = {state_dirty};
static const clap_host_params_t params_extension = {params_rescan, params_clear, params_request_flush};
static const clap_host_audio_ports_t audio_ports_extension = {ports_rescan_supported, ports_rescan};
static const clap_host_note_ports_t note_ports_extension = {note_dialects, note_rescan};
static const clap_host_timer_support_t timer_extension = {register_timer, unregister_timer};
static const clap_host_posix_fd_support_t fd_extension = {register_fd, modify_fd, unregister_fd};

static const void *host_extension(const clap_host_t *host, const char *id) {
    (void)host;
    if (!id) return NULL;
    if (!strcmp(id, CLAP_EXT_LOG)) return &log_extension;
    if (!strcmp(id, CLAP_EXT_THREAD_CHECK)) return &thread_check_extension;
    if (!strcmp(id, CLAP_EXT_LATENCY)) return &latency_extension;
    if (!strcmp(id, CLAP_EXT_TAIL)) return &tail_extension;
    if (!strcmp(id, CLAP_EXT_STATE)) return &state_extension;
    if (!strcmp(id, CLAP_EXT_PARAMS)) return &params_extension;
    if (!strcmp(id, CLAP_EXT_AUDIO_PORTS)) return &audio_ports_extension;
    if (!strcmp(id, CLAP_EXT_NOTE_PORTS)) return &note_ports_extension;
    if (!strcmp(id, CLAP_EXT_TIMER_SUPPORT)) return &timer_extension;
    if (!strcmp(id, CLAP_EXT_POSIX_FD_SUPPORT)) return &fd_extension;
    return NULL;
}

// MARK: - Event lists

static uint32_t events_size(const clap_input_events_t *list) { return ((PJClapPlugin *)list->ctx)->event_count; }

static const clap_event_header_t *events_get(const clap_input_events_t *list, uint32_t index) {
    PJClapPlugin *p = list->ctx;
    return index < p->event_count ? &p->events[p->order[index]].header : NULL;
}

static bool output_push(const clap_output_events_t *list, const clap_event_header_t *event) {
    PJClapPlugin *p = list->ctx;
    if (event && event->space_id == CLAP_CORE_EVENT_SPACE_ID && event->type == CLAP_EVENT_PARAM_VALUE) {
        const clap_event_param_value_t *value = (const clap_event_param_value_t *)event;
        // A meter's reading as a float: NaN, infinities and values beyond float are refused.
        if (!(value->value == value->value) || value->value > 3e38 || value->value < -3e38) return true;
        for (uint32_t index = 0; index < p->param_count; index++) {
            if (p->param_infos[index].id != value->param_id) continue;
            p->param_outputs[index] = value->value;
            p->param_output_set[index] = 1;
            break;
        }
    }
    return true;
}

/// Real-time safe. The next free event, or NULL (counted) when the list is full.
static Event *next_event(PJClapPlugin *p, uint32_t time, uint16_t type, uint32_t size) {
    if (p->event_count == p->event_capacity) return NULL;
    uint32_t index = p->event_count;
    p->order[index] = index;
    p->event_count++;
    Event *event = &p->events[index];
    memset(event, 0, sizeof *event);
    event->header = (clap_event_header_t){size, time, CLAP_CORE_EVENT_SPACE_ID, type, CLAP_EVENT_IS_LIVE};
    return event;
}

/// Real-time safe. A stable insertion sort of the order by time: the lists come nearly sorted
/// (each kind in order), so it is close to one pass; bounded by the capacity.
static void sort_events(PJClapPlugin *p) {
    for (uint32_t i = 1; i < p->event_count; i++) {
        uint32_t moving = p->order[i], time = p->events[moving].header.time, j = i;
        while (j > 0 && p->events[p->order[j - 1]].header.time > time) { p->order[j] = p->order[j - 1]; j--; }
        p->order[j] = moving;
    }
}

// MARK: - Making and freeing

static void describe_audio(PJClapPlugin *p) {
    for (int is_input = 1; is_input >= 0; is_input--) {
        uint32_t ports = p->audio_ports ? p->audio_ports->count(p->plugin, is_input) : 0, channels = 0, kept = 0;
        clap_audio_buffer_t *buffers = is_input ? p->inputs : p->outputs;
        for (uint32_t index = 0; index < ports && kept < MAX_PORTS; index++) {
            clap_audio_port_info_t info;
            memset(&info, 0, sizeof info);
            if (!p->audio_ports->get(p->plugin, index, is_input, &info)) continue;
            buffers[kept++] = (clap_audio_buffer_t){NULL, NULL, info.channel_count, 0, 0};
            channels += info.channel_count;
        }
        if (is_input) { p->input_ports = kept; p->input_channels = channels; }
        else { p->output_ports = kept; p->output_channels = channels; }
    }
}

static int allocate_buffers(PJClapPlugin *p) {
    p->input_pointers = calloc(p->input_channels + 1, sizeof(float *));
    p->output_pointers = calloc(p->output_channels + 1, sizeof(float *));
    p->silence = calloc(p->max_frames, sizeof(float));
    p->events = calloc(p->event_capacity, sizeof(Event));
    p->order = calloc(p->event_capacity, sizeof(uint32_t));
    if (!p->input_pointers || !p->output_pointers || !p->silence || !p->events || !p->order) return 0;
    float **next = p->input_pointers;
    for (uint32_t port = 0; port < p->input_ports; port++) { p->inputs[port].data32 = next; next += p->inputs[port].channel_count; }
    next = p->output_pointers;
    for (uint32_t port = 0; port < p->output_ports; port++) { p->outputs[port].data32 = next; next += p->outputs[port].channel_count; }
    // Unconnected channels read silence and write into a scratch buffer.
    for (uint32_t channel = 0; channel < p->input_channels; channel++) p->input_pointers[channel] = p->silence;
    for (uint32_t channel = 0; channel < p->output_channels; channel++) p->output_pointers[channel] = p->silence;
    return 1;
}

static void describe_params(PJClapPlugin *p) {
    uint32_t count = p->params ? p->params->count(p->plugin) : 0;
    p->param_infos = calloc(count ? count : 1, sizeof(clap_param_info_t));
    p->param_outputs = calloc(count ? count : 1, sizeof(double));
    p->param_output_set = calloc(count ? count : 1, 1);
    for (uint32_t index = 0; index < count; index++) {
        clap_param_info_t info;
        memset(&info, 0, sizeof info);
        if (!p->params->get_info(p->plugin, index, &info)) continue;
        info.name[CLAP_NAME_SIZE - 1] = 0;
        info.module[CLAP_PATH_SIZE - 1] = 0;
        p->param_infos[p->param_count++] = info;
    }
}

static void describe_notes(PJClapPlugin *p) {
    p->note_inputs = p->note_ports ? p->note_ports->count(p->plugin, true) : 0;
    if (p->note_inputs > 0) {
        clap_note_port_info_t info;
        memset(&info, 0, sizeof info);
        if (p->note_ports->get(p->plugin, 0, true, &info)) {
            p->note_midi = (info.supported_dialects & CLAP_NOTE_DIALECT_MIDI) && !(info.supported_dialects & CLAP_NOTE_DIALECT_CLAP);
        }
    }
}

const clap_plugin_entry_t *pj_clap_entry_for(const char *id) {
    const clap_plugin_entry_t *entry = NULL;
    pthread_mutex_lock(&catalog_lock);
    for (uint32_t index = 0; index < plugin_count && !entry; index++) {
        if (strcmp(plugins[index].descriptor.id, id) == 0) entry = bundles[plugins[index].bundle].entry;
    }
    pthread_mutex_unlock(&catalog_lock);
    return entry;
}

static const clap_plugin_factory_t *factory_for(const char *id) {
    const clap_plugin_factory_t *factory = NULL;
    pthread_mutex_lock(&catalog_lock);
    for (uint32_t index = 0; index < plugin_count && !factory; index++) {
        if (strcmp(plugins[index].descriptor.id, id) == 0) factory = bundles[plugins[index].bundle].factory;
    }
    pthread_mutex_unlock(&catalog_lock);
    return factory;
}

#define EXTENSION(p, id) ((p)->plugin->get_extension ? (p)->plugin->get_extension((p)->plugin, id) : NULL)

PJClapPlugin *pj_clap_new(const char *id, void *log_host, PJClapLogLine log_line, uint32_t max_frames, uint32_t event_capacity,
                          char *error, size_t capacity) {
    const clap_plugin_factory_t *factory = factory_for(id);
    if (!factory) { snprintf(error, capacity, "no CLAP plugin has the id %s", id); return NULL; }
    PJClapPlugin *p = calloc(1, sizeof *p);
    if (!p) { snprintf(error, capacity, "out of memory"); return NULL; }
    p->host = (clap_host_t){{1, 2, 0}, p, "pulsejack", "pulsejack", "https://github.com/pulsejack", "1.0",
                            host_extension, request_restart, request_process, request_callback};
    p->log_host = log_host;
    p->log_line = log_line;
    p->max_frames = max_frames ? max_frames : 1;
    p->event_capacity = event_capacity ? event_capacity : 1;
    p->creator = pthread_self();
    p->next_timer = 1;
    p->in_events = (clap_input_events_t){p, events_size, events_get};
    p->out_events = (clap_output_events_t){p, output_push};
    in_main_call++;
    p->plugin = factory->create_plugin(factory, &p->host, id);
    if (!p->plugin) {
        snprintf(error, capacity, "its factory would not create %s", id);
    } else if (!p->plugin->init(p->plugin)) {
        snprintf(error, capacity, "%s: its init() refused", id);
        p->plugin->destroy(p->plugin);
        p->plugin = NULL;
    } else {
        p->params = EXTENSION(p, CLAP_EXT_PARAMS);
        p->audio_ports = EXTENSION(p, CLAP_EXT_AUDIO_PORTS);
        p->note_ports = EXTENSION(p, CLAP_EXT_NOTE_PORTS);
        p->state = EXTENSION(p, CLAP_EXT_STATE);
        p->latency = EXTENSION(p, CLAP_EXT_LATENCY);
        p->timer_support = EXTENSION(p, CLAP_EXT_TIMER_SUPPORT);
        p->fd_support = EXTENSION(p, CLAP_EXT_POSIX_FD_SUPPORT);
        p->preset_load = EXTENSION(p, CLAP_EXT_PRESET_LOAD);
        if (!p->preset_load) p->preset_load = EXTENSION(p, CLAP_EXT_PRESET_LOAD_COMPAT);
        describe_audio(p);
        describe_params(p);
        describe_notes(p);
        if (!allocate_buffers(p)) snprintf(error, capacity, "out of memory");
    }
    in_main_call--;
    if (!p->plugin || !p->events || !p->param_outputs || !p->param_output_set) { pj_clap_free(p); return NULL; }
    return p;
}

void pj_clap_free(PJClapPlugin *p) {
    if (!p) return;
    in_main_call++;
    if (p->plugin) {
        // Processing is stopped on the thread that started it when it can be; a plugin whose
        // audio thread is gone is stopped here, which the specification tolerates at teardown.
        if (p->processing) { in_audio_call++; p->plugin->stop_processing(p->plugin); in_audio_call--; }
        if (p->activated) p->plugin->deactivate(p->plugin);
        p->plugin->destroy(p->plugin);
    }
    in_main_call--;
    free(p->param_infos);
    free(p->param_outputs);
    free(p->param_output_set);
    free(p->input_pointers);
    free(p->output_pointers);
    free(p->silence);
    free(p->events);
    free(p->order);
    free(p);
}

// MARK: - Describing

uint32_t pj_clap_audio_channels(PJClapPlugin *p, int is_input) { return is_input ? p->input_channels : p->output_channels; }
uint32_t pj_clap_param_count(PJClapPlugin *p) { return p->param_count; }

int pj_clap_param(PJClapPlugin *p, uint32_t index, PJClapParam *param) {
    if (index >= p->param_count) return 0;
    const clap_param_info_t *info = &p->param_infos[index];
    param->id = info->id;
    param->flags = info->flags;
    memcpy(param->name, info->name, CLAP_NAME_SIZE);
    memcpy(param->module, info->module, CLAP_PATH_SIZE);
    param->minimum = info->min_value;
    param->maximum = info->max_value;
    param->default_value = info->default_value;
    return 1;
}

int pj_clap_param_value(PJClapPlugin *p, uint32_t index, double *value) {
    if (index >= p->param_count || !p->params) return 0;
    in_main_call++;
    int ok = p->params->get_value(p->plugin, p->param_infos[index].id, value);
    in_main_call--;
    return ok;
}

uint32_t pj_clap_note_inputs(PJClapPlugin *p) { return p->note_inputs; }
int pj_clap_note_input_takes_midi(PJClapPlugin *p) { return p->note_midi; }

// MARK: - Main thread

int pj_clap_activate(PJClapPlugin *p, double sample_rate) {
    if (p->activated) return 1;
    in_main_call++;
    p->activated = p->plugin->activate(p->plugin, sample_rate, 1, p->max_frames);
    if (p->activated) atomic_store(&p->cached_latency, p->latency ? p->latency->get(p->plugin) : 0);
    atomic_store(&p->latency_changed, 0);
    in_main_call--;
    return p->activated;
}

void pj_clap_flush(PJClapPlugin *p) {
    if (p->processing) return;
    in_main_call++;
    sort_events(p);
    if (p->params && p->params->flush && p->event_count > 0) p->params->flush(p->plugin, &p->in_events, &p->out_events);
    p->event_count = 0;
    p->has_transport = 0;
    in_main_call--;
}

uint32_t pj_clap_latency(PJClapPlugin *p) {
    if (p->latency && p->activated) {
        in_main_call++;
        atomic_store(&p->cached_latency, p->latency->get(p->plugin));
        in_main_call--;
    }
    return atomic_load(&p->cached_latency);
}

static int64_t write_file(const clap_ostream_t *stream, const void *buffer, uint64_t size) {
    return fwrite(buffer, 1, size, stream->ctx) == size ? (int64_t)size : -1;
}

static int64_t read_file(const clap_istream_t *stream, void *buffer, uint64_t size) {
    size_t count = fread(buffer, 1, size, stream->ctx);
    return count == 0 && ferror(stream->ctx) ? -1 : (int64_t)count;
}

int pj_clap_has_state(PJClapPlugin *p) { return p->state != NULL; }

int pj_clap_save_state(PJClapPlugin *p, const char *file) {
    if (!p->state) return 0;
    FILE *out = fopen(file, "wb");
    if (!out) return 0;
    clap_ostream_t stream = {out, write_file};
    in_main_call++;
    int ok = p->state->save(p->plugin, &stream);
    in_main_call--;
    return fclose(out) == 0 && ok;
}

int pj_clap_load_state(PJClapPlugin *p, const char *file) {
    if (!p->state) return 0;
    FILE *in = fopen(file, "rb");
    if (!in) return 0;
    clap_istream_t stream = {in, read_file};
    in_main_call++;
    int ok = p->state->load(p->plugin, &stream);
    in_main_call--;
    fclose(in);
    return ok;
}

int pj_clap_load_preset(PJClapPlugin *p, uint32_t location_kind, const char *location, const char *load_key) {
    if (!p->preset_load) return 0;
    in_main_call++;
    int ok = p->preset_load->from_location(p->plugin, location_kind, location, load_key);
    in_main_call--;
    return ok;
}

uint32_t pj_clap_idle(PJClapPlugin *p) {
    in_main_call++;
    uint64_t now = now_ms();
    for (int index = 0; index < MAX_TIMERS; index++) {
        Timer *timer = &p->timers[index];
        if (!timer->used || now < timer->due_ms) continue;
        timer->due_ms = now + timer->period_ms;
        if (p->timer_support) p->timer_support->on_timer(p->plugin, timer->id);
    }
    uint32_t count = atomic_load(&p->fd_count);
    if (count > 0 && p->fd_support) {
        struct pollfd polled[MAX_FDS];
        for (uint32_t index = 0; index < count; index++) {
            short events = 0;
            if (p->fds[index].flags & CLAP_POSIX_FD_READ) events |= POLLIN;
            if (p->fds[index].flags & CLAP_POSIX_FD_WRITE) events |= POLLOUT;
            polled[index] = (struct pollfd){p->fds[index].fd, events, 0};
        }
        if (poll(polled, count, 0) > 0) {
            for (uint32_t index = 0; index < count; index++) {
                uint32_t flags = 0;
                if (polled[index].revents & POLLIN) flags |= CLAP_POSIX_FD_READ;
                if (polled[index].revents & POLLOUT) flags |= CLAP_POSIX_FD_WRITE;
                if (polled[index].revents & (POLLERR | POLLHUP)) flags |= CLAP_POSIX_FD_ERROR;
                if (flags) p->fd_support->on_fd(p->plugin, polled[index].fd, flags);
            }
        }
    }
    if (atomic_exchange(&p->callback_requested, 0) && p->plugin->on_main_thread) p->plugin->on_main_thread(p->plugin);
    if (atomic_exchange(&p->latency_changed, 0) && p->latency && p->activated) {
        atomic_store(&p->cached_latency, p->latency->get(p->plugin));
    }
    in_main_call--;
    return atomic_exchange(&p->restart_requested, 0) ? 1u : 0u;
}


int64_t pj_clap_next_timer_ms(PJClapPlugin *p) {
    uint64_t now = now_ms();
    int64_t soonest = -1;
    for (int index = 0; index < MAX_TIMERS; index++) {
        if (!p->timers[index].used) continue;
        int64_t wait = p->timers[index].due_ms > now ? (int64_t)(p->timers[index].due_ms - now) : 0;
        if (soonest < 0 || wait < soonest) soonest = wait;
    }
    return soonest;
}

int pj_clap_fd(PJClapPlugin *p, uint32_t index) { return index < atomic_load(&p->fd_count) ? p->fds[index].fd : -1; }
uint32_t pj_clap_fd_count(PJClapPlugin *p) { return atomic_load(&p->fd_count); }

// MARK: - Audio thread

void pj_clap_connect(PJClapPlugin *p, int is_input, uint32_t channel, float *buffer) {
    if (!buffer) buffer = p->silence;
    if (is_input && channel < p->input_channels) p->input_pointers[channel] = buffer;
    else if (!is_input && channel < p->output_channels) p->output_pointers[channel] = buffer;
}

int pj_clap_add_param(PJClapPlugin *p, uint32_t time, uint32_t index, double value) {
    if (index >= p->param_count) return 0;
    Event *event = next_event(p, time, CLAP_EVENT_PARAM_VALUE, sizeof(clap_event_param_value_t));
    if (!event) return 0;
    event->param.param_id = p->param_infos[index].id;
    event->param.cookie = p->param_infos[index].cookie;
    event->param.note_id = -1;
    event->param.port_index = -1;
    event->param.channel = -1;
    event->param.key = -1;
    event->param.value = value;
    return 1;
}

int pj_clap_add_midi(PJClapPlugin *p, uint32_t time, uint8_t status, uint8_t data1, uint8_t data2) {
    if (p->note_inputs == 0) return 0;
    uint8_t kind = status & 0xF0;
    int note_on = kind == 0x90 && data2 > 0, note_off = kind == 0x80 || (kind == 0x90 && data2 == 0);
    if (!p->note_midi && (note_on || note_off)) {
        Event *event = next_event(p, time, note_on ? CLAP_EVENT_NOTE_ON : CLAP_EVENT_NOTE_OFF, sizeof(clap_event_note_t));
        if (!event) return 0;
        event->note = (clap_event_note_t){event->header, -1, 0, (int16_t)(status & 0x0F), (int16_t)(data1 & 0x7F),
                                          (double)data2 / 127.0};
        return 1;
    }
    Event *event = next_event(p, time, CLAP_EVENT_MIDI, sizeof(clap_event_midi_t));
    if (!event) return 0;
    event->midi.port_index = 0;
    event->midi.data[0] = status;
    event->midi.data[1] = data1;
    event->midi.data[2] = data2;
    return 1;
}

/// A beat count as CLAP's fixed point (2^31 a beat), bounded: a double out of int64's range is
/// undefined behaviour in C, and a beat past 2^31 is no position a plugin can use.
static int64_t beattime(double beats) {
    const double limit = 4e9;
    if (!(beats == beats)) return 0;
    beats = beats > limit ? limit : beats < -limit ? -limit : beats;
    return (int64_t)(beats * (double)CLAP_BEATTIME_FACTOR);
}

static void fill_transport(clap_event_transport_t *t, double beat, double tempo, double beats_per_bar, int32_t beat_unit,
                           int playing, int64_t bar_number, double bar_start_beat) {
    t->flags = CLAP_TRANSPORT_HAS_BEATS_TIMELINE | CLAP_TRANSPORT_HAS_TIME_SIGNATURE;
    if (tempo > 0 && tempo < 1e6) t->flags |= CLAP_TRANSPORT_HAS_TEMPO;
    if (playing) t->flags |= CLAP_TRANSPORT_IS_PLAYING;
    t->song_pos_beats = beattime(beat);
    t->tempo = tempo;
    t->bar_start = beattime(bar_start_beat);
    t->bar_number = (int32_t)(bar_number > INT32_MAX ? INT32_MAX : bar_number < INT32_MIN ? INT32_MIN : bar_number);
    t->tsig_num = (uint16_t)(beats_per_bar >= 1 && beats_per_bar < 65536 ? beats_per_bar : 4);
    t->tsig_denom = (uint16_t)(beat_unit > 0 && beat_unit < 65536 ? beat_unit : 4);
}

int pj_clap_add_transport(PJClapPlugin *p, uint32_t time, double beat, double tempo, double beats_per_bar, int32_t beat_unit,
                          int playing, int64_t bar_number, double bar_start_beat) {
    if (time == 0 && !p->has_transport) {
        memset(&p->transport, 0, sizeof p->transport);
        p->transport.header = (clap_event_header_t){sizeof p->transport, 0, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_TRANSPORT, 0};
        fill_transport(&p->transport, beat, tempo, beats_per_bar, beat_unit, playing, bar_number, bar_start_beat);
        p->has_transport = 1;
        return 1;
    }
    Event *event = next_event(p, time, CLAP_EVENT_TRANSPORT, sizeof(clap_event_transport_t));
    if (!event) return 0;
    fill_transport(&event->transport, beat, tempo, beats_per_bar, beat_unit, playing, bar_number, bar_start_beat);
    return 1;
}

int32_t pj_clap_process(PJClapPlugin *p, uint32_t frames) {
    int32_t status = -1;
    in_audio_call++;
    if (!p->processing && !p->process_refused && p->activated) {
        p->processing = p->plugin->start_processing(p->plugin);
        p->process_refused = !p->processing;
    }
    if (p->processing) {
        sort_events(p);
        clap_process_t process = {
            p->steady_time, frames > p->max_frames ? p->max_frames : frames, p->has_transport ? &p->transport : NULL,
            p->inputs, p->outputs, p->input_ports, p->output_ports, &p->in_events, &p->out_events};
        status = p->plugin->process(p->plugin, &process);
        p->steady_time += process.frames_count;
    }
    in_audio_call--;
    p->event_count = 0;
    p->has_transport = 0;
    return status;
}

void pj_clap_take_outputs(PJClapPlugin *p, float *values) {
    for (uint32_t index = 0; index < p->param_count; index++) {
        if (!p->param_output_set[index]) continue;
        p->param_output_set[index] = 0;
        values[index] = (float)p->param_outputs[index];
    }
}

uint32_t pj_clap_cached_latency(PJClapPlugin *p) { return atomic_load_explicit(&p->cached_latency, memory_order_relaxed); }
