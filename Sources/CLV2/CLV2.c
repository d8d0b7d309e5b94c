#include "CLV2.h"
#include <lv2/atom/atom.h>
#include <lv2/core/lv2.h>
#include <lv2/event/event.h>
#include <lv2/midi/midi.h>

const char *pj_lv2_audio_port(void) { return LV2_CORE__AudioPort; }
const char *pj_lv2_control_port(void) { return LV2_CORE__ControlPort; }
const char *pj_lv2_input_port(void) { return LV2_CORE__InputPort; }
const char *pj_lv2_output_port(void) { return LV2_CORE__OutputPort; }
const char *pj_lv2_atom_port(void) { return LV2_ATOM__AtomPort; }
const char *pj_lv2_atom_supports(void) { return LV2_ATOM__supports; }
const char *pj_lv2_midi_event(void) { return LV2_MIDI__MidiEvent; }
const char *pj_lv2_event_port(void) { return LV2_EVENT__EventPort; }
