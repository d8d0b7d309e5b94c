#define _GNU_SOURCE
#include "CLV2Host.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/parameters/parameters.h>
#include <lv2/port-props/port-props.h>
#include <lv2/state/state.h>

// MARK: - URID table

static pthread_mutex_t urid_lock = PTHREAD_MUTEX_INITIALIZER;
static char **urid_uris = NULL;   // urid N is urid_uris[N - 1]
static size_t urid_count = 0, urid_capacity = 0;

LV2_URID pj_urid_map(const char *uri) {
    if (!uri) return 0;
    pthread_mutex_lock(&urid_lock);
    for (size_t index = 0; index < urid_count; ++index) {
        if (strcmp(urid_uris[index], uri) == 0) {
            pthread_mutex_unlock(&urid_lock);
            return (LV2_URID)(index + 1);
        }
    }
    if (urid_count == urid_capacity) {
        size_t capacity = urid_capacity ? 2 * urid_capacity : 256;
        char **grown = realloc(urid_uris, capacity * sizeof(char *));
        if (!grown) { pthread_mutex_unlock(&urid_lock); return 0; }
        urid_uris = grown;
        urid_capacity = capacity;
    }
    urid_uris[urid_count++] = strdup(uri);
    LV2_URID urid = (LV2_URID)urid_count;
    pthread_mutex_unlock(&urid_lock);
    return urid;
}

const char *pj_urid_unmap(LV2_URID urid) {
    pthread_mutex_lock(&urid_lock);
    const char *uri = (urid >= 1 && urid <= urid_count) ? urid_uris[urid - 1] : NULL;
    pthread_mutex_unlock(&urid_lock);
    return uri;
}

static LV2_URID map_callback(LV2_URID_Map_Handle handle, const char *uri) { (void)handle; return pj_urid_map(uri); }
static const char *unmap_callback(LV2_URID_Unmap_Handle handle, LV2_URID urid) { (void)handle; return pj_urid_unmap(urid); }

// MARK: - A single-producer, single-consumer ring of length-prefixed messages (worker)

typedef struct {
    uint8_t *data;
    size_t size;  // a power of two
    _Atomic size_t head, tail;  // bytes written, bytes read
} MessageRing;

static int ring_init(MessageRing *ring, size_t size) {
    ring->data = calloc(size, 1);
    ring->size = size;
    atomic_init(&ring->head, 0);
    atomic_init(&ring->tail, 0);
    return ring->data != NULL;
}

static void ring_copy_in(MessageRing *ring, size_t at, const void *bytes, size_t count) {
    size_t start = at & (ring->size - 1), first = ring->size - start < count ? ring->size - start : count;
    memcpy(ring->data + start, bytes, first);
    memcpy(ring->data, (const uint8_t *)bytes + first, count - first);
}

static void ring_copy_out(const MessageRing *ring, size_t at, void *bytes, size_t count) {
    size_t start = at & (ring->size - 1), first = ring->size - start < count ? ring->size - start : count;
    memcpy(bytes, ring->data + start, first);
    memcpy((uint8_t *)bytes + first, ring->data, count - first);
}

/// Producer. All or nothing.
static int ring_write(MessageRing *ring, uint32_t size, const void *body) {
    size_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    if (ring->size - (head - tail) < sizeof size + size) return 0;
    ring_copy_in(ring, head, &size, sizeof size);
    ring_copy_in(ring, head + sizeof size, body, size);
    atomic_store_explicit(&ring->head, head + sizeof size + size, memory_order_release);
    return 1;
}

/// Consumer. The next message's size into `size` and body into `body` (at most `capacity`
/// bytes; a longer one is skipped). 0 when the ring is empty.
static int ring_read(MessageRing *ring, uint32_t *size, void *body, size_t capacity) {
    size_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    if (head - tail < sizeof *size) return 0;
    ring_copy_out(ring, tail, size, sizeof *size);
    if (*size <= capacity) ring_copy_out(ring, tail + sizeof *size, body, *size);
    atomic_store_explicit(&ring->tail, tail + sizeof *size + *size, memory_order_release);
    return *size <= capacity ? 1 : -1;
}

// MARK: - A bounded multi-producer, single-consumer queue of log lines (Vyukov's sequence slots)

enum { LOG_SLOTS = 64, LOG_LINE = 256 };

typedef struct {
    _Atomic size_t sequence;
    char text[LOG_LINE];
} LogSlot;

// MARK: - The host

enum { WORKER_RING = 1 << 16, WORKER_MESSAGE = 1 << 14 };

struct PJPluginHost {
    LV2_URID_Map map;
    LV2_URID_Unmap unmap;
    LV2_Worker_Schedule schedule;
    LV2_Log_Log log;
    LV2_State_Make_Path make_path;
    LV2_Feature features[8];
    const LV2_Feature *feature_list[9];

    float sample_rate;
    int32_t min_block, max_block, nominal_block, sequence_size;
    LV2_Options_Option options[6];

    char *state_folder;

    int synchronous;
    const LV2_Worker_Interface *worker;
    LV2_Handle handle;
    MessageRing requests, responses;
    uint8_t *worker_message;  // the worker thread's
    uint8_t *response_message;  // the process thread's
    sem_t wake;
    pthread_t thread;
    int thread_running;
    atomic_int exiting;
    _Atomic uint64_t worker_overflows;
    _Atomic uint64_t worker_requests;

    LogSlot log_slots[LOG_SLOTS];
    _Atomic size_t log_enqueue;
    size_t log_dequeue;
    _Atomic uint64_t log_overflows;
    LV2_URID log_error, log_warning, log_trace;
};

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data) {
    PJPluginHost *host = handle;
    return ring_write(&host->responses, size, data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

/// Real-time safe (asynchronous worker): a request into the ring and a semaphore post.
static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data) {
    PJPluginHost *host = handle;
    atomic_fetch_add_explicit(&host->worker_requests, 1, memory_order_relaxed);
    if (host->synchronous) {
        if (!host->worker) return LV2_WORKER_ERR_UNKNOWN;
        return host->worker->work(host->handle, respond, host, size, data);
    }
    if (!ring_write(&host->requests, size, data)) {
        atomic_fetch_add_explicit(&host->worker_overflows, 1, memory_order_relaxed);
        return LV2_WORKER_ERR_NO_SPACE;
    }
    sem_post(&host->wake);
    return LV2_WORKER_SUCCESS;
}

static void *worker_main(void *argument) {
    PJPluginHost *host = argument;
    pthread_setname_np(pthread_self(), "pj-lv2-worker");
    for (;;) {
        while (sem_wait(&host->wake) != 0 && errno == EINTR) {}
        if (atomic_load(&host->exiting)) break;
        uint32_t size;
        int status;
        while ((status = ring_read(&host->requests, &size, host->worker_message, WORKER_MESSAGE)) != 0) {
            if (status > 0) host->worker->work(host->handle, respond, host, size, host->worker_message);
        }
    }
    return NULL;
}

static _Atomic int log_bell = -1;

void pj_host_ring_on_log(int eventfd) { atomic_store_explicit(&log_bell, eventfd, memory_order_release); }

void pj_host_stop_ringing(int eventfd) { atomic_compare_exchange_strong(&log_bell, &eventfd, -1); }

/// Any thread. Formats into a slot of the log queue and rings the log bell; never prints.
static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list arguments) {
    PJPluginHost *host = handle;
    char line[LOG_LINE];
    // The levels were mapped at creation: no lock here, as a plugin may log from `run`.
    const char *level = type == host->log_error ? "error: " : type == host->log_warning ? "warning: "
        : type == host->log_trace ? "trace: " : "";
    size_t prefix = strlen(level);
    memcpy(line, level, prefix);
    int written = vsnprintf(line + prefix, sizeof line - prefix, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && line[length - 1] == '\n') line[--length] = 0;
    size_t position = atomic_load_explicit(&host->log_enqueue, memory_order_relaxed);
    for (;;) {
        LogSlot *slot = &host->log_slots[position % LOG_SLOTS];
        size_t sequence = atomic_load_explicit(&slot->sequence, memory_order_acquire);
        intptr_t difference = (intptr_t)sequence - (intptr_t)position;
        if (difference == 0) {
            if (atomic_compare_exchange_weak_explicit(&host->log_enqueue, &position, position + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                memcpy(slot->text, line, length + 1);
                atomic_store_explicit(&slot->sequence, position + 1, memory_order_release);
                int bell = atomic_load_explicit(&log_bell, memory_order_acquire);
                if (bell >= 0) {
                    uint64_t one = 1;
                    ssize_t rung = write(bell, &one, sizeof one);  // non-blocking eventfd: never waits
                    (void)rung;
                }
                return written;
            }
        } else if (difference < 0) {
            atomic_fetch_add_explicit(&host->log_overflows, 1, memory_order_relaxed);
            return 0;
        } else {
            position = atomic_load_explicit(&host->log_enqueue, memory_order_relaxed);
        }
    }
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int written = log_vprintf(handle, type, format, arguments);
    va_end(arguments);
    return written;
}

int pj_host_next_log(PJPluginHost *host, char *buffer, size_t capacity) {
    LogSlot *slot = &host->log_slots[host->log_dequeue % LOG_SLOTS];
    size_t sequence = atomic_load_explicit(&slot->sequence, memory_order_acquire);
    if (sequence != host->log_dequeue + 1) return 0;
    snprintf(buffer, capacity, "%s", slot->text);
    atomic_store_explicit(&slot->sequence, host->log_dequeue + LOG_SLOTS, memory_order_release);
    host->log_dequeue += 1;
    return 1;
}

static int make_folders(const char *path) {
    char partial[4096];
    snprintf(partial, sizeof partial, "%s", path);
    for (char *slash = partial + 1; *slash; ++slash) {
        if (*slash != '/') continue;
        *slash = 0;
        if (mkdir(partial, 0755) != 0 && errno != EEXIST) return -1;
        *slash = '/';
    }
    return 0;
}

/// Control or worker thread: `path` inside the state folder, its parent folders made.
static char *make_path(LV2_State_Make_Path_Handle handle, const char *path) {
    PJPluginHost *host = handle;
    if (!host->state_folder) {
        char folder[] = "/tmp/pulsejack-state-XXXXXX";
        if (!mkdtemp(folder)) return NULL;
        host->state_folder = strdup(folder);
    }
    size_t length = strlen(host->state_folder) + strlen(path) + 2;
    char *full = malloc(length);
    if (!full) return NULL;
    snprintf(full, length, "%s/%s", host->state_folder, path);
    make_folders(full);
    return full;
}

PJPluginHost *pj_host_new(double sample_rate, int32_t max_block, int32_t nominal_block, int32_t sequence_size,
                          const char *state_folder, int synchronous_worker) {
    PJPluginHost *host = calloc(1, sizeof *host);
    if (!host) return NULL;
    if (!ring_init(&host->requests, WORKER_RING) || !ring_init(&host->responses, WORKER_RING)
        || !(host->worker_message = malloc(WORKER_MESSAGE)) || !(host->response_message = malloc(WORKER_MESSAGE))) {
        pj_host_free(host);
        return NULL;
    }
    sem_init(&host->wake, 0, 0);
    host->synchronous = synchronous_worker;
    host->state_folder = state_folder ? strdup(state_folder) : NULL;
    for (size_t index = 0; index < LOG_SLOTS; ++index) atomic_init(&host->log_slots[index].sequence, index);

    host->map = (LV2_URID_Map){host, map_callback};
    host->unmap = (LV2_URID_Unmap){host, unmap_callback};
    host->schedule = (LV2_Worker_Schedule){host, schedule_work};
    host->log = (LV2_Log_Log){host, log_printf, log_vprintf};
    host->make_path = (LV2_State_Make_Path){host, make_path};

    host->log_error = pj_urid_map(LV2_LOG__Error);
    host->log_warning = pj_urid_map(LV2_LOG__Warning);
    host->log_trace = pj_urid_map(LV2_LOG__Trace);
    host->sample_rate = (float)sample_rate;
    host->min_block = 1;
    host->max_block = max_block;
    host->nominal_block = nominal_block;
    host->sequence_size = sequence_size;
    LV2_URID atom_int = pj_urid_map(LV2_ATOM__Int), atom_float = pj_urid_map(LV2_ATOM__Float);
    host->options[0] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, pj_urid_map(LV2_PARAMETERS__sampleRate),
                                            sizeof(float), atom_float, &host->sample_rate};
    host->options[1] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, pj_urid_map(LV2_BUF_SIZE__minBlockLength),
                                            sizeof(int32_t), atom_int, &host->min_block};
    host->options[2] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, pj_urid_map(LV2_BUF_SIZE__maxBlockLength),
                                            sizeof(int32_t), atom_int, &host->max_block};
    host->options[3] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, pj_urid_map(LV2_BUF_SIZE__nominalBlockLength),
                                            sizeof(int32_t), atom_int, &host->nominal_block};
    host->options[4] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, pj_urid_map(LV2_BUF_SIZE__sequenceSize),
                                            sizeof(int32_t), atom_int, &host->sequence_size};
    host->options[5] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL};

    host->features[0] = (LV2_Feature){LV2_URID__map, &host->map};
    host->features[1] = (LV2_Feature){LV2_URID__unmap, &host->unmap};
    host->features[2] = (LV2_Feature){LV2_OPTIONS__options, host->options};
    host->features[3] = (LV2_Feature){LV2_BUF_SIZE__boundedBlockLength, NULL};
    host->features[4] = (LV2_Feature){LV2_WORKER__schedule, &host->schedule};
    host->features[5] = (LV2_Feature){LV2_LOG__log, &host->log};
    host->features[6] = (LV2_Feature){LV2_STATE__makePath, &host->make_path};
    host->features[7] = (LV2_Feature){LV2_STATE__loadDefaultState, NULL};
    for (size_t index = 0; index < 8; ++index) host->feature_list[index] = &host->features[index];
    host->feature_list[8] = NULL;
    return host;
}

const LV2_Feature *const *pj_host_features(PJPluginHost *host) { return host->feature_list; }
LV2_URID_Map *pj_host_map(PJPluginHost *host) { return &host->map; }
LV2_URID_Unmap *pj_host_unmap(PJPluginHost *host) { return &host->unmap; }

void pj_host_attach_worker(PJPluginHost *host, const LV2_Worker_Interface *iface, LV2_Handle handle) {
    host->worker = iface;
    host->handle = handle;
    if (!iface || host->synchronous || host->thread_running) return;
    if (pthread_create(&host->thread, NULL, worker_main, host) == 0) {
        host->thread_running = 1;
        sem_post(&host->wake);  // requests made while instantiating
    }
}

void pj_host_after_run(PJPluginHost *host) {
    if (!host->worker) return;
    uint32_t size;
    int status;
    // Bounded: the ring holds at most WORKER_RING bytes, each message at least four.
    while ((status = ring_read(&host->responses, &size, host->response_message, WORKER_MESSAGE)) != 0) {
        if (status > 0 && host->worker->work_response) host->worker->work_response(host->handle, size, host->response_message);
    }
    if (host->worker->end_run) host->worker->end_run(host->handle);
}

uint64_t pj_host_worker_overflows(PJPluginHost *host) { return atomic_load(&host->worker_overflows); }
uint64_t pj_host_worker_requests(PJPluginHost *host) { return atomic_load(&host->worker_requests); }
uint64_t pj_host_log_overflows(PJPluginHost *host) { return atomic_load(&host->log_overflows); }

void pj_host_free(PJPluginHost *host) {
    if (!host) return;
    if (host->thread_running) {
        atomic_store(&host->exiting, 1);
        sem_post(&host->wake);
        pthread_join(host->thread, NULL);
    }
    sem_destroy(&host->wake);
    free(host->requests.data);
    free(host->responses.data);
    free(host->worker_message);
    free(host->response_message);
    free(host->state_folder);
    free(host);
}

const char *const *pj_host_supported_features(void) {
    static const char *const features[] = {
        LV2_URID__map, LV2_URID__unmap, LV2_OPTIONS__options, LV2_BUF_SIZE__boundedBlockLength, LV2_WORKER__schedule,
        LV2_LOG__log, LV2_STATE__makePath, LV2_STATE__loadDefaultState,
        // Promises a plugin makes about itself, which ask nothing of the host.
        LV2_CORE__isLive, LV2_CORE__inPlaceBroken, LV2_CORE__hardRTCapable, NULL,
    };
    return features;
}

const char *const *pj_host_supported_options(void) {
    static const char *const options[] = {
        LV2_PARAMETERS__sampleRate, LV2_BUF_SIZE__minBlockLength, LV2_BUF_SIZE__maxBlockLength,
        LV2_BUF_SIZE__nominalBlockLength, LV2_BUF_SIZE__sequenceSize, NULL,
    };
    return options;
}

const char *pj_lv2_atom_sequence(void) { return LV2_ATOM__Sequence; }
const char *pj_lv2_atom_chunk(void) { return LV2_ATOM__Chunk; }
const char *pj_lv2_coarse_block_length(void) { return LV2_BUF_SIZE__coarseBlockLength; }
const char *pj_lv2_reports_latency(void) { return LV2_CORE__reportsLatency; }
const char *pj_lv2_connection_optional(void) { return LV2_CORE__connectionOptional; }
const char *pj_lv2_cv_port(void) { return LV2_CORE__CVPort; }
const char *pj_lv2_required_option(void) { return LV2_OPTIONS__requiredOption; }
const char *pj_lv2_latency_designation(void) { return LV2_CORE__latency; }

/// A line from a plugin of another format (CLAP's log), into `host`'s queue, at its severity
/// (CLAP's: 2 warning, 3 and above error). Real-time safe, as the LV2 log is.
void pj_host_log_line(void *host, int32_t severity, const char *message) {
    PJPluginHost *target = host;
    LV2_URID type = severity == 2 ? target->log_warning : severity >= 3 ? target->log_error : 0;
    log_printf(target, type, "%s", message);
}
