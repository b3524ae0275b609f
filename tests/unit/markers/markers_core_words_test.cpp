// Finalize's text of marker words (src/markers/marker_core.cpp): a loop's markers reach finalize
// as runs of marker words (docs/format.md#fragments), whose lines are written from a Begin line
// kept for each slot. The file must hold the lines appendMarkerLine writes for the same
// markers, whatever the names, the slots, the blocks and the mode.
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "markers_core_support.h"

namespace perfmarker::markers {
namespace {

using namespace core_test;

// The file's text, and the text appendMarkerLine writes for the markers it holds.
void expectTheLinesOfWhatItHolds(const std::string& path, const atp::PerfmarkerFile& file) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string expected = std::string(atp::kPerfmarkerSectionLine) + "\n";
    for (const atp::ThreadMarkers& thread : file.threads) {
        atp::appendThreadHeader(expected, thread.tid, thread.markers.size());
        for (const atp::Marker& m : thread.markers) {
            atp::appendMarkerLine(expected, m.kind, m.timestampNs, m.name, m.group, m.userString);
        }
    }
    ASSERT_EQ(text.size(), expected.size());
    for (size_t i = 0; i < text.size(); ++i) {
        // The line where they part, not a megabyte of text.
        if (text[i] != expected[i]) {
            const size_t start = text.rfind('\n', i) + 1;
            FAIL() << "at byte " << i << ":\n  " << text.substr(start, text.find('\n', i) - start)
                   << "\nexpected\n  " << expected.substr(start, expected.find('\n', i) - start);
        }
    }
}

struct NameAndGroup {
    const char* name;
    const char* group;
};

// Markers of every kind of line a slot can hold, in a loop long enough for many blocks: names
// and groups that make common lines and others (spaces, escapes, names of 50 bytes and more,
// empty names), more (name, group) pairs than slots, a Begin inside a Begin, and one buffer
// rewritten now and then (the same address, other bytes).
TEST_P(CoreTest, MarkerWordsAreWrittenAsTheLinesOfTheirMarkers) {
    const std::string n49(49, 'a'), n50(50, 'b'), n64(64, 'c'), g64(64, 'g');
    char reused[] = "loop_A";
    const std::vector<NameAndGroup> kinds = {
        {"frame", "render"},
        {"frame", nullptr},
        {"frame", ""},
        {"frame", "Default"},
        {"with space", "g"},
        {"amp&", "g"},
        {"tab\t", nullptr},
        {"x", "a group"},
        {n49.c_str(), g64.c_str()},
        {n50.c_str(), "g"},
        {n64.c_str(), n64.c_str()},
        {reused, "r"},
        {"", "g"},
        {reused, nullptr},
    };
    const int rounds = 6000 / kLoopScale;
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "1");
        setEnv("PERFMARKER_OUTPUT", base() + "-" + mode);
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        std::vector<std::pair<std::string, std::string>> begins;
        const auto begin = [&](const NameAndGroup& k) {
            begins.emplace_back(k.name,
                                k.group == nullptr || k.group[0] == '\0' ? "Default" : k.group);
            return core.begin(k.name, k.group, nullptr);
        };
        for (int i = 0; i < rounds; ++i) {
            if (i % 250 == 0) reused[5] = static_cast<char>('A' + (i / 250) % 26);
            // Mostly a loop's marker (a run of words), now and then another.
            const NameAndGroup& k = i % 5 != 0 ? kinds[0] : kinds[(i / 5) % kinds.size()];
            ASSERT_EQ(begin(k), kSuccess);
            if (i % 7 == 0) {
                ASSERT_EQ(begin(kinds[(i / 7) % kinds.size()]), kSuccess);
                ASSERT_EQ(core.end(), kSuccess);
            }
            ASSERT_EQ(core.end(), kSuccess);
            if (i % 1000 == 999) std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
        ASSERT_EQ(core.finalize(), kSuccess);

        const std::string path = base() + "-" + mode + "." + ext();
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(path, file));
        EXPECT_THAT(file.warnings, IsEmpty());
        ASSERT_EQ(file.threads.size(), 1u);
        std::vector<std::pair<std::string, std::string>> got;
        for (const atp::Marker& m : file.threads[0].markers) {
            if (m.kind == atp::MarkerKind::Begin) got.emplace_back(m.name, m.group);
        }
        ASSERT_EQ(got.size(), begins.size());
        for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], begins[i]) << "Begin " << i;
        expectTheLinesOfWhatItHolds(path, file);
    }
}

// Blocks read back from the fragment file land in the same buffer: a slot defined at the same
// place in two blocks has views of the same address and size. One buffer rewritten between
// blocks (each phase's pairs flushed on their own) must be written with the bytes of each block.
TEST_P(CoreTest, ASlotOfTheSameAddressInTwoBlocksIsReadForEach) {
    setEnv("PERFMARKER_MODE", "timeout");
    setEnv("PERFMARKER_INTERVAL_MS", "1");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    char name[] = "phase_A";
    std::vector<std::string> expected;
    for (int phase = 0; phase < 12; ++phase) {
        name[6] = static_cast<char>('A' + phase);
        for (int i = 0; i < 3; ++i) {
            ASSERT_EQ(core.begin(name, "g", nullptr), kSuccess);
            ASSERT_EQ(core.end(), kSuccess);
            expected.emplace_back(name);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(15));  // the writer flushes
    }
    ASSERT_EQ(core.finalize(), kSuccess);
    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    ASSERT_EQ(file.threads.size(), 1u);
    std::vector<std::string> got;
    for (const atp::Marker& m : file.threads[0].markers) {
        if (m.kind == atp::MarkerKind::Begin) got.push_back(m.name);
    }
    EXPECT_EQ(got, expected);
    expectTheLinesOfWhatItHolds(outFile(), file);
}

}  // namespace
}  // namespace perfmarker::markers
