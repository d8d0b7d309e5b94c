#ifndef PJ_BUILD_STAMP_H
#define PJ_BUILD_STAMP_H

/// The commit this binary was built from (`git describe --always --dirty`), as `make` wrote it
/// into commit.h; "unknown commit" for a plain `swift build` that never ran make.
const char *pj_build_commit(void);

#endif
