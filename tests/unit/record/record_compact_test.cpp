// Compact marker records (src/record/record_format.h, docs/format.md#compact-records): a marker's
// End, and a Begin whose name and group are those of its slot, are one word in the chunk; every
// Begin comes back with its own strings, whatever their addresses, lengths or neighbours.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "record_recorder_support.h"

namespace perfmarker::record {
namespace {

using namespace recorder_test;

struct Marker {
    bool begin;
    std::string name, group, user;
};

// Records `script` through appendBegin/appendEnd with the strings at the addresses `at` gives,
// flushing now and then, and checks that the records come back as they went in.
template <typename At>
void roundTrip(FlushMode mode, const std::vector<Marker>& script, At at, size_t chunkBytes) {
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    Recorder rec(options(mode, dir.path(), chunkBytes));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (size_t i = 0; i < script.size(); ++i) {
        const Marker& m = script[i];
        if (m.begin) {
            const char* user = m.user.empty() ? (i % 2 ? "" : nullptr) : m.user.c_str();
            const char* group = m.group.empty() && i % 3 == 0 ? nullptr : at(i, 1, m.group);
            ASSERT_TRUE(rec.appendBegin(log, rec.now(), at(i, 0, m.name), group, user)) << i;
        } else {
            ASSERT_TRUE(rec.appendEnd(log, rec.now())) << i;
        }
        if (i % 97 == 0) rec.flushNow();
    }
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), script.size());
    uint64_t prev = 0;
    for (size_t i = 0; i < script.size(); ++i) {
        const Marker& m = script[i];
        const Rec& got = c.recs[i];
        ASSERT_EQ(got.kind, m.begin ? RecordKind::MarkerBegin : RecordKind::MarkerEnd) << i;
        ASSERT_EQ(got.s0, m.begin ? m.name : "") << i;
        ASSERT_EQ(got.s1, m.begin ? m.group : "") << i;
        ASSERT_EQ(got.s2, m.begin ? m.user : "") << i;
        ASSERT_GE(got.time, prev) << i;
        prev = got.time;
    }
}

std::vector<Marker> mixedScript(size_t n) {
    const std::vector<std::string> names = {"frame",
                                            "shadow",
                                            "main",
                                            "post",
                                            "ui",
                                            "copy",
                                            "a",
                                            "",
                                            "b",
                                            "c",
                                            "d",
                                            "e",
                                            "f",
                                            std::string(62, 'n'),
                                            std::string(63, 'n'),
                                            std::string(64, 'n'),
                                            std::string(65, 'n'),
                                            std::string(300, 'L'),
                                            "seven..",
                                            "eight...",
                                            std::string("\xff\x80\x01", 3)};
    const std::vector<std::string> groups = {
        "", "Default", "render", "g", std::string(63, 'g'), std::string(64, 'g')};
    std::vector<Marker> script;
    size_t depth = 0;
    for (size_t i = 0; script.size() < n; ++i) {
        if (depth > 0 && (i % 3 == 1 || depth > 4)) {
            script.push_back({false, "", "", ""});
            --depth;
            continue;
        }
        const std::string& name = names[(i * 7 + i / 5) % names.size()];
        const std::string& group = groups[(i / 3) % groups.size()];
        const std::string user = i % 11 == 0 ? "user" + std::to_string(i) : "";
        script.push_back({true, name, group, user});
        ++depth;
    }
    return script;
}

// The strings of each call in storage of its own (another address every time).
TEST_P(RecorderModeTest, CompactMarkersComeBackWithTheirStrings) {
    const auto script = mixedScript(scaled(20000, 4000));
    std::vector<std::string> storage(2 * script.size());
    roundTrip(
        GetParam(), script,
        [&](size_t i, int which, const std::string& s) {
            storage[2 * i + which] = s;
            return storage[2 * i + which].c_str();
        },
        4096);
}

// One buffer per place, rewritten before every call: the same address holds other strings,
// and a slot is a hit only for the same bytes.
TEST_P(RecorderModeTest, AReusedBufferIsComparedNotTrusted) {
    const auto script = mixedScript(scaled(20000, 4000));
    std::vector<std::string> buffers(2, std::string(400, '\0'));
    roundTrip(
        GetParam(), script,
        [&](size_t, int which, const std::string& s) {
            std::memcpy(&buffers[which][0], s.c_str(), s.size() + 1);
            return buffers[which].c_str();
        },
        4096);
}

// Strings that end at the end of a page, the next page unreadable: the comparison must not
// read past them (a fault would kill the test).
TEST_P(RecorderModeTest, StringsAtAPageEndAreReadByteByByte) {
    const long page = sysconf(_SC_PAGESIZE);
    void* mem = mmap(nullptr, static_cast<size_t>(2 * page), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    char* const guard = static_cast<char*>(mem) + page;
    ASSERT_EQ(mprotect(guard, static_cast<size_t>(page), PROT_NONE), 0);
    // The name or the group (in turn) in the first page's last bytes.
    const auto script = mixedScript(scaled(6000, 2000));
    roundTrip(
        GetParam(), script,
        [&](size_t i, int which, const std::string& s) {
            char* end = (i + static_cast<size_t>(which)) % 2 == 0 ? guard : guard - 1024;
            char* p = end - s.size() - 1;
            std::memcpy(p, s.c_str(), s.size() + 1);
            return static_cast<const char*>(p);
        },
        4096);
    munmap(mem, static_cast<size_t>(2 * page));
}

// A loop's marker takes one word for its Begin and one for its End.
TEST_P(RecorderModeTest, ALoopsMarkerPairIsTwoWords) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(rec.appendBegin(log, rec.now(), "draw", "render", nullptr));
    ASSERT_TRUE(rec.appendEnd(log, rec.now()));
    const uint32_t before = log->cursor;
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(rec.appendBegin(log, rec.now(), "draw", "render", nullptr));
        ASSERT_TRUE(rec.appendEnd(log, rec.now()));
    }
    EXPECT_EQ(log->cursor - before, 100u * 2 * sizeof(uint64_t));
    // A user string, or a name too long for a slot, is a whole record.
    const uint32_t atUser = log->cursor;
    ASSERT_TRUE(rec.appendBegin(log, rec.now(), "draw", "render", "u"));
    EXPECT_EQ(log->cursor - atUser, recordSize(4, 6, 1));
    const std::string longName(compact::kMaxSlotString + 1, 'x');
    const uint32_t atLong = log->cursor;
    ASSERT_TRUE(rec.appendBegin(log, rec.now(), longName.c_str(), "render", nullptr));
    EXPECT_EQ(log->cursor - atLong, recordSize(longName.size(), 6, 0));
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 204u);
    EXPECT_EQ(c.recs[200].s0, "draw");
    EXPECT_EQ(c.recs[201].kind, RecordKind::MarkerEnd);
    EXPECT_EQ(c.recs[202].s2, "u");
    EXPECT_EQ(c.recs[203].s0, longName);
}

}  // namespace
}  // namespace perfmarker::record
