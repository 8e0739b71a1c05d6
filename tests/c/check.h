/* A minimal assertion kit for the C tests: count failures, report each. */
#ifndef CHATWIRE_TEST_CHECK_H
#define CHATWIRE_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "chatwire.h"

static int checks_failed = 0;
static int checks_passed = 0;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (cond) {                                                                     \
            checks_passed++;                                                            \
        } else {                                                                        \
            checks_failed++;                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,      \
                    __LINE__, #cond, chatwire_last_error());                            \
        }                                                                               \
    } while (0)

#define CHECK_STATUS(call, expected)                                                    \
    do {                                                                                \
        chatwire_status got_ = (call);                                                  \
        if (got_ == (expected)) {                                                       \
            checks_passed++;                                                            \
        } else {                                                                        \
            checks_failed++;                                                            \
            fprintf(stderr, "%s:%d: %s gave %d (%s), expected %s (last error: %s)\n",    \
                    __FILE__, __LINE__, #call, (int)got_, chatwire_status_str(got_),     \
                    #expected, chatwire_last_error());                                  \
        }                                                                               \
    } while (0)

/* True when the thread's last error mentions `needle`. */
static inline int last_error_mentions(const char *needle) {
    return strstr(chatwire_last_error(), needle) != NULL;
}

static inline int report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, checks_passed, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}

#endif
