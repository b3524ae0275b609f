// What writing a large output costs the process (docs/performance.md, "Writing the output"):
// the same bytes written in batches (1 MiB unless --batch says otherwise) to a new file, through a
// plain write loop and through atp::appendAll (which reserves each batch's blocks first where that
// pays), alternating, each round a new file. Reports process CPU (user + system) and wall per MiB.
// A small --batch shows what a write per chunk costs the recorder's writer against its batches
// (docs/performance.md#writing-the-output).
//
//   bench/write_cost [--mb N] [--rounds R] [--dir D] [--batch BYTES]
//                    (defaults: 400 MB, 3 rounds, /tmp, 1048576)
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "atp/format/safe_files.h"
#include "process_clocks.h"

namespace {

int plainWrite(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : ENOSPC;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return 0;
}

// Writes `mb` MiB to a new file in `dir`, then removes it; false on an error (printed).
bool writeOnce(const std::string& dir, size_t mb, size_t batchBytes, bool reserved, double& cpu,
               double& wall) {
    const std::vector<char> batch(batchBytes, 'x');
    const std::string path = dir + "/write_cost." + std::to_string(getpid());
    const int fd = perfmarker::atp::createNewFile(path, 0600);
    if (fd < 0) {
        std::fprintf(stderr, "write_cost: cannot create %s: %s\n", path.c_str(), strerror(errno));
        return false;
    }
    const double cpu0 = perfmarker::bench::processCpuNs();
    const double wall0 = perfmarker::bench::nowNs(CLOCK_MONOTONIC);
    int err = 0;
    const uint64_t total = uint64_t{mb} << 20;
    for (uint64_t at = 0; at < total && err == 0; at += batchBytes) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(batchBytes, total - at));
        err = reserved ? perfmarker::atp::appendAll(fd, at, batch.data(), n)
                       : plainWrite(fd, batch.data(), n);
    }
    if (close(fd) != 0 && err == 0) err = errno;
    cpu = perfmarker::bench::processCpuNs() - cpu0;
    wall = perfmarker::bench::nowNs(CLOCK_MONOTONIC) - wall0;
    unlink(path.c_str());
    if (err != 0)
        std::fprintf(stderr, "write_cost: cannot write %s: %s\n", path.c_str(), strerror(err));
    return err == 0;
}

}  // namespace

int main(int argc, char** argv) {
    size_t mb = 400;
    int rounds = 3;
    std::string dir = "/tmp";
    size_t batchBytes = size_t{1} << 20;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--mb" && i + 1 < argc) {
            mb = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--rounds" && i + 1 < argc) {
            rounds = std::atoi(argv[++i]);
        } else if (arg == "--dir" && i + 1 < argc) {
            dir = argv[++i];
        } else if (arg == "--batch" && i + 1 < argc) {
            batchBytes = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr,
                         "usage: write_cost [--mb N] [--rounds R] [--dir D] [--batch BYTES]\n");
            return 2;
        }
    }
    if (mb == 0 || rounds <= 0 || batchBytes == 0) {
        std::fprintf(stderr, "write_cost: --mb, --rounds and --batch must be positive\n");
        return 2;
    }
    std::printf("%zu MiB in writes of %zu bytes to %s; per MiB\n%-10s %12s %12s\n", mb, batchBytes,
                dir.c_str(), "how", "CPU us", "wall us");
    for (int r = 0; r < rounds; ++r) {
        for (const bool reserved : {false, true}) {
            double cpu = 0;
            double wall = 0;
            if (!writeOnce(dir, mb, batchBytes, reserved, cpu, wall)) return 1;
            std::printf("%-10s %12.1f %12.1f\n", reserved ? "appendAll" : "write", cpu / 1e3 / mb,
                        wall / 1e3 / mb);
        }
    }
    return 0;
}
