// Unit tests of the marker core (src/markers/marker_core.h): the state machine and its return
// codes, and failures to write the output. Helpers and the CoreTest fixture, instantiated
// here for every markers_core_*_test.cpp, are in markers_core_support.h.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "markers_core_support.h"

namespace perfmarker::markers {
namespace {

using namespace core_test;

// ---- state machine and return codes --------------------------------------------------------

TEST_P(CoreTest, EveryCallBeforeInitializeIsUninitialized) {
    MarkerCore core(flavor(), fakeLookup);
    EXPECT_EQ(core.begin("a", nullptr, nullptr), kUninitialized);
    EXPECT_EQ(core.begin(nullptr, nullptr, nullptr), kUninitialized);
    EXPECT_EQ(core.end(), kUninitialized);
    EXPECT_EQ(core.endEx("a", "g", "u"), kUninitialized);
    EXPECT_EQ(core.finalize(), kUninitialized);
    EXPECT_THAT(listDir(dir()), IsEmpty());
    // Still usable afterwards.
    EXPECT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.finalize(), kSuccess);
    EXPECT_TRUE(exists(outFile()));
}

TEST_P(CoreTest, InitializeWithoutSessionIsNotDetectedAndRecordsNothing) {
    fakeEnv().clear();
    setEnv("PERFMARKER_MODE", "cached");  // options without PERFMARKER_OUTPUT make no session
    MarkerCore core(flavor(), fakeLookup);
    EXPECT_EQ(core.initialize(), kNotDetected);
    EXPECT_EQ(core.initialize(), kNotDetected);
    EXPECT_EQ(core.begin("a", nullptr, nullptr), kUninitialized);
    EXPECT_EQ(core.end(), kUninitialized);
    EXPECT_EQ(core.endEx("a", nullptr, nullptr), kUninitialized);
    EXPECT_EQ(core.finalize(), kUninitialized);
    EXPECT_EQ(core.recorder(), nullptr);
    EXPECT_THAT(listDir(dir()), IsEmpty());
}

TEST_P(CoreTest, InvalidSessionReturnsTheFlavorCode) {
    const std::vector<std::pair<const char*, const char*>> invalid = {
        {"PERFMARKER_MODE", "bogus"},      {"PERFMARKER_MODE", ""},
        {"PERFMARKER_INTERVAL_MS", "0"},   {"PERFMARKER_INTERVAL_MS", "12ms"},
        {"PERFMARKER_INTERVAL_MS", "-5"},  {"PERFMARKER_INTERVAL_MS", "3600001"},
        {"PERFMARKER_MAX_MEMORY_MB", "0"}, {"PERFMARKER_TMPDIR", ""},
        {"PERFMARKER_OUTPUT", ""},
    };
    for (const auto& [name, value] : invalid) {
        SCOPED_TRACE(std::string(name) + "='" + value + "'");
        fakeEnv().clear();
        setEnv("PERFMARKER_OUTPUT", base());
        setEnv(name, value);
        MarkerCore core(flavor(), fakeLookup);
        ::testing::internal::CaptureStderr();
        const int code = core.initialize();
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(code, invalidCode());
        EXPECT_THAT(err, HasSubstr("perfmarker: invalid session"));
        EXPECT_THAT(err, HasSubstr(name));
        EXPECT_EQ(core.begin("a", nullptr, nullptr), kUninitialized);
        EXPECT_EQ(core.end(), kUninitialized);
        EXPECT_EQ(core.finalize(), kUninitialized);
    }
    EXPECT_THAT(listDir(dir()), IsEmpty());
}

TEST_P(CoreTest, InitializeTwiceSucceedsAndKeepsRecording) {
    MarkerCore core(flavor(), fakeLookup);
    EXPECT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.begin("first", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.end(), kSuccess);  // the second initialize did not reset the nesting
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_EQ(file.threads[0].tid, currentTid());
    EXPECT_THAT(describe(file.threads[0]), ElementsAre("B first|Default", "E"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST_P(CoreTest, NullNameIsRejectedAndRecordsNothing) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.begin(nullptr, "group", "user"), kNullName);
    EXPECT_EQ(core.end(), kUnbalanced);                     // the rejected begin opened nothing
    EXPECT_EQ(core.begin("", nullptr, nullptr), kSuccess);  // empty is a name
    EXPECT_EQ(core.end(), kSuccess);
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]), ElementsAre("B |Default", "E"));
}

TEST_P(CoreTest, EndWithoutBeginIsUnbalanced) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.end(), kUnbalanced);
    EXPECT_EQ(core.endEx("x", nullptr, nullptr), kUnbalanced);
    EXPECT_EQ(core.endEx(nullptr, nullptr, nullptr), kUnbalanced);
    EXPECT_EQ(core.begin("outer", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.begin("inner", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.end(), kSuccess);
    EXPECT_EQ(core.end(), kSuccess);
    EXPECT_EQ(core.end(), kUnbalanced);
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B outer|Default", "B inner|Default", "E", "E"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST_P(CoreTest, NestingIsPerThread) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    ASSERT_EQ(core.begin("main", nullptr, nullptr), kSuccess);
    uint64_t otherTid = 0;
    std::thread other([&] {
        otherTid = currentTid();
        EXPECT_EQ(core.end(), kUnbalanced);  // main's begin does not balance this end
        EXPECT_EQ(core.endEx("renamed", "G", nullptr), kUnbalanced);
        EXPECT_EQ(core.begin("other", nullptr, nullptr), kSuccess);
        EXPECT_EQ(core.end(), kSuccess);
        EXPECT_EQ(core.end(), kUnbalanced);
    });
    other.join();
    EXPECT_EQ(core.end(), kSuccess);  // main's marker is still open
    EXPECT_EQ(core.end(), kUnbalanced);
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 2u);
    const atp::ThreadMarkers* mainThread = findThread(file, currentTid());
    const atp::ThreadMarkers* otherThread = findThread(file, otherTid);
    ASSERT_NE(mainThread, nullptr);
    ASSERT_NE(otherThread, nullptr);
    EXPECT_THAT(describe(*mainThread), ElementsAre("B main|Default", "E"));
    EXPECT_THAT(describe(*otherThread), ElementsAre("B other|Default", "E"));
    EXPECT_LT(file.threads[0].tid, file.threads[1].tid);  // blocks in increasing tid order
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST_P(CoreTest, EndExRules) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    // A NULL or empty name with the default (or no) group is a plain end.
    ASSERT_EQ(core.begin("a", "GA", nullptr), kSuccess);
    EXPECT_EQ(core.endEx(nullptr, nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.begin("b", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.endEx("", "Default", nullptr), kSuccess);
    ASSERT_EQ(core.begin("c", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.endEx("", "", nullptr), kSuccess);
    // A non-default group needs a name; the marker stays open.
    ASSERT_EQ(core.begin("d", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.endEx("", "Other", nullptr), kNullName);
    EXPECT_EQ(core.endEx(nullptr, "Other", "u"), kNullName);
    // A rename records the new name, group and user string.
    EXPECT_EQ(core.endEx("d renamed", "New Group", "#ff8800"), kSuccess);
    EXPECT_EQ(core.end(), kUnbalanced);
    ASSERT_EQ(core.begin("e", "GE", nullptr), kSuccess);
    EXPECT_EQ(core.endEx("e2", nullptr, nullptr), kSuccess);  // default group
    // A user string alone is kept with the end record.
    ASSERT_EQ(core.begin("f", nullptr, nullptr), kSuccess);
    EXPECT_EQ(core.endEx(nullptr, nullptr, "note"), kSuccess);
    EXPECT_EQ(core.end(), kUnbalanced);
    EXPECT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B a|GA", "E", "B b|Default", "E", "B c|Default", "E", "B d|Default",
                            "X d renamed|New Group|#ff8800", "B e|GE", "X e2|Default",
                            "B f|Default", "X |Default|note"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST_P(CoreTest, AfterFinalizeEveryCallIsFinalized) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    ASSERT_EQ(core.begin("kept", nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.end(), kSuccess);
    ASSERT_EQ(core.begin("open at finalize", nullptr, nullptr), kSuccess);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(core.finalize(), kSuccess);
    ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(core.initialize(), kFinalized);
    EXPECT_EQ(core.begin("late", nullptr, nullptr), kFinalized);
    EXPECT_EQ(core.begin(nullptr, nullptr, nullptr), kFinalized);
    EXPECT_EQ(core.end(), kFinalized);
    EXPECT_EQ(core.endEx("late", "G", nullptr), kFinalized);
    EXPECT_EQ(core.endEx("", "G", nullptr), kFinalized);
    EXPECT_EQ(core.finalize(), kFinalized);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B kept|Default", "E", "B open at finalize|Default"));
}

TEST_P(CoreTest, FinalizeWithoutMarkersWritesAnEmptySection) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.threads, IsEmpty());
    EXPECT_THAT(listDir(dir()), ElementsAre("out." + ext()));
}

// ---- output failures -----------------------------------------------------------------------

// Where the output cannot go is said at initialize (docs/session.md#files-in-shared-directories):
// a missing directory, a path whose parent is a regular file (root ignores modes), a base that
// ends in '/', and a temporary directory everyone may write to that is not sticky.
TEST_P(CoreTest, UnwritableOutputFailsToOpenOutputFileAtInitialize) {
    const std::string regular = dir() + "/regular";
    FILE* f = std::fopen(regular.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    const std::string open = makeSubdir("open");
    ASSERT_EQ(chmod(open.c_str(), 0777), 0);
    const struct {
        std::string base;
        std::string tempDir;
        std::string message;
    } cases[] = {
        {dir() + "/missing/out", "", "cannot write into " + dir() + "/missing"},
        {regular + "/out", "", "cannot write into " + regular},
        {dir() + "/", "", "ends in '/'"},
        {dir() + "/out", open,
         open + " (for temporary files) is writable by everyone and not sticky"},
        {dir() + "/out", dir() + "/none", "the directory " + dir() + "/none for temporary files"},
    };
    for (const auto& c : cases) {
        for (const char* mode : {"cached", "timeout"}) {
            SCOPED_TRACE(c.base + " " + c.tempDir + " " + mode);
            setEnv("PERFMARKER_OUTPUT", c.base);
            setEnv("PERFMARKER_MODE", mode);
            if (!c.tempDir.empty()) setEnv("PERFMARKER_TMPDIR", c.tempDir);
            MarkerCore core(flavor(), fakeLookup);
            ::testing::internal::CaptureStderr();
            EXPECT_EQ(core.initialize(), kFailedToOpenOutput);
            const std::string err = ::testing::internal::GetCapturedStderr();
            EXPECT_THAT(err, HasSubstr("perfmarker: not recording: "));
            EXPECT_THAT(err, HasSubstr(c.message));
            EXPECT_EQ(core.begin("m", nullptr, nullptr), kUninitialized);
            EXPECT_EQ(core.finalize(), kUninitialized);
            unsetEnv("PERFMARKER_TMPDIR");
        }
    }
    EXPECT_THAT(listDir(dir()), ElementsAre("open", "regular"));
    EXPECT_THAT(listDir(open), IsEmpty());
}

// The output's directory goes away after initialize: finalize says so, writes nothing and keeps
// the markers; once the directory is back, the next finalize writes them all.
TEST_P(CoreTest, OutputDirectoryRemovedAfterInitializeFailsAtFinalize) {
    const std::string out = makeSubdir("out");
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        ASSERT_TRUE(access(out.c_str(), F_OK) == 0 || mkdir(out.c_str(), 0700) == 0);
        setEnv("PERFMARKER_OUTPUT", out + "/run");
        setEnv("PERFMARKER_TMPDIR", makeSubdir(std::string("tmp-") + mode));
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "5");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        ASSERT_EQ(core.begin("m", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
        ASSERT_EQ(rmdir(out.c_str()), 0);
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(core.finalize(), kFailedToOpenOutput);
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_THAT(err, HasSubstr("cannot write " + out + "/run." + ext()));
        EXPECT_THAT(err, HasSubstr("finalize again to retry"));
        EXPECT_EQ(core.begin("late", nullptr, nullptr), kFinalized);  // after a finalize call
        EXPECT_EQ(core.initialize(), kFinalized);
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(core.finalize(), kFailedToOpenOutput);  // still no directory
        ::testing::internal::GetCapturedStderr();
        ASSERT_EQ(mkdir(out.c_str(), 0700), 0);
        EXPECT_EQ(core.finalize(), kSuccess);
        EXPECT_EQ(core.finalize(), kFinalized);
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(out + "/run." + ext(), file));
        ASSERT_EQ(file.threads.size(), 1u);
        EXPECT_EQ(file.threads[0].markers.size(), 2u);
        EXPECT_EQ(file.threads[0].markers[0].name, "m");
        ASSERT_EQ(unlink((out + "/run." + ext()).c_str()), 0);
    }
}

// A full disk: the child's file size limit makes write() fail with EFBIG part way through. The
// failed finalize keeps every marker (whole records in the fragments, the rest in memory); with
// room again, the next finalize writes all of them.
TEST_P(CoreTest, FullDiskFailsAndLeavesNoPartialFile) {
    const std::string fragments = makeSubdir("fragments");
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_TMPDIR", fragments);
        const Flavor fl = flavor();
        const std::string output = outFile();
        ChildResult child = runInChild([&](ChildReport& report) {
            signal(SIGXFSZ, SIG_IGN);
            rlimit limit{4096, RLIM_INFINITY};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) report.fail(__LINE__, "setrlimit");
            MarkerCore core(fl, fakeLookup);
            CHILD_EXPECT_EQ(report, core.initialize(), kSuccess);
            const std::string name(100, 'n');
            for (int i = 0; i < 1000; ++i) {
                CHILD_EXPECT_EQ(report, core.begin(name.c_str(), "full disk", nullptr), kSuccess);
                CHILD_EXPECT_EQ(report, core.end(), kSuccess);
            }
            CHILD_EXPECT_EQ(report, core.finalize(), kFailedToOpenOutput);
            CHILD_EXPECT_EQ(report, core.finalize(), kFailedToOpenOutput);  // still full
            CHILD_EXPECT_EQ(report, exists(output), false);
            // Fragments kept by a failed finalize hold whole records only.
            for (const record::FragmentFile& f :
                 record::listFragments(fragments, getpid(), fl.extension)) {
                std::string error;
                bool truncated = true;
                const bool read = record::readFragment(
                    f.path, [](const record::RecordView&) {}, error, &truncated);
                CHILD_EXPECT_EQ(report, read, true);
                CHILD_EXPECT_EQ(report, truncated, false);
            }
            limit.rlim_cur = RLIM_INFINITY;  // room again
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) report.fail(__LINE__, "setrlimit");
            CHILD_EXPECT_EQ(report, core.finalize(), kSuccess);
            CHILD_EXPECT_EQ(report, core.finalize(), kFinalized);
        });
        EXPECT_TRUE(child.exitedCleanly()) << "status " << child.status;
        EXPECT_EQ(child.failures, "");
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(outFile(), file));
        ASSERT_EQ(file.threads.size(), 1u);
        EXPECT_EQ(file.threads[0].markers.size(), 2000u);
        EXPECT_THAT(listDir(dir()), ElementsAre("fragments", "out." + ext()));
        EXPECT_THAT(listDir(fragments), IsEmpty());
        ASSERT_EQ(unlink(outFile().c_str()), 0);
    }
}

// The CoreTest tests of every markers_core_*_test.cpp, for both flavors.
INSTANTIATE_TEST_SUITE_P(markers, CoreTest, ::testing::Values(kCLPerfMarker, kActivityLogger),
                         flavorName);

}  // namespace
}  // namespace perfmarker::markers
