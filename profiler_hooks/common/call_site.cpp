#include "call_site.h"

#include <pthread.h>

namespace perfmarker::hooks {

__thread uintptr_t t_stackTop __attribute__((tls_model("initial-exec"))) = 0;
__thread CallSite t_callSite __attribute__((tls_model("initial-exec"))) = {0, 0};

uintptr_t computeStackTop() {
    uintptr_t top = 1;  // unknown: no frame passes the check
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* base = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &base, &size) == 0) {
            top = reinterpret_cast<uintptr_t>(base) + size;
        }
        pthread_attr_destroy(&attr);
    }
    return top;
}

}  // namespace perfmarker::hooks
