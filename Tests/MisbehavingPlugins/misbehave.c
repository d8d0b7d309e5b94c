// Misbehaving LV2 plugins for pulsejack's tests: one effect (stereo in and out) and one
// instrument (MIDI in, stereo out) per behaviour, each behaving well for its first second of
// audio and then doing what its URI says. The URI's last part names the behaviour; an
// instrument's ends in "-instrument". Built by the tests (Tests/TestSupport/MisbehavingPlugins).
#define _GNU_SOURCE
#include <lv2/core/lv2.h>
#include <lv2/atom/atom.h>
#include <lv2/atom/util.h>
#include <lv2/midi/midi.h>
#include <lv2/state/state.h>
#include <lv2/urid/urid.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PREFIX "urn:pulsejack:misbehave:"

enum behaviour {
    CLEAN, NAN_OUT, INF_OUT, DENORMAL_OUT, SEGFAULT_RUN, SPIN, HANG, LATENCY_HUGE, LATENCY_NEGATIVE, LATENCY_NAN,
    LATENCY_FLIP, CRASH_INSTANTIATE, CRASH_RESTORE, ABSURD_CONTROLS, BEHAVIOURS
};
static const char *names[BEHAVIOURS] = {
    "clean", "nan", "inf", "denormal", "segfault", "spin", "hang", "latency-huge", "latency-negative", "latency-nan",
    "latency-flip", "crash-instantiate", "crash-restore", "absurd-controls",
};

// Ports: 0, 1 audio in (effect) or 0 MIDI in (instrument, 1 unused); 2, 3 audio out; 4 latency
// out; 5 gain (a control whose value a restart must keep); 6… the absurd plugin's 64 controls.
typedef struct {
    int behaviour, instrument;
    double rate;
    const float *in[2];
    float *out[2];
    const LV2_Atom_Sequence *midi;
    float *latency;
    const float *gain;
    uint64_t frames, runs;
    int hung;
    LV2_URID midi_event;
    double phase, level;
} Plugin;

static void crash(void) {
    // A volatile pointer to volatile: the compiler can neither know it is null nor drop the store
    // as undefined behaviour (with a pointer to volatile alone, GCC did: nothing crashed).
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static LV2_Handle instantiate(const LV2_Descriptor *descriptor, double rate, const char *bundle,
                              const LV2_Feature *const *features) {
    (void)bundle;
    Plugin *self = calloc(1, sizeof(Plugin));
    if (!self) return NULL;
    const char *tail = descriptor->URI + strlen(PREFIX);
    self->instrument = strstr(tail, "-instrument") != NULL;
    for (int b = 0; b < BEHAVIOURS; b++) {
        size_t length = strlen(names[b]);
        if (strncmp(tail, names[b], length) == 0 && (tail[length] == 0 || tail[length] == '-') &&
            (tail[length] == 0 || strcmp(tail + length, "-instrument") == 0)) self->behaviour = b;
    }
    self->rate = rate;
    for (int i = 0; features && features[i]; i++) {
        if (strcmp(features[i]->URI, LV2_URID__map) == 0) {
            LV2_URID_Map *map = features[i]->data;
            self->midi_event = map->map(map->handle, LV2_MIDI__MidiEvent);
        }
    }
    if (self->behaviour == CRASH_INSTANTIATE) crash();
    return self;
}

static void connect_port(LV2_Handle handle, uint32_t port, void *data) {
    Plugin *self = handle;
    switch (port) {
    case 0: if (self->instrument) self->midi = data; else self->in[0] = data; break;
    case 1: if (!self->instrument) self->in[1] = data; break;
    case 2: self->out[0] = data; break;
    case 3: self->out[1] = data; break;
    case 4: self->latency = data; break;
    case 5: self->gain = data; break;
    default: break;
    }
}

static void spin(double seconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do { clock_gettime(CLOCK_MONOTONIC, &now); }
    while ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) < seconds);
}

static float reported_latency(Plugin *self) {
    switch (self->behaviour) {
    case LATENCY_HUGE: return 1e9f;
    case LATENCY_NEGATIVE: return -5.0f;
    case LATENCY_NAN: return NAN;
    // 0 and 24000 frames in turn, a quarter of a second each.
    case LATENCY_FLIP: return ((self->frames / (uint64_t)(self->rate / 4)) % 2) ? 24000.0f : 0.0f;
    default: return 0.0f;
    }
}

static void run(LV2_Handle handle, uint32_t frames) {
    Plugin *self = handle;
    self->runs++;
    // The well-behaved part: an effect passes its input; an instrument plays a 440 Hz tone,
    // starting at each note-on and decaying over a tenth of a second.
    const LV2_Atom_Event *event = NULL;
    if (self->instrument && self->midi) event = lv2_atom_sequence_begin(&self->midi->body);
    for (uint32_t i = 0; i < frames; i++) {
        if (self->instrument) {
            while (event && !lv2_atom_sequence_is_end(&self->midi->body, self->midi->atom.size, event) &&
                   event->time.frames <= (int64_t)i) {
                const uint8_t *message = (const uint8_t *)(event + 1);
                if (event->body.type == self->midi_event && (message[0] & 0xF0) == 0x90 && message[2] > 0) self->level = 0.5;
                event = lv2_atom_sequence_next(event);
            }
            float sample = (float)(self->level * sin(self->phase)) * (self->gain ? *self->gain : 1.0f);
            self->phase += 2 * M_PI * 440 / self->rate;
            self->level *= exp(-1 / (0.1 * self->rate));
            if (self->out[0]) self->out[0][i] = sample;
            if (self->out[1]) self->out[1][i] = sample;
        } else {
            float gain = self->gain ? *self->gain : 1.0f;
            if (self->out[0]) self->out[0][i] = self->in[0] ? gain * self->in[0][i] : 0;
            if (self->out[1]) self->out[1][i] = self->in[1] ? gain * self->in[1][i] : 0;
        }
    }
    int faulty = self->frames >= (uint64_t)self->rate;
    self->frames += frames;
    if (self->latency) *self->latency = reported_latency(self);
    if (!faulty) return;
    volatile float denormal = 1e-40f;  // stored, not computed: flush-to-zero does not touch it
    for (uint32_t i = 0; i < frames; i++) {
        for (int c = 0; c < 2; c++) {
            if (!self->out[c]) continue;
            switch (self->behaviour) {
            case NAN_OUT: self->out[c][i] = NAN; break;
            case INF_OUT: self->out[c][i] = INFINITY; break;
            case DENORMAL_OUT: self->out[c][i] = denormal; break;
            default: break;
            }
        }
    }
    switch (self->behaviour) {
    case SEGFAULT_RUN: crash(); break;
    case SPIN: if (self->runs % 50 == 0) spin(0.020); break;
    case HANG: if (!self->hung) { self->hung = 1; for (volatile int forever = 1; forever;) {} } break;
    default: break;
    }
}

static void cleanup(LV2_Handle handle) { free(handle); }

static LV2_State_Status save(LV2_Handle handle, LV2_State_Store_Function store, LV2_State_Handle state, uint32_t flags,
                             const LV2_Feature *const *features) {
    (void)handle; (void)store; (void)state; (void)flags; (void)features;
    return LV2_STATE_SUCCESS;
}

static LV2_State_Status restore(LV2_Handle handle, LV2_State_Retrieve_Function retrieve, LV2_State_Handle state,
                                uint32_t flags, const LV2_Feature *const *features) {
    (void)retrieve; (void)state; (void)flags; (void)features;
    if (((Plugin *)handle)->behaviour == CRASH_RESTORE) crash();
    return LV2_STATE_SUCCESS;
}

static const void *extension_data(const char *uri) {
    static const LV2_State_Interface state = {save, restore};
    return strcmp(uri, LV2_STATE__interface) == 0 ? &state : NULL;
}

static char uris[2 * BEHAVIOURS][80];
static LV2_Descriptor descriptors[2 * BEHAVIOURS];

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index) {
    if (index >= 2 * BEHAVIOURS) return NULL;
    LV2_Descriptor *descriptor = &descriptors[index];
    if (!descriptor->URI) {
        strcpy(uris[index], PREFIX);
        strcat(uris[index], names[index / 2]);
        if (index % 2) strcat(uris[index], "-instrument");
        *descriptor = (LV2_Descriptor){uris[index], instantiate, connect_port, NULL, run, NULL, cleanup, extension_data};
    }
    return descriptor;
}
