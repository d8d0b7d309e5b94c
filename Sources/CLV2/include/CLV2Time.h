#ifndef CLV2_TIME_H
#define CLV2_TIME_H

#include <stdint.h>

/// A moment of musical time as LV2's time extension (`time:Position`) tells it to a plugin.
typedef struct {
    int64_t frame;           // time:frame, the timeline's frame
    double beat;             // time:beat, beats since the timeline's beat 0
    int64_t bar;             // time:bar, bars since bar 0
    float bar_beat;          // time:barBeat, beats since the bar's start
    float beats_per_bar;     // time:beatsPerBar
    float beats_per_minute;  // time:beatsPerMinute
    float speed;             // time:speed, 1 rolling, 0 stopped
    int32_t beat_unit;       // time:beatUnit, the note value of a beat (4: a quarter)
} PJTimePosition;

/// Any thread, before the first append: maps the URIDs the object is written with (once).
void pj_time_prepare(void);

/// Real-time safe. Appends a `time:Position` object event at `frames` to the atom sequence at
/// `sequence`, whose buffer holds `capacity` bytes; 0 when it does not fit (nothing written).
int pj_time_append_position(void *sequence, uint32_t capacity, int64_t frames, const PJTimePosition *position);

/// The URI a port's `atom:supports` names when it takes positions.
const char *pj_lv2_time_position(void);

#endif
