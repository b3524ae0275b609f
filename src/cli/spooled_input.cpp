#include "cli/spooled_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace perfmarker::cli {

SpooledInput::~SpooledInput() {
    if (m_fd >= 0) close(m_fd);
}

bool SpooledInput::open(const std::string& path, std::string& error) {
    m_readPath = path;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return true;
    const auto fail = [&](const char* what) {
        error = path + ": cannot read: " + what + ": " + std::strerror(errno);
        return false;
    };
    const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return fail("open");
    m_fd = memfd_create("perfmarker-input", MFD_CLOEXEC);
    if (m_fd < 0) {
        const int err = errno;
        close(in);
        errno = err;
        return fail("memfd_create");
    }
    std::vector<char> buffer(size_t{1} << 20);
    for (;;) {
        const ssize_t n = read(in, buffer.data(), buffer.size());
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        bool written = n > 0;
        for (ssize_t done = 0; written && done < n;) {
            const ssize_t w = write(m_fd, buffer.data() + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            written = w > 0;
            done += w > 0 ? w : 0;
        }
        if (!written) {
            const int err = errno;
            close(in);
            errno = err;
            return fail(n < 0 ? "read" : "copy to memory");
        }
    }
    close(in);
    m_readPath = "/proc/self/fd/" + std::to_string(m_fd);
    return true;
}

}  // namespace perfmarker::cli
