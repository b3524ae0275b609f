// Unit tests of the marker core (src/markers/marker_core.h): the written marker file, read back
// with atp::readPerfmarkerFile, and the flush modes. Helpers and the CoreTest fixture are in
// markers_core_support.h.
#include "markers_core_support.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "atp/format/finished_receipt.h"
#include "record/clock.h"

namespace perfmarker::markers {
namespace {

using namespace core_test;

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

// The finished file carries its receipt (atp/format/finished_receipt.h): its size, its thread
// blocks (threads with markers only) and where they start, which is what the merge copies.
TEST_P(CoreTest, TheFinishedFileCarriesAReceiptOfItsBlocks) {
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    ASSERT_EQ(core.begin("main", "g", nullptr), kSuccess);
    ASSERT_EQ(core.end(), kSuccess);
    std::thread other([&core] {
        for (int i = 0; i < 1000; ++i) {
            core.begin("other", nullptr, nullptr);
            core.end();
        }
    });
    other.join();
    std::thread([] {}).join();  // a thread without markers has no block
    ASSERT_EQ(core.finalize(), kSuccess);
    const int fd = open(outFile().c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    atp::FinishedReceipt receipt;
    const bool found = atp::readFinishedReceipt(fd, receipt);
    const int probe = fsetxattr(fd, "user.perfmarker.probe", "1", 1, 0) == 0 ? 0 : errno;
    close(fd);
    if (!found && (probe == ENOTSUP || probe == EPERM)) {
        GTEST_SKIP() << "no user attributes in " << dir();
    }
    ASSERT_TRUE(found);
    std::ifstream in(outFile(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(receipt.size, bytes.size());
    EXPECT_EQ(receipt.threads, 2u);
    EXPECT_EQ(receipt.bodyOffset, atp::kPerfmarkerSectionLine.size() + 1);
    EXPECT_EQ(bytes.substr(0, receipt.bodyOffset), std::string(atp::kPerfmarkerSectionLine) + "\n");
    EXPECT_EQ(bytes.substr(receipt.bodyOffset, std::to_string(currentTid()).size() + 3),
              std::to_string(currentTid()) + "\n2\n");
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
    std::vector<record::FragmentStream> streams;
    std::string error;
    ASSERT_TRUE(record::scanFragment(record::listFragments(fragments, pid, ext())[0].path, streams,
                                     error))
        << error;
    ASSERT_EQ(streams.size(), 1u);
    EXPECT_EQ(streams[0].tid, currentTid());
    EXPECT_THAT(listDir(dir()), ElementsAre("tmp"));  // nothing beside the output
    ASSERT_EQ(core.finalize(), kSuccess);
    EXPECT_THAT(listDir(fragments), IsEmpty());
    EXPECT_THAT(listDir(dir()), ElementsAre("out." + ext(), "tmp"));
}

TEST_P(CoreTest, TimeoutModeKeepsFragmentsWhenFinalizeFails) {
    const std::string fragments = makeSubdir("tmp");
    const std::string out = makeSubdir("gone");
    setEnv("PERFMARKER_OUTPUT", out + "/out");
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
    ASSERT_EQ(rmdir(out.c_str()), 0);  // the output's directory goes: finalize cannot write
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(core.finalize(), kFailedToOpenOutput);
    ::testing::internal::GetCapturedStderr();
    std::vector<std::string> names;
    EXPECT_EQ(countFragmentRecords(fragments, static_cast<uint64_t>(getpid()), ext(), &names),
              50u);
    EXPECT_EQ(std::count(names.begin(), names.end(), "early"), 10);
    EXPECT_EQ(std::count(names.begin(), names.end(), "late"), 15);
}

}  // namespace
}  // namespace perfmarker::markers
