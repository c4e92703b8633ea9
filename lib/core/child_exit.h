/*
 * child_exit.h — how a forked worker ends.  Workers end with _exit() so they never
 * run the parent's atexit handlers or flush its copied stdio buffers; but _exit()
 * also skips gcov's exit hook, so in a coverage build (configure
 * --enable-code-coverage defines SHC_COVERAGE, mk/coverage.am) the worker's
 * counters are written first, or every line only workers run reads as uncovered.
 * Used by tools/run/run_check.c and tools/run/backend_plugin.c; tested by run_faults.sh
 * and, for the counters, by the coverage report itself.
 */
#ifndef SHC_CHILD_EXIT_H
#define SHC_CHILD_EXIT_H
#include <unistd.h>

#ifdef SHC_COVERAGE
void __gcov_dump(void); /* libgcov (GCC >= 11) */
#endif

static inline _Noreturn void shc_child_exit(int code)
{
#ifdef SHC_COVERAGE
    __gcov_dump();
#endif
    _exit(code);
}
#endif
