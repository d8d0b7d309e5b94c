// LiteRT's C API (the ai-edge-litert wheel's libLiteRt.so), loaded with dlopen: Debian ships no
// LiteRT and the wheel ships no headers. A model is opened with its inputs' and outputs' buffers
// in host memory of our own (float32 only), then run as often as needed on one thread.
#ifndef PJ_LITE_RT_H
#define PJ_LITE_RT_H

#include <stddef.h>

typedef struct pj_litert_model pj_litert_model;

// Loads the library once (any thread; the caller serializes). 0, or -1 with `error` filled.
int pj_litert_load(const char *path, char *error, size_t error_size);

// A compiled model on the CPU with `threads` inference threads; NULL with `error` filled.
pj_litert_model *pj_litert_open(const char *model_path, int threads, char *error, size_t error_size);
void pj_litert_close(pj_litert_model *model);

size_t pj_litert_input_count(const pj_litert_model *model);
size_t pj_litert_output_count(const pj_litert_model *model);
// A tensor's floats (64-byte aligned, owned by the model) and how many; its shape into `dimensions`
// (up to 8), the rank returned.
float *pj_litert_input(pj_litert_model *model, size_t index, size_t *count);
float *pj_litert_output(pj_litert_model *model, size_t index, size_t *count);
int pj_litert_input_shape(const pj_litert_model *model, size_t index, int dimensions[8]);
int pj_litert_output_shape(const pj_litert_model *model, size_t index, int dimensions[8]);

// Runs the model on its inputs into its outputs: 0, or LiteRT's status.
int pj_litert_run(pj_litert_model *model);

#endif
