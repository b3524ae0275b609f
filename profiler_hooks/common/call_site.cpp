#include "call_site.h"

#include <pthread.h>

namespace perfmarker::hooks {

uintptr_t threadStackTop() {
    thread_local uintptr_t top = 0;
    thread_local bool known = false;
    if (!known) {
        known = true;
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void* base = nullptr;
            size_t size = 0;
            if (pthread_attr_getstack(&attr, &base, &size) == 0) {
                top = reinterpret_cast<uintptr_t>(base) + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    return top;
}

}  // namespace perfmarker::hooks
