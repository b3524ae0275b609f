// Telling profile files from traces and anything else by their content
// (profile/read/profile_lines.h), and the line and field helpers the readers share.
#include <gtest/gtest.h>

#include <sstream>

#include "profile/read/profile_lines.h"
#include "profile_read_support.h"

namespace {

using namespace perfmarker;
using perfmarker::profile::ProfileFileKind;

TEST(ProfileDetect, ByContent) {
    const std::pair<std::string, ProfileFileKind> cases[] = {
        {"#ProfileFileVersion=5.6\n", ProfileFileKind::Csv},
        {"\xEF\xBB\xBF#ProfileFileVersion=5.6\n", ProfileFileKind::Csv},
        {"Method, ExecutionOrder, ThreadID\n", ProfileFileKind::Csv},
        {"#API=HSA\nMethod;ExecutionOrder\n", ProfileFileKind::Csv},
        {"# ProfilerVersion=5.6.0\n", ProfileFileKind::Occupancy},
        {"\n# Application=x\r\nThread ID,Kernel Name,Device Name\r\n", ProfileFileKind::Occupancy},
        {"Thread ID\tKernel Name\n", ProfileFileKind::Occupancy},
        // Not profiles: a trace, a CSV of something else, a longer first name, nothing.
        {"TraceFileVersion=3.2\nProfilerVersion=5.6.0\n", ProfileFileKind::NotProfile},
        {"#ProfilerVersion=5.6.0\nname,value\n", ProfileFileKind::NotProfile},
        {"MethodName, ExecutionOrder\n", ProfileFileKind::NotProfile},
        {"Method, Duration\n", ProfileFileKind::NotProfile},
        {"Thread ID,Name\n", ProfileFileKind::NotProfile},
        {"", ProfileFileKind::NotProfile},
    };
    for (const auto& [text, kind] : cases) {
        EXPECT_EQ(profile::detectProfileText(text), kind) << text;
    }
}

TEST(ProfileDetect, FilesAndNames) {
    EXPECT_EQ(profile::detectProfileFile(test::profileFixture("twokernels.csv")),
              ProfileFileKind::Csv);
    EXPECT_EQ(profile::detectProfileFile(test::profileFixture("original_tab.csv")),
              ProfileFileKind::Csv);
    EXPECT_EQ(profile::detectProfileFile(test::profileFixture("original.occupancy")),
              ProfileFileKind::Occupancy);
    EXPECT_EQ(profile::detectProfileFile(test::profileFixture("twokernels.atp")),
              ProfileFileKind::NotProfile);
    EXPECT_EQ(profile::detectProfileFile("/nonexistent/p.csv"), ProfileFileKind::NotProfile);
    EXPECT_TRUE(profile::hasProfileExtension("run/p.csv"));
    EXPECT_TRUE(profile::hasProfileExtension("p.occupancy"));
    EXPECT_FALSE(profile::hasProfileExtension("p.atp"));
    EXPECT_FALSE(profile::hasProfileExtension("dir.csv/p"));
    EXPECT_FALSE(profile::hasProfileExtension("csv"));
    // A .csv is a profile input even when it is none: the profile reader says why.
    EXPECT_TRUE(profile::isProfileInput("/nonexistent/p.csv"));
    EXPECT_TRUE(profile::isProfileInput(test::profileFixture("original.occupancy")));
    EXPECT_FALSE(profile::isProfileInput(test::profileFixture("twokernels.atp")));
}

TEST(ProfileLines, FieldsSeparatorsAndNumbers) {
    EXPECT_EQ(profile::splitFields(" a ;b;; c\t", ';'),
              (std::vector<std::string_view>{"a", "b", "", "c"}));
    EXPECT_EQ(profile::separatorAfter("Method, X", "Method"), ',');
    EXPECT_EQ(profile::separatorAfter("Method \t X", "Method"), '\t');
    EXPECT_EQ(profile::separatorAfter("Method", "Method"), std::nullopt);
    EXPECT_EQ(profile::separatorAfter("Methods, X", "Method"), std::nullopt);
    EXPECT_EQ(profile::parseListSeparator("|"), '|');
    EXPECT_EQ(profile::parseListSeparator("\\t"), '\t');
    EXPECT_EQ(profile::parseListSeparator(" "), std::nullopt);
    EXPECT_EQ(profile::parseListSeparator("{"), std::nullopt);
    EXPECT_EQ(profile::parseListSeparator(""), std::nullopt);
    EXPECT_EQ(profile::parseCount("0042"), 42u);
    EXPECT_EQ(profile::parseCount("18446744073709551616"), std::nullopt);
    EXPECT_EQ(profile::parseCount("+1"), std::nullopt);
    EXPECT_EQ(profile::parseReal("+1.5"), 1.5);
    EXPECT_EQ(profile::parseReal("-2e3"), -2000.0);
    EXPECT_EQ(profile::parseReal("inf"), std::nullopt);
    EXPECT_EQ(profile::parseReal("1.5x"), std::nullopt);
    EXPECT_EQ(profile::quoted(std::string(50, 'a')), "'" + std::string(40, 'a') + "...'");
    const auto header = profile::parseHeaderLine("#OS Version=Linux = 6", false);
    ASSERT_TRUE(header);
    EXPECT_EQ(header->first, "OS Version");
    EXPECT_EQ(header->second, "Linux = 6");
    EXPECT_FALSE(profile::parseHeaderLine("#=x", false));
    EXPECT_FALSE(profile::parseHeaderLine("#Key=x", true));
}

TEST(ProfileLines, LineReaderNumbersLinesAndDropsLineEnds) {
    std::istringstream in(
        "\xEF\xBB\xBF"
        "a\r\nb\n\nc");
    profile::LineReader lines(in);
    std::string line;
    std::vector<std::pair<uint64_t, std::string>> seen;
    while (lines.next(line)) seen.emplace_back(lines.lineNumber(), line);
    EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, std::string>>{
                        {1, "a"}, {2, "b"}, {3, ""}, {4, "c"}}));
    EXPECT_FALSE(lines.failed());
}

}  // namespace
