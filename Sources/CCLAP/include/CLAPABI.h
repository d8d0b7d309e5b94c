#ifndef CLAP_ABI_H
#define CLAP_ABI_H

// The CLAP ABI as a host needs it, declared from the specification (free-audio/clap, 1.2):
// Debian ships no CLAP headers. Plain C structs and function pointers; field order and types
// are the specification's, so a plugin built against any 1.x header reads them the same.

#include <stdbool.h>
#include <stdint.h>

typedef struct clap_version { uint32_t major, minor, revision; } clap_version_t;
typedef uint32_t clap_id;
#define CLAP_INVALID_ID UINT32_MAX
enum { CLAP_NAME_SIZE = 256, CLAP_PATH_SIZE = 1024 };
#define CLAP_BEATTIME_FACTOR (1LL << 31)
#define CLAP_SECTIME_FACTOR (1LL << 31)

// MARK: - Events

typedef struct clap_event_header {
    uint32_t size, time;
    uint16_t space_id, type;
    uint32_t flags;
} clap_event_header_t;

enum { CLAP_CORE_EVENT_SPACE_ID = 0, CLAP_EVENT_IS_LIVE = 1 };
enum {
    CLAP_EVENT_NOTE_ON = 0, CLAP_EVENT_NOTE_OFF = 1, CLAP_EVENT_NOTE_CHOKE = 2, CLAP_EVENT_NOTE_END = 3,
    CLAP_EVENT_NOTE_EXPRESSION = 4, CLAP_EVENT_PARAM_VALUE = 5, CLAP_EVENT_PARAM_MOD = 6,
    CLAP_EVENT_PARAM_GESTURE_BEGIN = 7, CLAP_EVENT_PARAM_GESTURE_END = 8, CLAP_EVENT_TRANSPORT = 9,
    CLAP_EVENT_MIDI = 10, CLAP_EVENT_MIDI_SYSEX = 11, CLAP_EVENT_MIDI2 = 12,
};

typedef struct clap_event_note {
    clap_event_header_t header;
    int32_t note_id;
    int16_t port_index, channel, key;
    double velocity;
} clap_event_note_t;

typedef struct clap_event_param_value {
    clap_event_header_t header;
    clap_id param_id;
    void *cookie;
    int32_t note_id;
    int16_t port_index, channel, key;
    double value;
} clap_event_param_value_t;

enum {
    CLAP_TRANSPORT_HAS_TEMPO = 1 << 0, CLAP_TRANSPORT_HAS_BEATS_TIMELINE = 1 << 1,
    CLAP_TRANSPORT_HAS_SECONDS_TIMELINE = 1 << 2, CLAP_TRANSPORT_HAS_TIME_SIGNATURE = 1 << 3,
    CLAP_TRANSPORT_IS_PLAYING = 1 << 4,
};

typedef struct clap_event_transport {
    clap_event_header_t header;
    uint32_t flags;
    int64_t song_pos_beats, song_pos_seconds;
    double tempo, tempo_inc;
    int64_t loop_start_beats, loop_end_beats, loop_start_seconds, loop_end_seconds;
    int64_t bar_start;
    int32_t bar_number;
    uint16_t tsig_num, tsig_denom;
} clap_event_transport_t;

typedef struct clap_event_midi {
    clap_event_header_t header;
    uint16_t port_index;
    uint8_t data[3];
} clap_event_midi_t;

typedef struct clap_input_events {
    void *ctx;
    uint32_t (*size)(const struct clap_input_events *list);
    const clap_event_header_t *(*get)(const struct clap_input_events *list, uint32_t index);
} clap_input_events_t;

typedef struct clap_output_events {
    void *ctx;
    bool (*try_push)(const struct clap_output_events *list, const clap_event_header_t *event);
} clap_output_events_t;

// MARK: - Processing

typedef struct clap_audio_buffer {
    float **data32;
    double **data64;
    uint32_t channel_count, latency;
    uint64_t constant_mask;
} clap_audio_buffer_t;

enum { CLAP_PROCESS_ERROR = 0, CLAP_PROCESS_CONTINUE = 1, CLAP_PROCESS_CONTINUE_IF_NOT_QUIET = 2,
       CLAP_PROCESS_TAIL = 3, CLAP_PROCESS_SLEEP = 4 };

typedef struct clap_process {
    int64_t steady_time;
    uint32_t frames_count;
    const clap_event_transport_t *transport;
    const clap_audio_buffer_t *audio_inputs;
    clap_audio_buffer_t *audio_outputs;
    uint32_t audio_inputs_count, audio_outputs_count;
    const clap_input_events_t *in_events;
    const clap_output_events_t *out_events;
} clap_process_t;

// MARK: - Host, plugin, factory, entry

typedef struct clap_host {
    clap_version_t clap_version;
    void *host_data;
    const char *name, *vendor, *url, *version;
    const void *(*get_extension)(const struct clap_host *host, const char *extension_id);
    void (*request_restart)(const struct clap_host *host);
    void (*request_process)(const struct clap_host *host);
    void (*request_callback)(const struct clap_host *host);
} clap_host_t;

typedef struct clap_plugin_descriptor {
    clap_version_t clap_version;
    const char *id, *name, *vendor, *url, *manual_url, *support_url, *version, *description;
    const char *const *features;
} clap_plugin_descriptor_t;

typedef struct clap_plugin {
    const clap_plugin_descriptor_t *desc;
    void *plugin_data;
    bool (*init)(const struct clap_plugin *plugin);
    void (*destroy)(const struct clap_plugin *plugin);
    bool (*activate)(const struct clap_plugin *plugin, double sample_rate, uint32_t min_frames, uint32_t max_frames);
    void (*deactivate)(const struct clap_plugin *plugin);
    bool (*start_processing)(const struct clap_plugin *plugin);
    void (*stop_processing)(const struct clap_plugin *plugin);
    void (*reset)(const struct clap_plugin *plugin);
    int32_t (*process)(const struct clap_plugin *plugin, const clap_process_t *process);
    const void *(*get_extension)(const struct clap_plugin *plugin, const char *id);
    void (*on_main_thread)(const struct clap_plugin *plugin);
} clap_plugin_t;

typedef struct clap_plugin_factory {
    uint32_t (*get_plugin_count)(const struct clap_plugin_factory *factory);
    const clap_plugin_descriptor_t *(*get_plugin_descriptor)(const struct clap_plugin_factory *factory, uint32_t index);
    const clap_plugin_t *(*create_plugin)(const struct clap_plugin_factory *factory, const clap_host_t *host,
                                          const char *plugin_id);
} clap_plugin_factory_t;

typedef struct clap_plugin_entry {
    clap_version_t clap_version;
    bool (*init)(const char *plugin_path);
    void (*deinit)(void);
    const void *(*get_factory)(const char *factory_id);
} clap_plugin_entry_t;

#define CLAP_PLUGIN_FACTORY_ID "clap.plugin-factory"

// MARK: - Extensions

#define CLAP_EXT_AUDIO_PORTS "clap.audio-ports"
enum { CLAP_AUDIO_PORT_IS_MAIN = 1 };
typedef struct clap_audio_port_info {
    clap_id id;
    char name[CLAP_NAME_SIZE];
    uint32_t flags, channel_count;
    const char *port_type;
    clap_id in_place_pair;
} clap_audio_port_info_t;
typedef struct clap_plugin_audio_ports {
    uint32_t (*count)(const clap_plugin_t *plugin, bool is_input);
    bool (*get)(const clap_plugin_t *plugin, uint32_t index, bool is_input, clap_audio_port_info_t *info);
} clap_plugin_audio_ports_t;
typedef struct clap_host_audio_ports {
    bool (*is_rescan_flag_supported)(const clap_host_t *host, uint32_t flag);
    void (*rescan)(const clap_host_t *host, uint32_t flags);
} clap_host_audio_ports_t;

#define CLAP_EXT_NOTE_PORTS "clap.note-ports"
enum { CLAP_NOTE_DIALECT_CLAP = 1, CLAP_NOTE_DIALECT_MIDI = 2, CLAP_NOTE_DIALECT_MIDI_MPE = 4, CLAP_NOTE_DIALECT_MIDI2 = 8 };
typedef struct clap_note_port_info {
    clap_id id;
    uint32_t supported_dialects, preferred_dialect;
    char name[CLAP_NAME_SIZE];
} clap_note_port_info_t;
typedef struct clap_plugin_note_ports {
    uint32_t (*count)(const clap_plugin_t *plugin, bool is_input);
    bool (*get)(const clap_plugin_t *plugin, uint32_t index, bool is_input, clap_note_port_info_t *info);
} clap_plugin_note_ports_t;
typedef struct clap_host_note_ports {
    uint32_t (*supported_dialects)(const clap_host_t *host);
    void (*rescan)(const clap_host_t *host, uint32_t flags);
} clap_host_note_ports_t;

#define CLAP_EXT_PARAMS "clap.params"
enum { CLAP_PARAM_IS_STEPPED = 1, CLAP_PARAM_IS_HIDDEN = 1 << 2, CLAP_PARAM_IS_READONLY = 1 << 3,
       CLAP_PARAM_IS_BYPASS = 1 << 4, CLAP_PARAM_IS_ENUM = 1 << 16 };
typedef struct clap_param_info {
    clap_id id;
    uint32_t flags;
    void *cookie;
    char name[CLAP_NAME_SIZE];
    char module[CLAP_PATH_SIZE];
    double min_value, max_value, default_value;
} clap_param_info_t;
typedef struct clap_plugin_params {
    uint32_t (*count)(const clap_plugin_t *plugin);
    bool (*get_info)(const clap_plugin_t *plugin, uint32_t index, clap_param_info_t *info);
    bool (*get_value)(const clap_plugin_t *plugin, clap_id id, double *value);
    bool (*value_to_text)(const clap_plugin_t *plugin, clap_id id, double value, char *buffer, uint32_t capacity);
    bool (*text_to_value)(const clap_plugin_t *plugin, clap_id id, const char *text, double *value);
    void (*flush)(const clap_plugin_t *plugin, const clap_input_events_t *in, const clap_output_events_t *out);
} clap_plugin_params_t;
typedef struct clap_host_params {
    void (*rescan)(const clap_host_t *host, uint32_t flags);
    void (*clear)(const clap_host_t *host, clap_id id, uint32_t flags);
    void (*request_flush)(const clap_host_t *host);
} clap_host_params_t;

typedef struct clap_istream {
    void *ctx;
    int64_t (*read)(const struct clap_istream *stream, void *buffer, uint64_t size);
} clap_istream_t;
typedef struct clap_ostream {
    void *ctx;
    int64_t (*write)(const struct clap_ostream *stream, const void *buffer, uint64_t size);
} clap_ostream_t;

#define CLAP_EXT_STATE "clap.state"
typedef struct clap_plugin_state {
    bool (*save)(const clap_plugin_t *plugin, const clap_ostream_t *stream);
    bool (*load)(const clap_plugin_t *plugin, const clap_istream_t *stream);
} clap_plugin_state_t;
typedef struct clap_host_state { void (*mark_dirty)(const clap_host_t *host); } clap_host_state_t;

#define CLAP_EXT_LATENCY "clap.latency"
typedef struct clap_plugin_latency { uint32_t (*get)(const clap_plugin_t *plugin); } clap_plugin_latency_t;
typedef struct clap_host_latency { void (*changed)(const clap_host_t *host); } clap_host_latency_t;

#define CLAP_EXT_TAIL "clap.tail"
typedef struct clap_plugin_tail { uint32_t (*get)(const clap_plugin_t *plugin); } clap_plugin_tail_t;
typedef struct clap_host_tail { void (*changed)(const clap_host_t *host); } clap_host_tail_t;

#define CLAP_EXT_THREAD_CHECK "clap.thread-check"
typedef struct clap_host_thread_check {
    bool (*is_main_thread)(const clap_host_t *host);
    bool (*is_audio_thread)(const clap_host_t *host);
} clap_host_thread_check_t;

#define CLAP_EXT_LOG "clap.log"
enum { CLAP_LOG_DEBUG = 0, CLAP_LOG_INFO = 1, CLAP_LOG_WARNING = 2, CLAP_LOG_ERROR = 3, CLAP_LOG_FATAL = 4,
       CLAP_LOG_HOST_MISBEHAVING = 5, CLAP_LOG_PLUGIN_MISBEHAVING = 6 };
typedef struct clap_host_log {
    void (*log)(const clap_host_t *host, int32_t severity, const char *message);
} clap_host_log_t;

#define CLAP_EXT_TIMER_SUPPORT "clap.timer-support"
typedef struct clap_plugin_timer_support { void (*on_timer)(const clap_plugin_t *plugin, clap_id timer_id); } clap_plugin_timer_support_t;
typedef struct clap_host_timer_support {
    bool (*register_timer)(const clap_host_t *host, uint32_t period_ms, clap_id *timer_id);
    bool (*unregister_timer)(const clap_host_t *host, clap_id timer_id);
} clap_host_timer_support_t;

#define CLAP_EXT_POSIX_FD_SUPPORT "clap.posix-fd-support"
enum { CLAP_POSIX_FD_READ = 1, CLAP_POSIX_FD_WRITE = 2, CLAP_POSIX_FD_ERROR = 4 };
typedef struct clap_plugin_posix_fd_support {
    void (*on_fd)(const clap_plugin_t *plugin, int fd, uint32_t flags);
} clap_plugin_posix_fd_support_t;
typedef struct clap_host_posix_fd_support {
    bool (*register_fd)(const clap_host_t *host, int fd, uint32_t flags);
    bool (*modify_fd)(const clap_host_t *host, int fd, uint32_t flags);
    bool (*unregister_fd)(const clap_host_t *host, int fd);
} clap_host_posix_fd_support_t;

#define CLAP_EXT_PRESET_LOAD "clap.preset-load/2"
#define CLAP_EXT_PRESET_LOAD_COMPAT "clap.preset-load.draft/2"
enum { CLAP_PRESET_DISCOVERY_LOCATION_FILE = 0, CLAP_PRESET_DISCOVERY_LOCATION_PLUGIN = 1 };
typedef struct clap_plugin_preset_load {
    bool (*from_location)(const clap_plugin_t *plugin, uint32_t location_kind, const char *location, const char *load_key);
} clap_plugin_preset_load_t;
typedef struct clap_host_preset_load {
    void (*on_error)(const clap_host_t *host, uint32_t location_kind, const char *location, const char *load_key,
                     int32_t os_error, const char *message);
    void (*loaded)(const clap_host_t *host, uint32_t location_kind, const char *location, const char *load_key);
} clap_host_preset_load_t;

// MARK: - Preset discovery (a factory of its own)

#define CLAP_PRESET_DISCOVERY_FACTORY_ID "clap.preset-discovery-factory/2"
#define CLAP_PRESET_DISCOVERY_FACTORY_ID_COMPAT "clap.preset-discovery-factory/draft-2"

typedef struct clap_universal_plugin_id { const char *abi, *id; } clap_universal_plugin_id_t;

typedef struct clap_preset_discovery_metadata_receiver {
    void *receiver_data;
    void (*on_error)(const struct clap_preset_discovery_metadata_receiver *receiver, int32_t os_error, const char *message);
    bool (*begin_preset)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *name, const char *load_key);
    void (*add_plugin_id)(const struct clap_preset_discovery_metadata_receiver *receiver, const clap_universal_plugin_id_t *plugin_id);
    void (*set_soundpack_id)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *soundpack_id);
    void (*set_flags)(const struct clap_preset_discovery_metadata_receiver *receiver, uint32_t flags);
    void (*add_creator)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *creator);
    void (*set_description)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *description);
    void (*set_timestamps)(const struct clap_preset_discovery_metadata_receiver *receiver, uint64_t created, uint64_t modified);
    void (*add_feature)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *feature);
    void (*add_extra_info)(const struct clap_preset_discovery_metadata_receiver *receiver, const char *key, const char *value);
} clap_preset_discovery_metadata_receiver_t;

typedef struct clap_preset_discovery_filetype { const char *name, *description, *file_extension; } clap_preset_discovery_filetype_t;
typedef struct clap_preset_discovery_location {
    uint32_t flags;
    const char *name;
    uint32_t kind;
    const char *location;
} clap_preset_discovery_location_t;
typedef struct clap_preset_discovery_soundpack {
    uint32_t flags;
    const char *id, *name, *description, *homepage_url, *vendor, *image_path;
    uint64_t release_timestamp;
} clap_preset_discovery_soundpack_t;
typedef struct clap_preset_discovery_provider_descriptor {
    clap_version_t clap_version;
    const char *id, *name, *vendor;
} clap_preset_discovery_provider_descriptor_t;
typedef struct clap_preset_discovery_provider {
    const clap_preset_discovery_provider_descriptor_t *desc;
    void *provider_data;
    bool (*init)(const struct clap_preset_discovery_provider *provider);
    void (*destroy)(const struct clap_preset_discovery_provider *provider);
    bool (*get_metadata)(const struct clap_preset_discovery_provider *provider, uint32_t location_kind, const char *location,
                         const clap_preset_discovery_metadata_receiver_t *receiver);
    const void *(*get_extension)(const struct clap_preset_discovery_provider *provider, const char *id);
} clap_preset_discovery_provider_t;
typedef struct clap_preset_discovery_indexer {
    clap_version_t clap_version;
    const char *name, *vendor, *url, *version;
    void *indexer_data;
    bool (*declare_filetype)(const struct clap_preset_discovery_indexer *indexer, const clap_preset_discovery_filetype_t *filetype);
    bool (*declare_location)(const struct clap_preset_discovery_indexer *indexer, const clap_preset_discovery_location_t *location);
    bool (*declare_soundpack)(const struct clap_preset_discovery_indexer *indexer, const clap_preset_discovery_soundpack_t *soundpack);
    const void *(*get_extension)(const struct clap_preset_discovery_indexer *indexer, const char *id);
} clap_preset_discovery_indexer_t;
typedef struct clap_preset_discovery_factory {
    uint32_t (*count)(const struct clap_preset_discovery_factory *factory);
    const clap_preset_discovery_provider_descriptor_t *(*get_descriptor)(const struct clap_preset_discovery_factory *factory, uint32_t index);
    const clap_preset_discovery_provider_t *(*create)(const struct clap_preset_discovery_factory *factory,
                                                      const clap_preset_discovery_indexer_t *indexer, const char *provider_id);
} clap_preset_discovery_factory_t;

#endif
