// A full disk for a test, simulated with a file-size limit: writes past it fail with EFBIG (the
// same path as ENOSPC), and SIGXFSZ is ignored while it holds. For the scope of one of these.
#pragma once

#include <signal.h>
#include <sys/resource.h>

namespace perfmarker::test {

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) : m_bytes(bytes) {}
    ~FileSizeLimit() {
        if (!m_set) return;
        setrlimit(RLIMIT_FSIZE, &m_old);
        sigaction(SIGXFSZ, &m_previous, nullptr);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

    // False when the limit could not be set.
    bool set() {
        if (getrlimit(RLIMIT_FSIZE, &m_old) != 0) return false;
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGXFSZ, &ignore, &m_previous);
        rlimit small = m_old;
        small.rlim_cur = m_bytes;
        m_set = setrlimit(RLIMIT_FSIZE, &small) == 0;
        return m_set;
    }

private:
    rlim_t m_bytes;
    bool m_set = false;
    rlimit m_old{};
    struct sigaction m_previous {};
};

}  // namespace perfmarker::test
