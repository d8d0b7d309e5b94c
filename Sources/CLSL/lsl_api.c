// liblsl loaded with dlopen: each call found once by dlsym, then called through its pointer.
#include "lsl_api.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

// Every call: its name, return type, `return` unless void, parameters and arguments.
#define PJ_LSL_CALLS(X) \
    X(set_config_content, void, , (const char *content), (content)) \
    X(protocol_version, int32_t, return, (void), ()) \
    X(destroy_string, void, , (char *s), (s)) \
    X(create_streaminfo, lsl_streaminfo, return, (const char *name, const char *type, int32_t channel_count, double nominal_srate, \
        lsl_channel_format_t channel_format, const char *source_id), (name, type, channel_count, nominal_srate, channel_format, source_id)) \
    X(destroy_streaminfo, void, , (lsl_streaminfo info), (info)) \
    X(get_name, const char *, return, (lsl_streaminfo info), (info)) \
    X(get_type, const char *, return, (lsl_streaminfo info), (info)) \
    X(get_source_id, const char *, return, (lsl_streaminfo info), (info)) \
    X(get_hostname, const char *, return, (lsl_streaminfo info), (info)) \
    X(get_channel_count, int32_t, return, (lsl_streaminfo info), (info)) \
    X(get_nominal_srate, double, return, (lsl_streaminfo info), (info)) \
    X(get_channel_format, lsl_channel_format_t, return, (lsl_streaminfo info), (info)) \
    X(get_desc, lsl_xml_ptr, return, (lsl_streaminfo info), (info)) \
    X(append_child, lsl_xml_ptr, return, (lsl_xml_ptr e, const char *name), (e, name)) \
    X(append_child_value, lsl_xml_ptr, return, (lsl_xml_ptr e, const char *name, const char *value), (e, name, value)) \
    X(child, lsl_xml_ptr, return, (lsl_xml_ptr e, const char *name), (e, name)) \
    X(next_sibling_n, lsl_xml_ptr, return, (lsl_xml_ptr e, const char *name), (e, name)) \
    X(child_value_n, const char *, return, (lsl_xml_ptr e, const char *name), (e, name)) \
    X(empty, int32_t, return, (lsl_xml_ptr e), (e)) \
    X(create_outlet, lsl_outlet, return, (lsl_streaminfo info, int32_t chunk_size, int32_t max_buffered), (info, chunk_size, max_buffered)) \
    X(destroy_outlet, void, , (lsl_outlet out), (out)) \
    X(push_sample_ftp, int32_t, return, (lsl_outlet out, const float *data, double timestamp, int32_t pushthrough), (out, data, timestamp, pushthrough)) \
    X(push_sample_strtp, int32_t, return, (lsl_outlet out, const char **data, double timestamp, int32_t pushthrough), (out, data, timestamp, pushthrough)) \
    X(have_consumers, int32_t, return, (lsl_outlet out), (out)) \
    X(resolve_all, int32_t, return, (lsl_streaminfo *buffer, uint32_t buffer_elements, double wait_time), (buffer, buffer_elements, wait_time)) \
    X(create_continuous_resolver_bypred, lsl_continuous_resolver, return, (const char *pred, double forget_after), (pred, forget_after)) \
    X(resolver_results, int32_t, return, (lsl_continuous_resolver res, lsl_streaminfo *buffer, uint32_t buffer_elements), (res, buffer, buffer_elements)) \
    X(destroy_continuous_resolver, void, , (lsl_continuous_resolver res), (res)) \
    X(create_inlet, lsl_inlet, return, (lsl_streaminfo info, int32_t max_buflen, int32_t max_chunklen, int32_t recover), (info, max_buflen, max_chunklen, recover)) \
    X(destroy_inlet, void, , (lsl_inlet in), (in)) \
    X(get_fullinfo, lsl_streaminfo, return, (lsl_inlet in, double timeout, int32_t *ec), (in, timeout, ec)) \
    X(open_stream, void, , (lsl_inlet in, double timeout, int32_t *ec), (in, timeout, ec)) \
    X(time_correction, double, return, (lsl_inlet in, double timeout, int32_t *ec), (in, timeout, ec)) \
    X(pull_chunk_d, unsigned long, return, (lsl_inlet in, double *data_buffer, double *timestamp_buffer, unsigned long data_buffer_elements, \
        unsigned long timestamp_buffer_elements, double timeout, int32_t *ec), \
        (in, data_buffer, timestamp_buffer, data_buffer_elements, timestamp_buffer_elements, timeout, ec)) \
    X(pull_sample_str, double, return, (lsl_inlet in, char **buffer, int32_t buffer_elements, double timeout, int32_t *ec), (in, buffer, buffer_elements, timeout, ec)) \
    X(samples_available, uint32_t, return, (lsl_inlet in), (in))

#define PJ_LSL_POINTER(name, result, give, parameters, arguments) static result (*lsl_##name##_pointer) parameters;
PJ_LSL_CALLS(PJ_LSL_POINTER)

// Set once every pointer is found (LSLLibrary calls pj_lsl_load under its lock).
static atomic_int loaded;

int pj_lsl_load(const char *path, char *error, size_t error_size) {
    if (atomic_load(&loaded)) return 0;
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
#define PJ_LSL_FIND(name, result, give, parameters, arguments) \
    *(void **)(&lsl_##name##_pointer) = dlsym(library, "lsl_" #name); \
    if (!lsl_##name##_pointer) { \
        snprintf(error, error_size, "%s has no lsl_" #name " (liblsl 1.14 or later is needed)", path); \
        dlclose(library); \
        return -1; \
    }
    PJ_LSL_CALLS(PJ_LSL_FIND)
    atomic_store(&loaded, 1);
    return 0;
}

#define PJ_LSL_WRAPPER(name, result, give, parameters, arguments) \
    result pj_lsl_##name parameters { give lsl_##name##_pointer arguments; }
PJ_LSL_CALLS(PJ_LSL_WRAPPER)
