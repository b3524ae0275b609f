#include "atp/merge/finished_markers.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "atp/format/finished_receipt.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {
namespace {

constexpr size_t kBlock = size_t{1} << 20;

// Reads the file at `fd` a block at a time and calls `line(text, newline)` for each line, its
// '\n' left out (`newline` false for a last line that has none), then `blockDone()` while the
// lines of the block are still valid. A `line` that returns false stops the reading. False
// with `error` on a read error. A line longer than the block grows the buffer.
template <typename Line, typename BlockDone>
bool forEachLine(int fd, Line&& line, BlockDone&& blockDone, std::string& error) {
    std::vector<char> buf(kBlock);
    size_t kept = 0;  // a line cut by the last read, moved to the start of the buffer
    for (;;) {
        if (kept == buf.size()) buf.resize(2 * buf.size());
        const ssize_t n = read(fd, buf.data() + kept, buf.size() - kept);
        if (n < 0) {
            if (errno == EINTR) continue;
            error = std::strerror(errno);
            return false;
        }
        const char* p = buf.data();
        const char* const end = p + kept + static_cast<size_t>(n);
        bool more = true;
        while (more) {
            const void* newline = std::memchr(p, '\n', static_cast<size_t>(end - p));
            if (newline == nullptr) break;
            const auto* at = static_cast<const char*>(newline);
            more = line(std::string_view(p, static_cast<size_t>(at - p)), true);
            p = at + 1;
        }
        if (more && n == 0 && p < end)
            more = line(std::string_view(p, static_cast<size_t>(end - p)), false);
        blockDone();
        if (!more || n == 0) return true;
        kept = static_cast<size_t>(end - p);
        std::memmove(buf.data(), p, kept);
    }
}

// A line the copy leaves out: blank, a section line, or "ProfilerVersion=".
bool skipped(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t");
    return first == std::string_view::npos || text[first] == '=' ||
           text.compare(first, 16, "ProfilerVersion=") == 0;
}

class ThreadCounter final : public PerfmarkerListener {
public:
    void onThread(uint64_t, uint64_t) override { ++threads; }
    void onMarker(uint64_t, const Marker&) override {}
    uint64_t threads = 0;
};

}  // namespace

bool checkFinishedMarkerFile(const std::string& path, FinishedMarkerFile& file,
                             std::string& problem) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        problem = path + ": cannot open: " + std::strerror(errno);
        return false;
    }
    FinishedReceipt receipt;
    if (readFinishedReceipt(fd, receipt)) {
        close(fd);
        file = FinishedMarkerFile{receipt.threads, true};
        return true;
    }
    ThreadCounter counter;
    PerfmarkerSectionParser parser(counter);
    uint64_t number = 0;
    bool inSection = false;
    std::string error;
    const auto check = [&](std::string_view text, bool) {
        ++number;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (isPerfmarkerSectionLine(text)) {
            inSection = true;
        } else if (text.rfind("=====", 0) == 0) {
            error = std::to_string(number) + ": section '" + std::string(text) +
                    "' is not a Perfmarker section";
        } else if (!inSection && text.find_first_not_of(" \t") != std::string_view::npos) {
            error = std::to_string(number) + ": expected the Perfmarker section line, got '" +
                    std::string(text.substr(0, 60)) + "'";
        } else if (inSection) {
            parser.feedLine(text, number, error);
        }
        return error.empty();
    };
    std::string readError;
    const bool read = forEachLine(
        fd, check, [] {}, readError);
    close(fd);
    if (error.empty() && !read) error = std::to_string(number + 1) + ": read error";
    if (error.empty()) parser.finish(number + 1, error);
    if (error.rfind("line ", 0) == 0) error.erase(0, 5);  // the parser's "line N: ..."
    file = FinishedMarkerFile{counter.threads, false};
    if (error.empty()) return true;
    problem = path + ":" + error;
    return false;
}

bool copyFinishedMarkerLines(const std::string& path, AtpFileWriter& out, std::string& error) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = path + ": cannot open: " + std::strerror(errno);
        return false;
    }
    FinishedReceipt receipt;
    if (readFinishedReceipt(fd, receipt)) {
        // Our finalize wrote the section line, then only thread blocks: no line to leave out.
        const bool copied =
            out.copyFrom(fd, path, receipt.bodyOffset, receipt.size - receipt.bodyOffset);
        close(fd);
        return copied;
    }
    // Kept lines that lie one after the other in the block, '\n' included, go out in one write.
    const char* runStart = nullptr;
    const char* runEnd = nullptr;
    bool ok = true;
    const auto flush = [&] {
        if (runStart != runEnd) {
            ok = ok && out.write({runStart, static_cast<size_t>(runEnd - runStart)});
        }
        runStart = runEnd = nullptr;
    };
    const auto copy = [&](std::string_view line, bool newline) {
        std::string_view text = line;
        const bool cr = !text.empty() && text.back() == '\r';
        if (cr) text.remove_suffix(1);
        if (skipped(text)) {
            flush();
        } else if (cr || !newline) {
            flush();
            ok = ok && out.write(text) && out.write("\n");
        } else {
            if (runEnd != line.data()) {
                flush();
                runStart = line.data();
            }
            runEnd = line.data() + line.size() + 1;
        }
        return ok;
    };
    std::string readError;
    const bool read = forEachLine(fd, copy, flush, readError);
    close(fd);
    if (!read) error = path + ": read error: " + readError;
    return read && ok;
}

}  // namespace perfmarker::atp
