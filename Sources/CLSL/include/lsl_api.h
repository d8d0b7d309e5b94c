// liblsl's C API (lsl_c.h, liblsl 1.14+), declared here from its documented interface and
// loaded at run time (pj_lsl_load): every feature but `--lsl` runs without the library.
// Only the calls pulsejack makes are declared; each pj_lsl_<name> calls lsl_<name>.
#ifndef PULSEJACK_LSL_API_H
#define PULSEJACK_LSL_API_H

#include <stddef.h>
#include <stdint.h>

#define PJ_LSL_IRREGULAR_RATE 0.0
#define PJ_LSL_FOREVER 32000000.0

typedef struct lsl_streaminfo_struct_ *lsl_streaminfo;
typedef struct lsl_outlet_struct_ *lsl_outlet;
typedef struct lsl_inlet_struct_ *lsl_inlet;
typedef struct lsl_xml_ptr_struct_ *lsl_xml_ptr;
typedef struct lsl_continuous_resolver_ *lsl_continuous_resolver;

typedef enum {
    cft_undefined = 0, cft_float32 = 1, cft_double64 = 2, cft_string = 3,
    cft_int32 = 4, cft_int16 = 5, cft_int8 = 6, cft_int64 = 7,
} lsl_channel_format_t;

typedef enum {
    lsl_no_error = 0, lsl_timeout_error = -1, lsl_lost_error = -2,
    lsl_argument_error = -3, lsl_internal_error = -4,
} lsl_error_code_t;

/// Loads liblsl from `path` (a file, or a name the dynamic loader searches for) and finds every
/// call below. 0 when loaded (or already loaded); else -1 with the reason in `error`.
int pj_lsl_load(const char *path, char *error, size_t error_size);

/// liblsl's configuration (lsl_api.cfg's text), before anything else is called.
void pj_lsl_set_config_content(const char *content);
/// The protocol version; the first call reads the configuration.
int32_t pj_lsl_protocol_version(void);
void pj_lsl_destroy_string(char *s);

lsl_streaminfo pj_lsl_create_streaminfo(const char *name, const char *type, int32_t channel_count, double nominal_srate,
                                        lsl_channel_format_t channel_format, const char *source_id);
void pj_lsl_destroy_streaminfo(lsl_streaminfo info);
const char *pj_lsl_get_name(lsl_streaminfo info);
const char *pj_lsl_get_type(lsl_streaminfo info);
const char *pj_lsl_get_source_id(lsl_streaminfo info);
const char *pj_lsl_get_hostname(lsl_streaminfo info);
int32_t pj_lsl_get_channel_count(lsl_streaminfo info);
double pj_lsl_get_nominal_srate(lsl_streaminfo info);
lsl_channel_format_t pj_lsl_get_channel_format(lsl_streaminfo info);
lsl_xml_ptr pj_lsl_get_desc(lsl_streaminfo info);

lsl_xml_ptr pj_lsl_append_child(lsl_xml_ptr e, const char *name);
lsl_xml_ptr pj_lsl_append_child_value(lsl_xml_ptr e, const char *name, const char *value);
lsl_xml_ptr pj_lsl_child(lsl_xml_ptr e, const char *name);
lsl_xml_ptr pj_lsl_next_sibling_n(lsl_xml_ptr e, const char *name);
const char *pj_lsl_child_value_n(lsl_xml_ptr e, const char *name);
int32_t pj_lsl_empty(lsl_xml_ptr e);

lsl_outlet pj_lsl_create_outlet(lsl_streaminfo info, int32_t chunk_size, int32_t max_buffered);
void pj_lsl_destroy_outlet(lsl_outlet out);
int32_t pj_lsl_push_sample_ftp(lsl_outlet out, const float *data, double timestamp, int32_t pushthrough);
int32_t pj_lsl_push_sample_strtp(lsl_outlet out, const char **data, double timestamp, int32_t pushthrough);
int32_t pj_lsl_have_consumers(lsl_outlet out);

int32_t pj_lsl_resolve_all(lsl_streaminfo *buffer, uint32_t buffer_elements, double wait_time);

lsl_continuous_resolver pj_lsl_create_continuous_resolver_bypred(const char *pred, double forget_after);
int32_t pj_lsl_resolver_results(lsl_continuous_resolver res, lsl_streaminfo *buffer, uint32_t buffer_elements);
void pj_lsl_destroy_continuous_resolver(lsl_continuous_resolver res);

lsl_inlet pj_lsl_create_inlet(lsl_streaminfo info, int32_t max_buflen, int32_t max_chunklen, int32_t recover);
void pj_lsl_destroy_inlet(lsl_inlet in);
lsl_streaminfo pj_lsl_get_fullinfo(lsl_inlet in, double timeout, int32_t *ec);
void pj_lsl_open_stream(lsl_inlet in, double timeout, int32_t *ec);
double pj_lsl_time_correction(lsl_inlet in, double timeout, int32_t *ec);
unsigned long pj_lsl_pull_chunk_d(lsl_inlet in, double *data_buffer, double *timestamp_buffer, unsigned long data_buffer_elements,
                                  unsigned long timestamp_buffer_elements, double timeout, int32_t *ec);
double pj_lsl_pull_sample_str(lsl_inlet in, char **buffer, int32_t buffer_elements, double timeout, int32_t *ec);

#endif
