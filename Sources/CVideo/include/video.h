// Video frames through FFmpeg's libraries (libavformat, libavcodec, libswscale, libavdevice's
// V4L2 input): the calls whose error codes and options are C macros, kept out of Swift.
#ifndef PJ_VIDEO_H
#define PJ_VIDEO_H

#include <stddef.h>
#include <stdint.h>

typedef struct pj_video pj_video;

// A file (anything FFmpeg reads: a video, a still image) or, with `camera`, a V4L2 device. NULL
// with `error` filled.
pj_video *pj_video_open(const char *source, int camera, char *error, size_t error_size);
void pj_video_close(pj_video *video);

int pj_video_width(const pj_video *video);
int pj_video_height(const pj_video *video);
// The stream's frame rate as it declares it (0 when it does not).
double pj_video_frame_rate(const pj_video *video);

// The next frame as packed RGB (width × height × 3 bytes into `rgb`), its time in seconds on the
// stream's clock (a camera's: the buffer's capture time) into `seconds`. 1 a frame, 0 the end,
// -1 an error (`error` filled).
int pj_video_next(pj_video *video, uint8_t *rgb, double *seconds, char *error, size_t error_size);

#endif
