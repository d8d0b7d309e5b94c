// LiteRT's compiled-model C API through dlopen (declarations from the public google-ai-edge/LiteRT
// repository's litert/c headers; the calls are ABI-stable C).
#include "lite_rt.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *LiteRtHandle;
typedef int LiteRtStatus;
typedef void (*LiteRtDeallocator)(void *);
enum { kLiteRtHwAcceleratorCpu = 1, kLiteRtElementTypeFloat32 = 1, kMaxTensors = 8, kAlignment = 64 };

// LiteRtRankedTensorType: the element type, then LiteRtLayout (a rank:7/has_strides:1 word, 8
// dimensions, 8 strides): 4 + 4 + 32 + 32 bytes. Kept whole and passed back as LiteRT filled it.
typedef struct { int32_t element_type; uint32_t rank_bits; int32_t dimensions[8]; uint32_t strides[8]; } pj_ranked_tensor_type;

#define PJ_LITERT_CALLS(X) \
    X(CreateEnvironment, (int count, const void *options, LiteRtHandle *environment)) \
    X(CreateModelFromFile, (LiteRtHandle environment, const char *path, LiteRtHandle *model)) \
    X(CreateOptions, (LiteRtHandle *options)) \
    X(SetOptionsHardwareAccelerators, (LiteRtHandle options, int accelerators)) \
    X(CreateOpaqueOptions, (const char *identifier, void *payload, LiteRtDeallocator destructor, LiteRtHandle *options)) \
    X(AddOpaqueOptions, (LiteRtHandle options, LiteRtHandle opaque)) \
    X(CreateCompiledModel, (LiteRtHandle environment, LiteRtHandle model, LiteRtHandle options, LiteRtHandle *compiled)) \
    X(GetModelSignature, (LiteRtHandle model, size_t index, LiteRtHandle *signature)) \
    X(GetNumSignatureInputs, (LiteRtHandle signature, size_t *count)) \
    X(GetNumSignatureOutputs, (LiteRtHandle signature, size_t *count)) \
    X(GetSignatureInputTensorByIndex, (LiteRtHandle signature, size_t index, LiteRtHandle *tensor)) \
    X(GetSignatureOutputTensorByIndex, (LiteRtHandle signature, size_t index, LiteRtHandle *tensor)) \
    X(GetRankedTensorType, (LiteRtHandle tensor, pj_ranked_tensor_type *type)) \
    X(CreateTensorBufferFromHostMemory, (const pj_ranked_tensor_type *type, void *memory, size_t size, LiteRtDeallocator deallocator, \
        LiteRtHandle *buffer)) \
    X(RunCompiledModel, (LiteRtHandle compiled, size_t signature, size_t inputs, LiteRtHandle *input_buffers, size_t outputs, \
        LiteRtHandle *output_buffers))

#define PJ_LITERT_POINTER(name, parameters) static LiteRtStatus (*LiteRt##name) parameters;
PJ_LITERT_CALLS(PJ_LITERT_POINTER)
static void (*LiteRtDestroyCompiledModel)(LiteRtHandle);
static void (*LiteRtDestroyModel)(LiteRtHandle);
static void (*LiteRtDestroyOptions)(LiteRtHandle);
static void (*LiteRtDestroyTensorBuffer)(LiteRtHandle);

static atomic_int loaded;
static LiteRtHandle environment;

int pj_litert_load(const char *path, char *error, size_t error_size) {
    if (atomic_load(&loaded)) return 0;
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
#define PJ_LITERT_FIND(name, parameters) \
    *(void **)(&LiteRt##name) = dlsym(library, "LiteRt" #name); \
    if (!LiteRt##name) { snprintf(error, error_size, "%s has no LiteRt" #name " (not LiteRT's C API)", path); dlclose(library); return -1; }
    PJ_LITERT_CALLS(PJ_LITERT_FIND)
    PJ_LITERT_FIND(DestroyCompiledModel, ())
    PJ_LITERT_FIND(DestroyModel, ())
    PJ_LITERT_FIND(DestroyOptions, ())
    PJ_LITERT_FIND(DestroyTensorBuffer, ())
    LiteRtStatus status = LiteRtCreateEnvironment(0, NULL, &environment);
    if (status != 0) {
        snprintf(error, error_size, "LiteRT's environment could not be made (status %d)", status);
        return -1;
    }
    atomic_store(&loaded, 1);
    return 0;
}

typedef struct {
    pj_ranked_tensor_type type;
    float *data;
    size_t count;
    LiteRtHandle buffer;
} pj_tensor;

struct pj_litert_model {
    LiteRtHandle model, compiled;
    size_t input_count, output_count;
    pj_tensor inputs[kMaxTensors], outputs[kMaxTensors];
    LiteRtHandle input_buffers[kMaxTensors], output_buffers[kMaxTensors];
};

static int make_tensors(LiteRtHandle signature, size_t count, int outputs, pj_tensor *tensors, LiteRtHandle *buffers,
                        char *error, size_t error_size) {
    for (size_t index = 0; index < count; index++) {
        LiteRtHandle tensor = NULL;
        pj_tensor *made = &tensors[index];
        LiteRtStatus status = outputs ? LiteRtGetSignatureOutputTensorByIndex(signature, index, &tensor)
                                      : LiteRtGetSignatureInputTensorByIndex(signature, index, &tensor);
        if (status == 0) status = LiteRtGetRankedTensorType(tensor, &made->type);
        if (status != 0) { snprintf(error, error_size, "its tensors cannot be read (status %d)", status); return -1; }
        if (made->type.element_type != kLiteRtElementTypeFloat32) {
            snprintf(error, error_size, "its %s %zu is not float32", outputs ? "output" : "input", index);
            return -1;
        }
        size_t elements = 1;
        unsigned rank = made->type.rank_bits & 0x7f;
        for (unsigned axis = 0; axis < rank && axis < 8; axis++) {
            if (made->type.dimensions[axis] <= 0) { snprintf(error, error_size, "its tensors' shapes are not fixed"); return -1; }
            elements *= (size_t)made->type.dimensions[axis];
        }
        size_t bytes = (elements * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment;
        if (posix_memalign((void **)&made->data, kAlignment, bytes) != 0) { snprintf(error, error_size, "out of memory"); return -1; }
        memset(made->data, 0, bytes);
        made->count = elements;
        status = LiteRtCreateTensorBufferFromHostMemory(&made->type, made->data, bytes, NULL, &made->buffer);
        if (status != 0) { snprintf(error, error_size, "its buffers cannot be made (status %d)", status); return -1; }
        buffers[index] = made->buffer;
    }
    return 0;
}

pj_litert_model *pj_litert_open(const char *model_path, int threads, char *error, size_t error_size) {
    if (!atomic_load(&loaded)) { snprintf(error, error_size, "LiteRT is not loaded"); return NULL; }
    pj_litert_model *model = calloc(1, sizeof(pj_litert_model));
    if (!model) { snprintf(error, error_size, "out of memory"); return NULL; }
    LiteRtHandle options = NULL, opaque = NULL, signature = NULL;
    LiteRtStatus status = LiteRtCreateModelFromFile(environment, model_path, &model->model);
    if (status != 0) {
        snprintf(error, error_size, "not a model LiteRT can read (status %d)", status);
        pj_litert_close(model);
        return NULL;
    }
    // The CPU's (XNNPACK's) options travel as a TOML payload under the identifier "xnnpack".
    char *payload = malloc(64);
    if (payload) snprintf(payload, 64, "num_threads = %d\n", threads > 0 ? threads : 1);
    status = LiteRtCreateOptions(&options);
    if (status == 0) status = LiteRtSetOptionsHardwareAccelerators(options, kLiteRtHwAcceleratorCpu);
    if (status == 0 && payload) status = LiteRtCreateOpaqueOptions("xnnpack", payload, free, &opaque);
    if (status == 0 && opaque) status = LiteRtAddOpaqueOptions(options, opaque);
    if (status == 0) status = LiteRtCreateCompiledModel(environment, model->model, options, &model->compiled);
    if (options) LiteRtDestroyOptions(options);
    if (status != 0) {
        snprintf(error, error_size, "LiteRT cannot compile it for the CPU (status %d)", status);
        pj_litert_close(model);
        return NULL;
    }
    status = LiteRtGetModelSignature(model->model, 0, &signature);
    if (status == 0) status = LiteRtGetNumSignatureInputs(signature, &model->input_count);
    if (status == 0) status = LiteRtGetNumSignatureOutputs(signature, &model->output_count);
    if (status != 0 || model->input_count > kMaxTensors || model->output_count > kMaxTensors) {
        snprintf(error, error_size, "its signature cannot be read");
        pj_litert_close(model);
        return NULL;
    }
    if (make_tensors(signature, model->input_count, 0, model->inputs, model->input_buffers, error, error_size) != 0
        || make_tensors(signature, model->output_count, 1, model->outputs, model->output_buffers, error, error_size) != 0) {
        pj_litert_close(model);
        return NULL;
    }
    return model;
}

void pj_litert_close(pj_litert_model *model) {
    if (!model) return;
    for (size_t index = 0; index < kMaxTensors; index++) {
        pj_tensor *tensors[2] = { &model->inputs[index], &model->outputs[index] };
        for (int side = 0; side < 2; side++) {
            if (tensors[side]->buffer) LiteRtDestroyTensorBuffer(tensors[side]->buffer);
            free(tensors[side]->data);
        }
    }
    if (model->compiled) LiteRtDestroyCompiledModel(model->compiled);
    if (model->model) LiteRtDestroyModel(model->model);
    free(model);
}

size_t pj_litert_input_count(const pj_litert_model *model) { return model->input_count; }
size_t pj_litert_output_count(const pj_litert_model *model) { return model->output_count; }

float *pj_litert_input(pj_litert_model *model, size_t index, size_t *count) {
    *count = model->inputs[index].count;
    return model->inputs[index].data;
}

float *pj_litert_output(pj_litert_model *model, size_t index, size_t *count) {
    *count = model->outputs[index].count;
    return model->outputs[index].data;
}

static int shape(const pj_tensor *tensor, int dimensions[8]) {
    int rank = (int)(tensor->type.rank_bits & 0x7f);
    for (int axis = 0; axis < rank && axis < 8; axis++) dimensions[axis] = tensor->type.dimensions[axis];
    return rank;
}

int pj_litert_input_shape(const pj_litert_model *model, size_t index, int dimensions[8]) { return shape(&model->inputs[index], dimensions); }
int pj_litert_output_shape(const pj_litert_model *model, size_t index, int dimensions[8]) { return shape(&model->outputs[index], dimensions); }

int pj_litert_run(pj_litert_model *model) {
    return LiteRtRunCompiledModel(model->compiled, 0, model->input_count, model->input_buffers, model->output_count, model->output_buffers);
}
