// Unit tests of the marker core (src/markers/marker_core.h): the state machine and its return
// codes, the hot path across threads, fork and finalize, and the written marker file, read back
// with atp::readPerfmarkerFile. Every test runs for both flavors (CLPerfMarker, ActivityLogger)
// with a fake environment and a fresh temporary directory.
#include "markers/marker_core.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "atp/format/perfmarker_section.h"
#include "record/clock.h"
#include "marker_test_support.h"
#include "record/fragment.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define PERFMARKER_TEST_SANITIZED 1
#else
#define PERFMARKER_TEST_SANITIZED 0
#endif

#if defined(__SANITIZE_THREAD__)
// The fork tests fork while the recorder's writer thread runs, and the child starts its own
// writer: TSan refuses new threads after a multi-threaded fork unless told otherwise.
extern "C" const char* __tsan_default_options() { return "die_after_fork=0"; }
#endif

namespace perfmarker::markers {

// Names the parameter in test output ("CL"/"AL" come from the name generator below).
void PrintTo(const Flavor& flavor, std::ostream* os) { *os << flavor.extension; }

namespace {

using perfmarker::test::ChildReport;
using perfmarker::test::ChildResult;
using perfmarker::test::listDir;
using perfmarker::test::runInChild;
using perfmarker::test::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kLoopScale = PERFMARKER_TEST_SANITIZED ? 10 : 1;

// ---- environment, files, processes ---------------------------------------------------------

std::map<std::string, std::string>& fakeEnv() {
    static auto* env = new std::map<std::string, std::string>();
    return *env;
}

const char* fakeLookup(const char* name) {
    const auto& env = fakeEnv();
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
}

bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

uint64_t currentTid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// Checks inside a runInChild body; failures reach the parent through `report`.
#define CHILD_EXPECT_EQ(report, actual, expected) \
    (report).expectEq((actual), (expected), #actual, __LINE__)

// ---- reading the output --------------------------------------------------------------------

::testing::AssertionResult parseFile(const std::string& path, atp::PerfmarkerFile& out) {
    std::string error;
    if (!atp::readPerfmarkerFile(path, out, error)) {
        return ::testing::AssertionFailure() << "cannot parse " << path << ": " << error;
    }
    return ::testing::AssertionSuccess();
}

std::string describe(const atp::Marker& m) {
    const std::string user = m.userString.empty() ? "" : "|" + m.userString;
    switch (m.kind) {
    case atp::MarkerKind::Begin: return "B " + m.name + "|" + m.group + user;
    case atp::MarkerKind::End: return "E";
    case atp::MarkerKind::EndEx: return "X " + m.name + "|" + m.group + user;
    }
    return "?";
}

std::vector<std::string> describe(const atp::ThreadMarkers& thread) {
    std::vector<std::string> out;
    for (const atp::Marker& m : thread.markers) out.push_back(describe(m));
    return out;
}

const atp::ThreadMarkers* findThread(const atp::PerfmarkerFile& file, uint64_t tid) {
    for (const auto& t : file.threads) {
        if (t.tid == tid) return &t;
    }
    return nullptr;
}

size_t countFragmentRecords(const std::string& dir, uint64_t pid, const std::string& tag,
                            std::vector<std::string>* names = nullptr) {
    size_t count = 0;
    for (const record::FragmentInfo& f : record::listFragments(dir, pid, tag)) {
        std::string error;
        bool truncated = false;
        const bool ok = record::readFragment(
            f.path,
            [&](const record::RecordView& r) {
                ++count;
                if (names != nullptr && r.kind == record::RecordKind::MarkerBegin) {
                    names->emplace_back(r.str0);
                }
            },
            error, &truncated);
        EXPECT_TRUE(ok) << error;
        EXPECT_FALSE(truncated) << f.path;
    }
    return count;
}

// ---- the fixture ---------------------------------------------------------------------------

class CoreTest : public ::testing::TestWithParam<Flavor> {
protected:
    void SetUp() override {
        fakeEnv().clear();
        fakeEnv()["PERFMARKER_OUTPUT"] = base();
    }
    void TearDown() override { fakeEnv().clear(); }

    const Flavor& flavor() const { return GetParam(); }
    std::string ext() const { return flavor().extension; }
    int invalidCode() const { return flavor().invalidSessionCode; }
    std::string dir() const { return m_dir.path(); }
    std::string base() const { return dir() + "/out"; }
    std::string outFile() const { return base() + "." + ext(); }
    void setEnv(const char* name, const std::string& value) { fakeEnv()[name] = value; }

    // A directory for fragments, apart from the output.
    std::string makeSubdir(const std::string& name) {
        const std::string path = dir() + "/" + name;
        EXPECT_EQ(mkdir(path.c_str(), 0700), 0) << path;
        return path;
    }

    TempDir m_dir;
};

std::string flavorName(const ::testing::TestParamInfo<Flavor>& info) {
    return std::strcmp(info.param.extension, "clperfmarker") == 0 ? "CL" : "AL";
}

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
        {"PERFMARKER_MODE", "bogus"},       {"PERFMARKER_MODE", ""},
        {"PERFMARKER_INTERVAL_MS", "0"},    {"PERFMARKER_INTERVAL_MS", "12ms"},
        {"PERFMARKER_INTERVAL_MS", "-5"},   {"PERFMARKER_INTERVAL_MS", "3600001"},
        {"PERFMARKER_MAX_MEMORY_MB", "0"},  {"PERFMARKER_TMPDIR", ""},
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
    EXPECT_EQ(core.end(), kUnbalanced);  // the rejected begin opened nothing
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

TEST_P(CoreTest, UnwritableOutputFailsToOpenOutputFile) {
    // A missing directory, and a path whose parent is a regular file (root ignores modes).
    const std::string regular = dir() + "/regular";
    FILE* f = std::fopen(regular.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    for (const std::string& badBase : {dir() + "/missing/out", regular + "/out"}) {
        for (const char* mode : {"cached", "timeout"}) {
            SCOPED_TRACE(badBase + " " + mode);
            setEnv("PERFMARKER_OUTPUT", badBase);
            setEnv("PERFMARKER_MODE", mode);
            setEnv("PERFMARKER_INTERVAL_MS", "5");
            MarkerCore core(flavor(), fakeLookup);
            ASSERT_EQ(core.initialize(), kSuccess);
            ASSERT_EQ(core.begin("m", nullptr, nullptr), kSuccess);
            ASSERT_EQ(core.end(), kSuccess);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ::testing::internal::CaptureStderr();
            EXPECT_EQ(core.finalize(), kFailedToOpenOutput);
            const std::string err = ::testing::internal::GetCapturedStderr();
            EXPECT_THAT(err, HasSubstr("cannot write " + badBase + "." + ext()));
            EXPECT_EQ(core.finalize(), kFinalized);
            EXPECT_EQ(core.begin("m", nullptr, nullptr), kFinalized);
        }
    }
    EXPECT_THAT(listDir(dir()), ElementsAre("regular"));
}

// A full disk: the child's file size limit makes write() fail with EFBIG part way through.
TEST_P(CoreTest, FullDiskFailsAndLeavesNoPartialFile) {
    const std::string fragments = makeSubdir("fragments");
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_TMPDIR", fragments);
        const Flavor fl = flavor();
        ChildResult child = runInChild([&](ChildReport& report) {
            signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{4096, 4096};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) report.fail(__LINE__, "setrlimit");
            MarkerCore core(fl, fakeLookup);
            CHILD_EXPECT_EQ(report, core.initialize(), kSuccess);
            const std::string name(100, 'n');
            for (int i = 0; i < 1000; ++i) {
                CHILD_EXPECT_EQ(report, core.begin(name.c_str(), "full disk", nullptr), kSuccess);
                CHILD_EXPECT_EQ(report, core.end(), kSuccess);
            }
            CHILD_EXPECT_EQ(report, core.finalize(), kFailedToOpenOutput);
            CHILD_EXPECT_EQ(report, core.finalize(), kFinalized);
        });
        EXPECT_TRUE(child.exitedCleanly()) << "status " << child.status;
        EXPECT_EQ(child.failures, "");
        EXPECT_FALSE(exists(outFile()));
        EXPECT_THAT(listDir(dir()), ElementsAre("fragments"));  // no temporary output left
        // Fragments kept by a failed finalize hold whole records only.
        for (const record::FragmentInfo& f : record::listFragments(fragments, child.pid, ext())) {
            std::string error;
            bool truncated = true;
            EXPECT_TRUE(record::readFragment(f.path, [](const record::RecordView&) {}, error,
                                             &truncated))
                << error;
            EXPECT_FALSE(truncated) << f.path;
        }
    }
}

// ---- the written file ----------------------------------------------------------------------

struct NamedMarker {
    std::string name;
    const char* group;  // nullptr: none given
    const char* user;
};

std::string expectedGroup(const char* group) {
    return group == nullptr || group[0] == '\0' ? "Default" : group;
}

TEST_P(CoreTest, NamesGroupsAndUserStringsRoundTripExactly) {
    std::string longName(60, 'L');
    longName[10] = ' ';
    const std::string with49 = std::string(49, 'x');
    const std::string with50 = std::string(50, 'y');
    const std::string escapedTo50 = std::string(44, 'z') + " ";  // "&nbsp;" makes it 50 wide
    const std::vector<NamedMarker> markers = {
        {"plain", nullptr, nullptr},
        {"with space", "My Group", "#00ff00"},
        {"tab\there", "", "user string with spaces"},
        {"new\nline", "Default", nullptr},
        {"cr\rlf\r\n", "g\tg", "u\nu"},
        {"amp&ersand && &amp; &nbsp; &#32;", "a&b", "&"},
        {"&empty;", "&empty;", "&empty;"},
        {"", nullptr, nullptr},
        {"\xff\xfe invalid \xc3\x28 utf8 \x80", "\xc0\xaf", "\xed\xa0\x80"},
        {"valid UTF-8: gr\xc3\xb6\xc3\x9f" "e \xe2\x9c\x93 \xf0\x9f\x98\x80", "\xe2\x9c\x93", nullptr},
        {"ctrl \x01\x02\x1b\x1f\x7f end", "ctl\x7f", "\x01"},
        {"  leading and trailing  ", " spaced group ", " u "},
        {"user=looks like a user token", "user=x", "user=y"},
        {"clEndPerfMarker 123", "clBeginPerfMarker", nullptr},
        {"=====Perfmarker Output=====", "=====X=====", nullptr},
        {longName.c_str(), "G", nullptr},
        {with49.c_str(), nullptr, nullptr},
        {with50.c_str(), nullptr, nullptr},
        {escapedTo50.c_str(), nullptr, nullptr},
    };
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    for (const NamedMarker& m : markers) {
        ASSERT_EQ(core.begin(m.name.c_str(), m.group, m.user), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    for (const NamedMarker& m : markers) {
        if (m.name.empty()) continue;  // an empty name with the default group is a plain end
        ASSERT_EQ(core.begin("r", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.endEx(m.name.c_str(), m.group, m.user), kSuccess);
    }
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.warnings, IsEmpty());
    ASSERT_EQ(file.threads.size(), 1u);
    const std::vector<atp::Marker>& got = file.threads[0].markers;
    ASSERT_EQ(got.size(), 2 * markers.size() + 2 * (markers.size() - 1));
    size_t i = 0;
    for (const NamedMarker& m : markers) {
        SCOPED_TRACE("begin of '" + m.name + "'");
        EXPECT_EQ(got[i].kind, atp::MarkerKind::Begin);
        EXPECT_EQ(got[i].name, m.name);
        EXPECT_EQ(got[i].group, expectedGroup(m.group));
        EXPECT_EQ(got[i].userString, m.user == nullptr ? "" : m.user);
        EXPECT_EQ(got[i + 1].kind, atp::MarkerKind::End);
        i += 2;
    }
    for (const NamedMarker& m : markers) {
        if (m.name.empty()) continue;
        SCOPED_TRACE("end ex of '" + m.name + "'");
        EXPECT_EQ(got[i].kind, atp::MarkerKind::Begin);
        EXPECT_EQ(got[i + 1].kind, atp::MarkerKind::EndEx);
        EXPECT_EQ(got[i + 1].name, m.name);
        EXPECT_EQ(got[i + 1].group, expectedGroup(m.group));
        EXPECT_EQ(got[i + 1].userString, m.user == nullptr ? "" : m.user);
        i += 2;
    }
}

// Short strings are copied a word at a time, reading past the terminator within the page.
// Strings that end right before an unreadable page, that cross a page boundary, and that hold
// bytes with the high bit set (or 0x01, next to the terminator) must still copy exactly.
TEST_P(CoreTest, ShortStringsRoundTripAtPageEdges) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* map = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    auto* bytes = static_cast<char*>(map);
    ASSERT_EQ(mprotect(bytes + 2 * page, page, PROT_NONE), 0);  // a guard page
    const unsigned char pattern[] = {0x80, 0xff, 0x01, 'a', ' ', 0x7f, 0xfe, '&', 0x81, 0x01};
    auto placeAt = [&](char* start, size_t length) {
        for (size_t i = 0; i < length; ++i) start[i] = static_cast<char>(pattern[i % sizeof pattern]);
        start[length] = '\0';
        return start;
    };
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    std::vector<std::string> strings;
    for (size_t length = 0; length <= 80; ++length) {
        // Ending at the last byte before the guard page.
        char* atEnd = placeAt(bytes + 2 * page - (length + 1), length);
        strings.emplace_back(atEnd, length);
        ASSERT_EQ(core.begin(atEnd, atEnd, atEnd), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    // Crossing from the first page into the second, at every offset from the page end.
    std::vector<std::string> crossing;
    for (size_t before = 1; before <= 72; ++before) {
        char* start = placeAt(bytes + page - before, before + 5);
        crossing.emplace_back(start, before + 5);
        ASSERT_EQ(core.begin(start, nullptr, start), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    ASSERT_EQ(core.finalize(), kSuccess);
    munmap(map, 3 * page);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    const auto& got = file.threads[0].markers;
    ASSERT_EQ(got.size(), 2 * (strings.size() + crossing.size()));
    for (size_t i = 0; i < strings.size(); ++i) {
        const atp::Marker& m = got[2 * i];
        SCOPED_TRACE("length " + std::to_string(strings[i].size()));
        EXPECT_EQ(m.name, strings[i]);
        EXPECT_EQ(m.group, strings[i].empty() ? "Default" : strings[i]);
        EXPECT_EQ(m.userString, strings[i]);
    }
    for (size_t i = 0; i < crossing.size(); ++i) {
        const atp::Marker& m = got[2 * (strings.size() + i)];
        SCOPED_TRACE("crossing " + std::to_string(i));
        EXPECT_EQ(m.name, crossing[i]);
        EXPECT_EQ(m.group, "Default");
        EXPECT_EQ(m.userString, crossing[i]);
    }
}

TEST_P(CoreTest, OneMegabyteNamesRoundTrip) {
    std::string name(1 << 20, 'a');
    for (size_t i = 0; i < name.size(); i += 997) name[i] = static_cast<char>(1 + i % 255);
    std::string group(300000, 'g');
    group[7] = ' ';
    std::string user(200000, 'u');
    user[0] = '\n';
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    ASSERT_EQ(core.begin("small before", nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.begin(name.c_str(), group.c_str(), user.c_str()), kSuccess);
    ASSERT_EQ(core.endEx(name.c_str(), group.c_str(), user.c_str()), kSuccess);
    ASSERT_EQ(core.end(), kSuccess);
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    const auto& got = file.threads[0].markers;
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].name, "small before");
    EXPECT_EQ(got[1].kind, atp::MarkerKind::Begin);
    EXPECT_TRUE(got[1].name == name) << "begin name differs (size " << got[1].name.size() << ")";
    EXPECT_TRUE(got[1].group == group);
    EXPECT_TRUE(got[1].userString == user);
    EXPECT_EQ(got[2].kind, atp::MarkerKind::EndEx);
    EXPECT_TRUE(got[2].name == name) << "end ex name differs (size " << got[2].name.size() << ")";
    EXPECT_TRUE(got[2].group == group);
    EXPECT_TRUE(got[2].userString == user);
    EXPECT_EQ(got[3].kind, atp::MarkerKind::End);
}

TEST_P(CoreTest, TimestampsAreMonotonicAndOnTheTraceClock) {
    // Timestamps are CLOCK_MONOTONIC nanoseconds, converted from ticks off the hot path; allow a
    // small conversion error.
    constexpr uint64_t kToleranceNs = 500000;
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    const uint64_t before = record::monotonicNs();
    ASSERT_EQ(core.begin("sleep", nullptr, nullptr), kSuccess);
    const uint64_t sleepStart = record::monotonicNs();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const uint64_t sleepEnd = record::monotonicNs();
    ASSERT_EQ(core.end(), kSuccess);
    for (int i = 0; i < 2000; ++i) {
        ASSERT_EQ(core.begin("busy", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    const uint64_t after = record::monotonicNs();
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    const auto& got = file.threads[0].markers;
    ASSERT_EQ(got.size(), 4002u);
    uint64_t previous = 0;
    for (const atp::Marker& m : got) {
        EXPECT_GE(m.timestampNs, previous) << "line " << m.line;
        EXPECT_GE(m.timestampNs + kToleranceNs, before) << "line " << m.line;
        EXPECT_LE(m.timestampNs, after + kToleranceNs) << "line " << m.line;
        previous = m.timestampNs;
    }
    const uint64_t measured = got[1].timestampNs - got[0].timestampNs;
    EXPECT_GE(measured + kToleranceNs, sleepEnd - sleepStart);
    EXPECT_LE(measured, (after - before) + kToleranceNs);
}

TEST_P(CoreTest, UnbalancedMarkersAtFinalizeAreReportedAndWritten) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    ASSERT_EQ(core.begin("open", nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.begin("closed", nullptr, nullptr), kSuccess);
    ASSERT_EQ(core.end(), kSuccess);
    uint64_t balancedTid = 0;
    std::thread balanced([&] {
        balancedTid = currentTid();
        EXPECT_EQ(core.begin("fine", nullptr, nullptr), kSuccess);
        EXPECT_EQ(core.end(), kSuccess);
    });
    balanced.join();
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(core.finalize(), kSuccess);
    const std::string err = ::testing::internal::GetCapturedStderr();
    const std::string tid = std::to_string(currentTid());
    EXPECT_THAT(err, HasSubstr("[Thread " + tid + "] Unbalanced PerfMarker detected."));
    EXPECT_THAT(err, ::testing::Not(HasSubstr("[Thread " + std::to_string(balancedTid) + "]")));

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 2u);
    const atp::ThreadMarkers* mainThread = findThread(file, currentTid());
    ASSERT_NE(mainThread, nullptr);
    EXPECT_THAT(describe(*mainThread), ElementsAre("B open|Default", "B closed|Default", "E"));
    ASSERT_EQ(file.warnings.size(), 1u);
    EXPECT_THAT(file.warnings[0], HasSubstr("unbalanced perf markers in thread " + tid));
}

// ---- threads -------------------------------------------------------------------------------

TEST_P(CoreTest, ThreadsThatExitBeforeFinalizeKeepTheirMarkers) {
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        TempDir out;
        setEnv("PERFMARKER_OUTPUT", out.path() + "/out");
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "5");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        std::vector<uint64_t> tids;
        for (int t = 0; t < 3; ++t) {
            std::thread worker([&, t] {
                tids.push_back(currentTid());
                for (int j = 0; j < 5; ++j) {
                    const std::string name = "t" + std::to_string(t) + "-" + std::to_string(j);
                    EXPECT_EQ(core.begin(name.c_str(), "workers", nullptr), kSuccess);
                    EXPECT_EQ(core.end(), kSuccess);
                }
            });
            worker.join();
            // Let the writer notice the exit and retire the thread before the next one.
            std::this_thread::sleep_for(std::chrono::milliseconds(t == 0 ? 30 : 0));
        }
        ASSERT_EQ(core.finalize(), kSuccess);
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(out.path() + "/out." + ext(), file));
        ASSERT_EQ(tids.size(), 3u);
        if (tids[0] == tids[1] || tids[1] == tids[2] || tids[0] == tids[2]) {
            GTEST_SKIP() << "the kernel reused a thread id; blocks are merged by tid";
        }
        EXPECT_EQ(file.threads.size(), 3u);
        for (int t = 0; t < 3; ++t) {
            std::vector<std::string> expected;
            for (int j = 0; j < 5; ++j) {
                expected.push_back("B t" + std::to_string(t) + "-" + std::to_string(j) +
                                   "|workers");
                expected.push_back("E");
            }
            const atp::ThreadMarkers* thread = findThread(file, tids[t]);
            ASSERT_NE(thread, nullptr) << tids[t];
            EXPECT_EQ(describe(*thread), expected);
        }
        EXPECT_THAT(file.warnings, IsEmpty());
    }
}

TEST_P(CoreTest, ManyThreadsCountsAreExact) {
    constexpr int kThreads = 8;
    const int pairs = 10000 / kLoopScale;
    setEnv("PERFMARKER_INTERVAL_MS", "5");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    std::vector<uint64_t> tids(kThreads);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = currentTid();
            const std::string name = "worker " + std::to_string(t);
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            int failures = 0;
            for (int i = 0; i < pairs; ++i) {
                failures += core.begin(name.c_str(), "many", nullptr) != kSuccess;
                failures += core.end() != kSuccess;
            }
            EXPECT_EQ(failures, 0);
        });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.warnings, IsEmpty());
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
        const atp::ThreadMarkers* thread = findThread(file, tids[t]);
        ASSERT_NE(thread, nullptr);
        ASSERT_EQ(thread->markers.size(), static_cast<size_t>(2 * pairs));
        const std::string name = "worker " + std::to_string(t);
        int wrong = 0;
        for (size_t i = 0; i < thread->markers.size(); ++i) {
            const atp::Marker& m = thread->markers[i];
            if (i % 2 == 0) {
                wrong += m.kind != atp::MarkerKind::Begin || m.name != name || m.group != "many";
            } else {
                wrong += m.kind != atp::MarkerKind::End;
            }
        }
        EXPECT_EQ(wrong, 0) << name;
    }
}

// Threads whose records fill a chunk every few calls hand chunks to the writer all the time,
// and some records need a chunk of their own (freed, not pooled, once written): every record
// must still land in its own thread's block, whole and in order.
TEST_P(CoreTest, ThreadsRotatingChunksKeepTheirOwnRecords) {
    constexpr int kThreads = 4;
    const int iterations = 400 / kLoopScale;
    setEnv("PERFMARKER_INTERVAL_MS", "1");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    std::vector<uint64_t> tids(kThreads);
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = currentTid();
            // ~2 KB records: a 64 KB chunk holds about 30 of them.
            const std::string name = "thread " + std::to_string(t) + std::string(2000, 'a' + t);
            const std::string oversize = "oversize " + std::to_string(t) + std::string(70000, 'o');
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            int failures = 0;
            for (int i = 0; i < iterations; ++i) {
                const bool big = i % 40 == 0;
                failures += core.begin(big ? oversize.c_str() : name.c_str(), nullptr, nullptr) != kSuccess;
                failures += core.end() != kSuccess;
            }
            EXPECT_EQ(failures, 0);
        });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.warnings, IsEmpty());
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
        SCOPED_TRACE("thread " + std::to_string(t));
        const atp::ThreadMarkers* thread = findThread(file, tids[t]);
        ASSERT_NE(thread, nullptr);
        ASSERT_EQ(thread->markers.size(), static_cast<size_t>(2 * iterations));
        const std::string name = "thread " + std::to_string(t) + std::string(2000, 'a' + t);
        const std::string oversize = "oversize " + std::to_string(t) + std::string(70000, 'o');
        int wrong = 0;
        for (int i = 0; i < iterations; ++i) {
            const atp::Marker& b = thread->markers[2 * i];
            wrong += b.kind != atp::MarkerKind::Begin || b.name != (i % 40 == 0 ? oversize : name);
            wrong += thread->markers[2 * i + 1].kind != atp::MarkerKind::End;
        }
        EXPECT_EQ(wrong, 0);
    }
}

// At the memory cap a thread waits for the writer to recycle a chunk: nothing is dropped and
// the cap holds.
TEST_P(CoreTest, MemoryCapMakesThreadsWaitInsteadOfDropping) {
    constexpr int kThreads = 4;
    const int pairs = PERFMARKER_TEST_SANITIZED ? 400 : 800;  // 1.7 / 3.4 MB of records
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        TempDir out;
        setEnv("PERFMARKER_OUTPUT", out.path() + "/out");
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "2");
        setEnv("PERFMARKER_MAX_MEMORY_MB", "1");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        std::vector<uint64_t> tids(kThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                tids[t] = currentTid();
                const std::string name = std::to_string(t) + std::string(1000, 'c');
                int failures = 0;
                for (int i = 0; i < pairs; ++i) {
                    failures += core.begin(name.c_str(), nullptr, nullptr) != kSuccess;
                    failures += core.end() != kSuccess;
                }
                EXPECT_EQ(failures, 0);
            });
        }
        for (auto& t : threads) t.join();
        // The cap is checked, not reserved: threads allocating at the same moment may each
        // pass it by one chunk (64 KB plus its header).
        EXPECT_LE(core.recorder()->allocatedBytes(), (size_t{1} << 20) + kThreads * 65600);
        ASSERT_EQ(core.finalize(), kSuccess);
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(out.path() + "/out." + ext(), file));
        ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
        for (int t = 0; t < kThreads; ++t) {
            const atp::ThreadMarkers* thread = findThread(file, tids[t]);
            ASSERT_NE(thread, nullptr);
            EXPECT_EQ(thread->markers.size(), static_cast<size_t>(2 * pairs));
        }
    }
}

// With a small cap, every chunk can be the current chunk of some idle thread, and the writer
// can recycle none of them. A new thread must still get its first chunk (or a clean
// out-of-memory code), never wait forever.
TEST_P(CoreTest, MemoryCapDoesNotBlockANewThreadForever) {
    setEnv("PERFMARKER_MODE", "cached");
    setEnv("PERFMARKER_MAX_MEMORY_MB", "1");  // 15 chunks of 64 KB
    const Flavor fl = flavor();
    ChildResult child = runInChild([&](ChildReport& report) {
        alarm(5);  // a hang ends the child with SIGALRM
        MarkerCore core(fl, fakeLookup);
        CHILD_EXPECT_EQ(report, core.initialize(), kSuccess);
        constexpr int kThreads = 24;
        std::atomic<int> done{0};
        std::atomic<bool> release{false};
        std::vector<std::thread> threads;
        for (int i = 0; i < kThreads; ++i) {
            threads.emplace_back([&] {
                const int code = core.begin("idle", nullptr, nullptr);
                if (code != kSuccess && code != kOutOfMemory) report.fail(__LINE__, "begin");
                if (code == kSuccess) CHILD_EXPECT_EQ(report, core.end(), kSuccess);
                done.fetch_add(1);
                while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        }
        while (done.load() < kThreads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        release.store(true);
        for (auto& t : threads) t.join();
        CHILD_EXPECT_EQ(report, core.finalize(), kSuccess);
    });
    EXPECT_TRUE(child.exitedCleanly()) << "status " << child.status;
    EXPECT_EQ(child.failures, "");
}

TEST_P(CoreTest, FinalizeRacingWithRecordingThreads) {
    constexpr int kRacers = 4;
    setEnv("PERFMARKER_INTERVAL_MS", "2");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    struct Racer {
        uint64_t tid = 0;
        uint64_t successes = 0;
        int unexpected = 0;
    };
    std::vector<Racer> racers(kRacers);
    std::atomic<int> warmedUp{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < kRacers; ++k) {
        threads.emplace_back([&, k] {
            Racer& r = racers[k];
            r.tid = currentTid();
            const std::string name = "racer " + std::to_string(k) + " &";
            for (uint64_t i = 0;; ++i) {
                if (i == 200) warmedUp.fetch_add(1);
                // Nest every other pair so ends and begins alternate unevenly.
                int code = core.begin(name.c_str(), nullptr, nullptr);
                if (code == kFinalized) break;
                r.unexpected += code != kSuccess;
                r.successes += code == kSuccess;
                if (i % 2 == 0) {
                    code = core.begin(name.c_str(), nullptr, nullptr);
                    if (code == kFinalized) break;
                    r.unexpected += code != kSuccess;
                    r.successes += code == kSuccess;
                    code = core.end();
                    if (code == kFinalized) break;
                    r.unexpected += code != kSuccess;
                    r.successes += code == kSuccess;
                }
                code = core.end();
                if (code == kFinalized) break;
                r.unexpected += code != kSuccess;
                r.successes += code == kSuccess;
            }
        });
    }
    while (warmedUp.load() < kRacers) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::testing::internal::CaptureStderr();
    const int code = core.finalize();
    for (auto& t : threads) t.join();
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(code, kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));  // every line whole, every block count right
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kRacers));
    for (int k = 0; k < kRacers; ++k) {
        SCOPED_TRACE("racer " + std::to_string(k));
        const Racer& r = racers[k];
        EXPECT_EQ(r.unexpected, 0);
        const atp::ThreadMarkers* thread = findThread(file, r.tid);
        ASSERT_NE(thread, nullptr);
        const std::string name = "racer " + std::to_string(k) + " &";
        // Only a call in flight while finalize stops the recorder may be lost.
        EXPECT_LE(thread->markers.size(), r.successes);
        EXPECT_GE(thread->markers.size() + 1, r.successes);
        int depth = 0;
        int wrong = 0;
        for (const atp::Marker& m : thread->markers) {
            if (m.kind == atp::MarkerKind::Begin) {
                ++depth;
                wrong += m.name != name || m.group != "Default";
            } else {
                --depth;
                wrong += m.kind != atp::MarkerKind::End || depth < 0;
            }
        }
        EXPECT_EQ(wrong, 0);
        const std::string tid = std::to_string(r.tid);
        bool warned = false;
        for (const std::string& w : file.warnings) {
            warned = warned || w.find("unbalanced perf markers in thread " + tid + ":") !=
                                   std::string::npos;
        }
        EXPECT_EQ(warned, depth != 0);
        EXPECT_EQ(err.find("[Thread " + tid + "] Unbalanced") != std::string::npos, depth != 0)
            << err;
    }
}

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

// ---- flush modes ---------------------------------------------------------------------------

// Records the same markers on the calling thread and one more; returns the blocks described.
std::vector<std::vector<std::string>> recordScenario(MarkerCore& core, const std::string& file) {
    auto body = [&core](const char* who) {
        for (int i = 0; i < 300; ++i) {
            const std::string name = std::string(who) + " " + std::to_string(i);
            EXPECT_EQ(core.begin(name.c_str(), i % 3 == 0 ? "G" : nullptr, "u"), kSuccess);
            if (i % 5 == 0) {
                EXPECT_EQ(core.begin("nested", nullptr, nullptr), kSuccess);
                EXPECT_EQ(core.endEx("nested renamed", "NG", nullptr), kSuccess);
            }
            EXPECT_EQ(core.end(), kSuccess);
        }
    };
    body("main");
    std::thread other(body, "other");
    other.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // past a few intervals
    EXPECT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile parsed;
    EXPECT_TRUE(parseFile(file, parsed));
    EXPECT_THAT(parsed.warnings, IsEmpty());
    std::vector<std::vector<std::string>> blocks;
    for (const auto& t : parsed.threads) blocks.push_back(describe(t));
    std::sort(blocks.begin(), blocks.end());
    return blocks;
}

TEST_P(CoreTest, CachedAndTimeoutModesWriteTheSameContent) {
    std::vector<std::vector<std::string>> byMode[2];
    const char* modes[2] = {"cached", "timeout"};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(modes[i]);
        TempDir out;
        setEnv("PERFMARKER_OUTPUT", out.path() + "/out");
        setEnv("PERFMARKER_MODE", modes[i]);
        setEnv("PERFMARKER_INTERVAL_MS", "5");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        byMode[i] = recordScenario(core, out.path() + "/out." + ext());
        EXPECT_THAT(listDir(out.path()), ElementsAre("out." + ext()));
    }
    ASSERT_EQ(byMode[0].size(), 2u);
    EXPECT_EQ(byMode[0][0].size(), 2u * 300 + 2u * 60);
    EXPECT_EQ(byMode[0], byMode[1]);
}

TEST_P(CoreTest, CachedModeWritesNoFragments) {
    const std::string fragments = makeSubdir("tmp");
    setEnv("PERFMARKER_MODE", "cached");
    setEnv("PERFMARKER_INTERVAL_MS", "5");
    setEnv("PERFMARKER_TMPDIR", fragments);
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(core.begin("cached", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    EXPECT_THAT(listDir(fragments), IsEmpty());
    EXPECT_THAT(listDir(dir()), ElementsAre("tmp"));
    ASSERT_EQ(core.finalize(), kSuccess);
    EXPECT_THAT(listDir(fragments), IsEmpty());
}

TEST_P(CoreTest, TimeoutModeStreamsFragmentsAndRemovesThemAtFinalize) {
    const std::string fragments = makeSubdir("tmp");
    setEnv("PERFMARKER_MODE", "timeout");
    setEnv("PERFMARKER_INTERVAL_MS", "20");
    setEnv("PERFMARKER_TMPDIR", fragments);
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    for (int i = 0; i < 10; ++i) {
        const std::string name = "streamed " + std::to_string(i);
        ASSERT_EQ(core.begin(name.c_str(), nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const uint64_t pid = static_cast<uint64_t>(getpid());
    std::vector<std::string> names;
    EXPECT_EQ(countFragmentRecords(fragments, pid, ext(), &names), 20u);
    ASSERT_EQ(names.size(), 10u);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(names[i], "streamed " + std::to_string(i));
    ASSERT_EQ(record::listFragments(fragments, pid, ext()).size(), 1u);
    EXPECT_EQ(record::listFragments(fragments, pid, ext())[0].tid, currentTid());
    EXPECT_THAT(listDir(dir()), ElementsAre("tmp"));  // nothing beside the output
    ASSERT_EQ(core.finalize(), kSuccess);
    EXPECT_THAT(listDir(fragments), IsEmpty());
    EXPECT_THAT(listDir(dir()), ElementsAre("out." + ext(), "tmp"));
}

TEST_P(CoreTest, TimeoutModeKeepsFragmentsWhenFinalizeFails) {
    const std::string fragments = makeSubdir("tmp");
    setEnv("PERFMARKER_OUTPUT", dir() + "/missing/out");
    setEnv("PERFMARKER_MODE", "timeout");
    setEnv("PERFMARKER_INTERVAL_MS", "20");
    setEnv("PERFMARKER_TMPDIR", fragments);
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    for (int i = 0; i < 10; ++i) {
        ASSERT_EQ(core.begin("early", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    for (int i = 0; i < 15; ++i) {  // not flushed by the timer yet
        ASSERT_EQ(core.begin("late", nullptr, nullptr), kSuccess);
        ASSERT_EQ(core.end(), kSuccess);
    }
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(core.finalize(), kFailedToOpenOutput);
    ::testing::internal::GetCapturedStderr();
    std::vector<std::string> names;
    EXPECT_EQ(countFragmentRecords(fragments, static_cast<uint64_t>(getpid()), ext(), &names),
              50u);
    EXPECT_EQ(std::count(names.begin(), names.end(), "early"), 10);
    EXPECT_EQ(std::count(names.begin(), names.end(), "late"), 15);
}

INSTANTIATE_TEST_SUITE_P(markers, CoreTest, ::testing::Values(kCLPerfMarker, kActivityLogger),
                         flavorName);

}  // namespace
}  // namespace perfmarker::markers
