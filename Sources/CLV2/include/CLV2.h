#ifndef CLV2_H
#define CLV2_H

/// LV2's URIs as C strings. lv2's headers define them as `PREFIX "name"` (two tokens), which
/// Swift does not import; these functions return them.
const char *pj_lv2_audio_port(void);
const char *pj_lv2_control_port(void);
const char *pj_lv2_input_port(void);
const char *pj_lv2_output_port(void);
const char *pj_lv2_atom_port(void);
const char *pj_lv2_atom_supports(void);
const char *pj_lv2_midi_event(void);
const char *pj_lv2_event_port(void);

#include "CLV2Host.h"
#include "CLV2Time.h"

#endif
