// jemalloc's control interface (mallctl): its version, and whether this process's malloc is jemalloc's.
#pragma once
#include <dlfcn.h>
#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdlib.h>

/// jemalloc's version string, or NULL when mallctl cannot read it.
static inline const char *_Nullable cjemalloc_version(void) {
    const char *version = NULL;
    size_t size = sizeof(version);
    return mallctl("version", (void *)&version, &size, NULL, 0) == 0 ? version : NULL;
}

/// The bytes jemalloc has allocated on the calling thread (its `thread.allocated` statistic), or 0 when it
/// keeps no statistics.
static inline uint64_t cjemalloc_thread_allocated(void) {
    uint64_t allocated = 0;
    size_t size = sizeof(allocated);
    return mallctl("thread.allocated", &allocated, &size, NULL, 0) == 0 ? allocated : 0;
}

/// 1 when a malloc of this process is served by jemalloc (its thread statistic grows by the block), 0 when
/// another definition of malloc (one preloaded, found first) serves it.
static inline int cjemalloc_serves_malloc(void) {
    uint64_t before = cjemalloc_thread_allocated();
    // Stored through a volatile pointer, so the compiler keeps the allocation.
    void *volatile block = malloc(4096);
    uint64_t after = cjemalloc_thread_allocated();
    free(block);
    return block != NULL && after - before >= 4096;
}

/// 1 when C++ `operator new` (which the Swift runtime and ICU use) is jemalloc's: Debian's jemalloc defines
/// it too, so a preloaded malloc that leaves new and delete alone splits the process between two allocators.
static inline int cjemalloc_serves_operator_new(void) {
    void *library = dlopen("libjemalloc.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (library == NULL) return 0;
    void *own = dlsym(library, "_Znwm");
    void *found = dlsym(RTLD_DEFAULT, "_Znwm");
    dlclose(library);
    return own != NULL && own == found;
}
