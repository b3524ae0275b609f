// Unit tests of the marker core (src/markers/marker_core.h): fork, and the process id in the
// output's base name. Helpers and the CoreTest fixture are in markers_core_support.h.
#include "markers_core_support.h"

#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#if PERFMARKER_TEST_TSAN
// The fork tests fork while the recorder's writer thread runs, and the child starts its own
// writer: TSan refuses new threads after a multi-threaded fork unless told otherwise.
extern "C" const char* __tsan_default_options() { return "die_after_fork=0"; }
#endif

namespace perfmarker::markers {
namespace {

using namespace core_test;

// ---- fork ----------------------------------------------------------------------------------

TEST_P(CoreTest, ForkedChildWritesItsOwnFile) {
#if PERFMARKER_TEST_SANITIZED
    // The parent forks while its writer thread runs. TSan cannot start threads in such a child
    // ("dup thread with used id"), and ASan's allocator (GCC 12) has no fork handlers: a child
    // forked while another thread holds its lock deadlocks in malloc. The normal build runs it.
    GTEST_SKIP() << "sanitizers do not support this multi-threaded fork";
#endif
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        TempDir out;
        const std::string childBase = out.path() + "/out";
        setEnv("PERFMARKER_OUTPUT", childBase);
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "5");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        ASSERT_EQ(core.begin("parent before", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
        ASSERT_EQ(core.begin("parent spanning", nullptr, nullptr), kSuccess);
        std::thread parentWorker([&] {  // a second parent thread, busy while the child forks
            for (int i = 0; i < 200; ++i) {
                EXPECT_EQ(core.begin("parent worker", nullptr, nullptr), kSuccess);
                EXPECT_EQ(core.end(), kSuccess);
            }
        });
        const std::string e = ext();
        ChildResult child = runInChild([&](ChildReport& report) {
            // The parent's open marker is the parent's: the child starts with no open marker.
            CHILD_EXPECT_EQ(report, core.end(), kUnbalanced);
            CHILD_EXPECT_EQ(report, core.begin("child", "kid", nullptr), kSuccess);
            CHILD_EXPECT_EQ(report, core.end(), kSuccess);
            std::thread childWorker([&] {
                CHILD_EXPECT_EQ(report, core.begin("child worker", nullptr, nullptr), kSuccess);
                CHILD_EXPECT_EQ(report, core.end(), kSuccess);
            });
            childWorker.join();
            const std::string expected =
                childBase + "." + std::to_string(getpid()) + "." + e;
            if (core.outputPath() != expected) {
                report.fail(__LINE__, "output path " + core.outputPath() + " != " + expected);
            }
            CHILD_EXPECT_EQ(report, core.finalize(), kSuccess);
        });
        parentWorker.join();
        EXPECT_TRUE(child.exitedCleanly()) << "status " << child.status;
        EXPECT_EQ(child.failures, "");
        ASSERT_EQ(core.end(), kSuccess);
        ASSERT_EQ(core.begin("parent after", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
        EXPECT_EQ(core.outputPath(), childBase + "." + ext());
        ASSERT_EQ(core.finalize(), kSuccess);

        atp::PerfmarkerFile childFile;
        ASSERT_TRUE(parseFile(childBase + "." + std::to_string(child.pid) + "." + ext(),
                              childFile));
        EXPECT_THAT(childFile.warnings, IsEmpty());
        ASSERT_EQ(childFile.threads.size(), 2u);
        const atp::ThreadMarkers* childMain =
            findThread(childFile, static_cast<uint64_t>(child.pid));
        ASSERT_NE(childMain, nullptr);
        EXPECT_THAT(describe(*childMain), ElementsAre("B child|kid", "E"));
        for (const auto& t : childFile.threads) {
            if (&t != childMain) {
                EXPECT_THAT(describe(t), ElementsAre("B child worker|Default", "E"));
            }
        }

        atp::PerfmarkerFile parentFile;
        ASSERT_TRUE(parseFile(childBase + "." + ext(), parentFile));
        EXPECT_THAT(parentFile.warnings, IsEmpty());
        ASSERT_EQ(parentFile.threads.size(), 2u);
        const atp::ThreadMarkers* parentMain = findThread(parentFile, currentTid());
        ASSERT_NE(parentMain, nullptr);
        EXPECT_THAT(describe(*parentMain),
                    ElementsAre("B parent before|Default", "E", "B parent spanning|Default", "E",
                                "B parent after|Default", "E"));
        for (const auto& t : parentFile.threads) {
            if (&t == parentMain) continue;
            EXPECT_EQ(t.markers.size(), 400u);
            for (const atp::Marker& m : t.markers) {
                if (m.kind == atp::MarkerKind::Begin) {
                    EXPECT_EQ(m.name, "parent worker");
                }
            }
        }
        // Nothing else: no fragments left by either process, no temporary files.
        EXPECT_THAT(listDir(out.path()),
                    ::testing::UnorderedElementsAre(
                        "out." + ext(), "out." + std::to_string(child.pid) + "." + ext()));
    }
}

TEST_P(CoreTest, PidTokenInTheBaseExpandsToTheProcessId) {
    const std::string pattern = dir() + "/trace-___PID___-x___PID___";
    setEnv("PERFMARKER_OUTPUT", pattern);
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    const std::string e = ext();
    const std::string d = dir();
    // Forks before the parent records (so also before it has a writer thread, as TSan needs).
    ChildResult child = runInChild([&](ChildReport& report) {
        CHILD_EXPECT_EQ(report, core.begin("child", nullptr, nullptr), kSuccess);
        CHILD_EXPECT_EQ(report, core.end(), kSuccess);
        const std::string pid = std::to_string(getpid());
        const std::string expected = d + "/trace-" + pid + "-x" + pid + "." + e;
        if (core.outputPath() != expected) {
            report.fail(__LINE__, "output path " + core.outputPath() + " != " + expected);
        }
        CHILD_EXPECT_EQ(report, core.finalize(), kSuccess);
    });
    EXPECT_TRUE(child.exitedCleanly());
    EXPECT_EQ(child.failures, "");
    ASSERT_EQ(core.begin("parent", nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.end(), kSuccess);
    ASSERT_EQ(core.finalize(), kSuccess);
    const std::string pid = std::to_string(getpid());
    const std::string cpid = std::to_string(child.pid);
    atp::PerfmarkerFile parentFile;
    ASSERT_TRUE(parseFile(dir() + "/trace-" + pid + "-x" + pid + "." + ext(), parentFile));
    ASSERT_EQ(parentFile.threads.size(), 1u);
    EXPECT_THAT(describe(parentFile.threads[0]), ElementsAre("B parent|Default", "E"));
    atp::PerfmarkerFile childFile;
    ASSERT_TRUE(parseFile(dir() + "/trace-" + cpid + "-x" + cpid + "." + ext(), childFile));
    ASSERT_EQ(childFile.threads.size(), 1u);
    EXPECT_THAT(describe(childFile.threads[0]), ElementsAre("B child|Default", "E"));
    EXPECT_EQ(listDir(dir()).size(), 2u);
}

}  // namespace
}  // namespace perfmarker::markers
