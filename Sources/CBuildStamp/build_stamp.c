#include "build_stamp.h"

// commit.h is written by make (ignored by git), so a plain `swift build` still builds.
#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef PULSEJACK_COMMIT
#define PULSEJACK_COMMIT "unknown commit"
#endif

const char *pj_build_commit(void) { return PULSEJACK_COMMIT; }
