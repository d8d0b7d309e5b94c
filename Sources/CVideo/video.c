#include "video.h"

#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>

struct pj_video {
    AVFormatContext *format;
    AVCodecContext *codec;
    struct SwsContext *scale;
    AVPacket *packet;
    AVFrame *frame;
    int stream, draining, width, height;
    double frame_rate, time_base;
};

static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static void register_devices(void) { avdevice_register_all(); }

static void say(char *error, size_t error_size, const char *what, int code) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(code, reason, sizeof reason);
    snprintf(error, error_size, "%s: %s", what, reason);
}

pj_video *pj_video_open(const char *source, int camera, char *error, size_t error_size) {
    av_log_set_level(AV_LOG_QUIET);
    pj_video *video = calloc(1, sizeof(pj_video));
    if (!video) { snprintf(error, error_size, "out of memory"); return NULL; }
    const AVInputFormat *input = NULL;
    if (camera) {
        pthread_once(&devices_once, register_devices);
        input = av_find_input_format("v4l2");
        if (!input) { snprintf(error, error_size, "this FFmpeg has no V4L2 input"); free(video); return NULL; }
    }
    int code = avformat_open_input(&video->format, source, input, NULL);
    if (code < 0) { say(error, error_size, camera ? "the camera cannot be opened" : "it cannot be opened", code); free(video); return NULL; }
    code = avformat_find_stream_info(video->format, NULL);
    const AVCodec *decoder = NULL;
    if (code >= 0) code = av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (code < 0 || !decoder) {
        say(error, error_size, "it has no video FFmpeg can decode", code < 0 ? code : AVERROR_DECODER_NOT_FOUND);
        pj_video_close(video);
        return NULL;
    }
    video->stream = code;
    AVStream *stream = video->format->streams[code];
    video->codec = avcodec_alloc_context3(decoder);
    if (!video->codec || avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) {
        snprintf(error, error_size, "its decoder cannot be set up");
        pj_video_close(video);
        return NULL;
    }
    video->codec->thread_count = 1;
    code = avcodec_open2(video->codec, decoder, NULL);
    if (code < 0) { say(error, error_size, "its decoder cannot be opened", code); pj_video_close(video); return NULL; }
    video->width = video->codec->width;
    video->height = video->codec->height;
    if (video->width <= 0 || video->height <= 0) { snprintf(error, error_size, "its frames have no size"); pj_video_close(video); return NULL; }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    video->frame_rate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    video->time_base = av_q2d(stream->time_base);
    video->packet = av_packet_alloc();
    video->frame = av_frame_alloc();
    if (!video->packet || !video->frame) { snprintf(error, error_size, "out of memory"); pj_video_close(video); return NULL; }
    return video;
}

void pj_video_close(pj_video *video) {
    if (!video) return;
    sws_freeContext(video->scale);
    av_frame_free(&video->frame);
    av_packet_free(&video->packet);
    avcodec_free_context(&video->codec);
    avformat_close_input(&video->format);
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
    video->scale = sws_getCachedContext(video->scale, frame->width, frame->height, frame->format, video->width, video->height,
                                        AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    if (!video->scale) { snprintf(error, error_size, "its pixel format cannot be converted"); return -1; }
    uint8_t *planes[4] = { rgb, NULL, NULL, NULL };
    int strides[4] = { video->width * 3, 0, 0, 0 };
    sws_scale(video->scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    int64_t stamp = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp : frame->pts;
    *seconds = stamp != AV_NOPTS_VALUE ? stamp * video->time_base : 0;
    av_frame_unref(frame);
    return 1;
}

int pj_video_next(pj_video *video, uint8_t *rgb, double *seconds, char *error, size_t error_size) {
    for (;;) {
        int code = avcodec_receive_frame(video->codec, video->frame);
        if (code == 0) return convert(video, rgb, seconds, error, error_size);
        if (code == AVERROR_EOF) return 0;
        if (code != AVERROR(EAGAIN)) { say(error, error_size, "a frame cannot be decoded", code); return -1; }
        if (video->draining) return 0;
        code = av_read_frame(video->format, video->packet);
        if (code == AVERROR_EOF) {
            video->draining = 1;
            avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (code < 0) { say(error, error_size, "it cannot be read on", code); return -1; }
        if (video->packet->stream_index == video->stream) {
            code = avcodec_send_packet(video->codec, video->packet);
            if (code < 0 && code != AVERROR(EAGAIN)) { av_packet_unref(video->packet); say(error, error_size, "a frame cannot be decoded", code); return -1; }
        }
        av_packet_unref(video->packet);
    }
}
