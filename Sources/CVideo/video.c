#include "video.h"

#include <dlfcn.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>

// FFmpeg's libraries are loaded with dlopen when a video is first opened, not linked: linked,
// every pulsejack process loaded 200 libraries for a feature most runs never use (libavdevice
// pulls in libavfilter and with it OpenBLAS, whose thread, started before main, took a Ctrl-C
// meant for the stop-signal thread and died of it). Loaded here, from a thread that blocks the
// stop signals, whatever threads they start inherit that.
#define PJ_STR2(x) #x
#define PJ_STR(x) PJ_STR2(x)
#define PJ_FFMPEG_LIBRARIES(X) \
    X(avutil, "libavutil.so." PJ_STR(LIBAVUTIL_VERSION_MAJOR)) \
    X(swscale, "libswscale.so." PJ_STR(LIBSWSCALE_VERSION_MAJOR)) \
    X(avcodec, "libavcodec.so." PJ_STR(LIBAVCODEC_VERSION_MAJOR)) \
    X(avformat, "libavformat.so." PJ_STR(LIBAVFORMAT_VERSION_MAJOR))

// Every call: its library, its name, its type.
#define PJ_FFMPEG_CALLS(X) \
    X(avutil, av_log_set_level, void (*)(int)) \
    X(avutil, av_strerror, int (*)(int, char *, size_t)) \
    X(avutil, av_frame_alloc, AVFrame *(*)(void)) \
    X(avutil, av_frame_free, void (*)(AVFrame **)) \
    X(avutil, av_frame_unref, void (*)(AVFrame *)) \
    X(swscale, sws_getCachedContext, struct SwsContext *(*)(struct SwsContext *, int, int, enum AVPixelFormat, int, int, \
        enum AVPixelFormat, int, SwsFilter *, SwsFilter *, const double *)) \
    X(swscale, sws_scale, int (*)(struct SwsContext *, const uint8_t *const[], const int[], int, int, uint8_t *const[], const int[])) \
    X(swscale, sws_freeContext, void (*)(struct SwsContext *)) \
    X(avcodec, avcodec_alloc_context3, AVCodecContext *(*)(const AVCodec *)) \
    X(avcodec, avcodec_parameters_to_context, int (*)(AVCodecContext *, const AVCodecParameters *)) \
    X(avcodec, avcodec_open2, int (*)(AVCodecContext *, const AVCodec *, AVDictionary **)) \
    X(avcodec, avcodec_free_context, void (*)(AVCodecContext **)) \
    X(avcodec, avcodec_send_packet, int (*)(AVCodecContext *, const AVPacket *)) \
    X(avcodec, avcodec_receive_frame, int (*)(AVCodecContext *, AVFrame *)) \
    X(avcodec, av_packet_alloc, AVPacket *(*)(void)) \
    X(avcodec, av_packet_free, void (*)(AVPacket **)) \
    X(avcodec, av_packet_unref, void (*)(AVPacket *)) \
    X(avformat, avformat_open_input, int (*)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **)) \
    X(avformat, avformat_find_stream_info, int (*)(AVFormatContext *, AVDictionary **)) \
    X(avformat, av_find_best_stream, int (*)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int)) \
    X(avformat, av_find_input_format, const AVInputFormat *(*)(const char *)) \
    X(avformat, avformat_close_input, void (*)(AVFormatContext **)) \
    X(avformat, av_read_frame, int (*)(AVFormatContext *, AVPacket *))

#define PJ_FFMPEG_POINTER(library, name, type) static __typeof__(type) pj_##name;
PJ_FFMPEG_CALLS(PJ_FFMPEG_POINTER)
static void (*pj_avdevice_register_all)(void);

static pthread_once_t load_once = PTHREAD_ONCE_INIT, devices_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load_libraries(void) {
#define PJ_FFMPEG_OPEN(library, file) \
    void *library = dlopen(file, RTLD_NOW | RTLD_LOCAL); \
    if (!library) { snprintf(load_error, sizeof load_error, "FFmpeg's %s (%s)", file, dlerror()); return; }
    PJ_FFMPEG_LIBRARIES(PJ_FFMPEG_OPEN)
#define PJ_FFMPEG_FIND(library, name, type) \
    *(void **)(&pj_##name) = dlsym(library, #name); \
    if (!pj_##name) { snprintf(load_error, sizeof load_error, "FFmpeg has no %s", #name); return; }
    PJ_FFMPEG_CALLS(PJ_FFMPEG_FIND)
    pj_av_log_set_level(AV_LOG_QUIET);
}

// libavdevice (and with it libavfilter's hundred libraries) only for a camera.
static void load_devices(void) {
    const char *file = "libavdevice.so." PJ_STR(LIBAVDEVICE_VERSION_MAJOR);
    void *library = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (library) *(void **)(&pj_avdevice_register_all) = dlsym(library, "avdevice_register_all");
    if (pj_avdevice_register_all) pj_avdevice_register_all();
}

struct pj_video {
    AVFormatContext *format;
    AVCodecContext *codec;
    struct SwsContext *scale;
    AVPacket *packet;
    AVFrame *frame;
    int stream, draining, width, height;
    double frame_rate, time_base;
};

static void say(char *error, size_t error_size, const char *what, int code) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    pj_av_strerror(code, reason, sizeof reason);
    snprintf(error, error_size, "%s: %s", what, reason);
}

pj_video *pj_video_open(const char *source, int camera, char *error, size_t error_size) {
    pthread_once(&load_once, load_libraries);
    if (load_error[0]) {
        snprintf(error, error_size, "%s: FFmpeg's libraries are not installed (Debian's libavformat59, libavcodec59 and libswscale6)", load_error);
        return NULL;
    }
    pj_video *video = calloc(1, sizeof(pj_video));
    if (!video) { snprintf(error, error_size, "out of memory"); return NULL; }
    const AVInputFormat *input = NULL;
    if (camera) {
        pthread_once(&devices_once, load_devices);
        input = pj_av_find_input_format("v4l2");
        if (!input) { snprintf(error, error_size, "this FFmpeg has no V4L2 input"); free(video); return NULL; }
    }
    int code = pj_avformat_open_input(&video->format, source, input, NULL);
    if (code < 0) { say(error, error_size, camera ? "the camera cannot be opened" : "it cannot be opened", code); free(video); return NULL; }
    code = pj_avformat_find_stream_info(video->format, NULL);
    const AVCodec *decoder = NULL;
    if (code >= 0) code = pj_av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (code < 0 || !decoder) {
        say(error, error_size, "it has no video FFmpeg can decode", code < 0 ? code : AVERROR_DECODER_NOT_FOUND);
        pj_video_close(video);
        return NULL;
    }
    video->stream = code;
    AVStream *stream = video->format->streams[code];
    video->codec = pj_avcodec_alloc_context3(decoder);
    if (!video->codec || pj_avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) {
        snprintf(error, error_size, "its decoder cannot be set up");
        pj_video_close(video);
        return NULL;
    }
    video->codec->thread_count = 1;
    code = pj_avcodec_open2(video->codec, decoder, NULL);
    if (code < 0) { say(error, error_size, "its decoder cannot be opened", code); pj_video_close(video); return NULL; }
    video->width = video->codec->width;
    video->height = video->codec->height;
    if (video->width <= 0 || video->height <= 0) { snprintf(error, error_size, "its frames have no size"); pj_video_close(video); return NULL; }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    video->frame_rate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    video->time_base = av_q2d(stream->time_base);
    video->packet = pj_av_packet_alloc();
    video->frame = pj_av_frame_alloc();
    if (!video->packet || !video->frame) { snprintf(error, error_size, "out of memory"); pj_video_close(video); return NULL; }
    return video;
}

void pj_video_close(pj_video *video) {
    if (!video) return;
    pj_sws_freeContext(video->scale);
    pj_av_frame_free(&video->frame);
    pj_av_packet_free(&video->packet);
    pj_avcodec_free_context(&video->codec);
    pj_avformat_close_input(&video->format);
    free(video);
}

int pj_video_width(const pj_video *video) { return video->width; }
int pj_video_height(const pj_video *video) { return video->height; }
double pj_video_frame_rate(const pj_video *video) { return video->frame_rate; }

static int convert(pj_video *video, uint8_t *rgb, double *seconds, char *error, size_t error_size) {
    AVFrame *frame = video->frame;
    if (frame->width != video->width || frame->height != video->height) {
        snprintf(error, error_size, "its frame size changed mid-stream (%dx%d, was %dx%d)", frame->width, frame->height, video->width, video->height);
        return -1;
    }
    video->scale = pj_sws_getCachedContext(video->scale, frame->width, frame->height, frame->format, video->width, video->height,
                                        AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    if (!video->scale) { snprintf(error, error_size, "its pixel format cannot be converted"); return -1; }
    uint8_t *planes[4] = { rgb, NULL, NULL, NULL };
    int strides[4] = { video->width * 3, 0, 0, 0 };
    pj_sws_scale(video->scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    int64_t stamp = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp : frame->pts;
    *seconds = stamp != AV_NOPTS_VALUE ? stamp * video->time_base : 0;
    pj_av_frame_unref(frame);
    return 1;
}

int pj_video_next(pj_video *video, uint8_t *rgb, double *seconds, char *error, size_t error_size) {
    for (;;) {
        int code = pj_avcodec_receive_frame(video->codec, video->frame);
        if (code == 0) return convert(video, rgb, seconds, error, error_size);
        if (code == AVERROR_EOF) return 0;
        if (code != AVERROR(EAGAIN)) { say(error, error_size, "a frame cannot be decoded", code); return -1; }
        if (video->draining) return 0;
        code = pj_av_read_frame(video->format, video->packet);
        if (code == AVERROR_EOF) {
            video->draining = 1;
            pj_avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (code < 0) { say(error, error_size, "it cannot be read on", code); return -1; }
        if (video->packet->stream_index == video->stream) {
            code = pj_avcodec_send_packet(video->codec, video->packet);
            if (code < 0 && code != AVERROR(EAGAIN)) { pj_av_packet_unref(video->packet); say(error, error_size, "a frame cannot be decoded", code); return -1; }
        }
        pj_av_packet_unref(video->packet);
    }
}
