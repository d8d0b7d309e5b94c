#include "CLV2Time.h"
#include "CLV2Host.h"

#include <pthread.h>
#include <string.h>
#include <lv2/atom/atom.h>
#include <lv2/atom/util.h>
#include <lv2/time/time.h>

// The URIDs, mapped once (pj_urid_map's table is the process's), read-only after.
static struct {
    LV2_URID object, atom_long, atom_float, atom_double, atom_int, position;
    LV2_URID frame, speed, bar, bar_beat, beat, beat_unit, beats_per_bar, beats_per_minute;
} urids;
static pthread_once_t mapped = PTHREAD_ONCE_INIT;

static void map_urids(void) {
    urids.object = pj_urid_map(LV2_ATOM__Object);
    urids.atom_long = pj_urid_map(LV2_ATOM__Long);
    urids.atom_float = pj_urid_map(LV2_ATOM__Float);
    urids.atom_double = pj_urid_map(LV2_ATOM__Double);
    urids.atom_int = pj_urid_map(LV2_ATOM__Int);
    urids.position = pj_urid_map(LV2_TIME__Position);
    urids.frame = pj_urid_map(LV2_TIME__frame);
    urids.speed = pj_urid_map(LV2_TIME__speed);
    urids.bar = pj_urid_map(LV2_TIME__bar);
    urids.bar_beat = pj_urid_map(LV2_TIME__barBeat);
    urids.beat = pj_urid_map(LV2_TIME__beat);
    urids.beat_unit = pj_urid_map(LV2_TIME__beatUnit);
    urids.beats_per_bar = pj_urid_map(LV2_TIME__beatsPerBar);
    urids.beats_per_minute = pj_urid_map(LV2_TIME__beatsPerMinute);
}

void pj_time_prepare(void) { pthread_once(&mapped, map_urids); }

const char *pj_lv2_time_position(void) { return LV2_TIME__Position; }

// Every property here is 8 bytes of key and context, an atom header, and a body of at most 8
// bytes padded to 8: 24 bytes, as lv2_atom_forge pads them.
enum { property_bytes = 24, property_count = 8, object_body_bytes = 8 + property_count * property_bytes };

static uint8_t *put_property(uint8_t *at, LV2_URID key, LV2_URID type, uint32_t size, const void *value) {
    memset(at, 0, property_bytes);
    LV2_Atom_Property_Body *property = (LV2_Atom_Property_Body *)at;
    property->key = key;
    property->context = 0;
    property->value.size = size;
    property->value.type = type;
    memcpy(at + sizeof(LV2_Atom_Property_Body), value, size);
    return at + property_bytes;
}

int pj_time_append_position(void *sequence, uint32_t capacity, int64_t frames, const PJTimePosition *position) {
    LV2_Atom_Sequence *events = (LV2_Atom_Sequence *)sequence;
    const uint32_t used = (uint32_t)sizeof(LV2_Atom) + lv2_atom_pad_size(events->atom.size);
    const uint32_t event_bytes = (uint32_t)sizeof(LV2_Atom_Event) + object_body_bytes;
    if (urids.position == 0 || used + event_bytes > capacity) return 0;
    uint8_t *at = (uint8_t *)sequence + used;
    LV2_Atom_Event *event = (LV2_Atom_Event *)at;
    event->time.frames = frames;
    event->body.size = object_body_bytes;
    event->body.type = urids.object;
    LV2_Atom_Object_Body *object = (LV2_Atom_Object_Body *)(at + sizeof(LV2_Atom_Event));
    object->id = 0;
    object->otype = urids.position;
    at += sizeof(LV2_Atom_Event) + sizeof(LV2_Atom_Object_Body);
    at = put_property(at, urids.frame, urids.atom_long, sizeof(int64_t), &position->frame);
    at = put_property(at, urids.speed, urids.atom_float, sizeof(float), &position->speed);
    at = put_property(at, urids.bar, urids.atom_long, sizeof(int64_t), &position->bar);
    at = put_property(at, urids.bar_beat, urids.atom_float, sizeof(float), &position->bar_beat);
    at = put_property(at, urids.beat, urids.atom_double, sizeof(double), &position->beat);
    at = put_property(at, urids.beat_unit, urids.atom_int, sizeof(int32_t), &position->beat_unit);
    at = put_property(at, urids.beats_per_bar, urids.atom_float, sizeof(float), &position->beats_per_bar);
    put_property(at, urids.beats_per_minute, urids.atom_float, sizeof(float), &position->beats_per_minute);
    events->atom.size = used - (uint32_t)sizeof(LV2_Atom) + event_bytes;
    return 1;
}
