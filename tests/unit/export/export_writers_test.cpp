// The pieces the exporters share: JSON and CSV escaping, microsecond formatting, the split
// JSON writer, pid resolution, command classes and the marker matcher.
#include <gtest/gtest.h>

#include "export/csv_writer.h"
#include "export/export_common.h"
#include "export/json_writer.h"
#include "export/marker_spans.h"
#include "export/split_json_writer.h"
#include "export_test_support.h"

namespace {

using namespace perfmarker;
using namespace perfmarker::exporter;
using perfmarker::test::ExportScratch;
using perfmarker::test::json;
using perfmarker::test::RecordFactory;

std::string jsonString(std::string_view text) {
    std::string out;
    appendJsonString(out, text);
    return out;
}

TEST(ExportJson, HostileStringsRoundTrip) {
    const std::string hostile = std::string("a\"b\\c\nd\te\x01\x1f/\x7f") + "\xC3\xA9\xE2\x82\xAC" +
                                "\xF0\x9F\x98\x80" + std::string(1, '\0') + "end";
    const json parsed = json::parse(jsonString(hostile));
    EXPECT_EQ(parsed.get<std::string>(), hostile);
    EXPECT_EQ(jsonString("q\"\\\b\f\r"), "\"q\\\"\\\\\\b\\f\\r\"");
    EXPECT_EQ(jsonString(std::string(1, '\x02')), "\"\\u0002\"");
}

// Every byte at every place of plain strings of every length up to 20 (the writer looks for the
// bytes to escape 8 at a time): each is handled, and only that byte.
TEST(ExportJson, EveryByteIsFoundWhereverItIs) {
    for (int c = 0; c < 256; ++c) {
        const auto byte = static_cast<char>(c);
        const bool plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
        // Alone, the byte as JSON writes it; a lone byte from 0x80 up is no valid UTF-8.
        const std::string alone = jsonString(std::string(1, byte));
        const std::string inner = alone.substr(1, alone.size() - 2);
        if (plain) {
            ASSERT_EQ(inner, std::string(1, byte));
        }
        if (c >= 0x80) {
            ASSERT_EQ(inner, "\xEF\xBF\xBD") << c;
        }
        for (size_t size = 1; size <= 20; ++size) {
            for (size_t at = 0; at < size; ++at) {
                std::string text(size, 'a');
                text[at] = byte;
                const std::string expected =
                    "\"" + std::string(at, 'a') + inner + std::string(size - at - 1, 'a') + "\"";
                ASSERT_EQ(jsonString(text), expected)
                    << "byte " << c << " at " << at << " of " << size;
            }
        }
    }
}

TEST(ExportJson, InvalidUtf8BecomesReplacementCharacter) {
    const std::string replacement = "\xEF\xBF\xBD";
    struct Case {
        std::string input, expected;
    };
    const std::vector<Case> cases = {
        {"a\x80z", "a" + replacement + "z"},                        // stray continuation byte
        {"\xC3", replacement},                                      // truncated at the end
        {"\xC3(", replacement + "("},                               // bad continuation
        {"\xC0\xAF", replacement + replacement},                    // overlong lead
        {"\xE0\x80\xAF", replacement + replacement + replacement},  // overlong 3-byte
        {"\xED\xA0\x80", replacement + replacement + replacement},  // surrogate
        {"\xF4\x90\x80\x80", std::string(4, 'x')},                  // above U+10FFFF
        {"\xFF", replacement},
    };
    for (const Case& c : cases) {
        const std::string out = jsonString(c.input);
        const std::string value = json::parse(out).get<std::string>();
        if (c.expected == std::string(4, 'x')) {
            EXPECT_EQ(value, replacement + replacement + replacement + replacement);
        } else {
            EXPECT_EQ(value, c.expected) << out;
        }
    }
}

TEST(ExportJson, MicrosecondsKeepNanoseconds) {
    std::string out;
    appendMicroseconds(out, 4035402110954);
    EXPECT_EQ(out, "4035402110.954");
    out.clear();
    appendMicroseconds(out, 7);
    EXPECT_EQ(out, "0.007");
    out.clear();
    appendUnsigned(out, UINT64_MAX);
    EXPECT_EQ(out, "18446744073709551615");
}

TEST(ExportJson, ObjectBuilderWritesMembers) {
    std::string out;
    JsonObject object(out);
    object.string("a", "x").number("b", 2).boolean("c", false).micros("d", 1500);
    object.close();
    EXPECT_EQ(out, R"({"a":"x","b":2,"c":false,"d":1.500})");
}

TEST(ExportCsv, QuotesOnlyWhenNeeded) {
    const auto field = [](std::string_view text) {
        std::string out;
        appendCsvField(out, text);
        return out;
    };
    EXPECT_EQ(field("plain name"), "plain name");
    EXPECT_EQ(field("a,b"), "\"a,b\"");
    EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(field("cr\r"), "\"cr\r\"");
    EXPECT_EQ(field(""), "");
}

// Every byte at every place of fields of every length up to 20 (the writer looks for the bytes
// that make a field quoted 8 at a time): quoted exactly when the byte is one of them.
TEST(ExportCsv, EveryByteThatQuotesIsFoundWhereverItIs) {
    for (int c = 0; c < 256; ++c) {
        const auto byte = static_cast<char>(c);
        const bool quotes = byte == ',' || byte == '"' || byte == '\r' || byte == '\n';
        for (size_t size = 1; size <= 20; ++size) {
            for (size_t at = 0; at < size; ++at) {
                std::string text(size, 'a');
                text[at] = byte;
                std::string out;
                appendCsvField(out, text);
                std::string expected = text;
                if (byte == '"') expected.insert(at, 1, '"');
                if (quotes) expected = '"' + expected + '"';
                ASSERT_EQ(out, expected) << "byte " << c << " at " << at << " of " << size;
            }
        }
    }
}

TEST(ExportCsv, FileReportsUnwritablePath) {
    CsvFile file;
    EXPECT_FALSE(file.open("/nonexistent-dir/x.csv", "a,b"));
    EXPECT_NE(file.error().find("/nonexistent-dir/x.csv"), std::string::npos);
    EXPECT_FALSE(file.close());
}

TEST(ExportCsv, FullDiskIsAnError) {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    OutputFile file;
    ASSERT_TRUE(file.open("/dev/full"));
    file.write(std::string(1 << 16, 'x'));
    EXPECT_FALSE(file.close());
    EXPECT_NE(file.error().find("/dev/full"), std::string::npos);
}

TEST(ExportCsv, TablesOpenOnceAndKeepTheFirstError) {
    ExportScratch scratch;
    CsvTables tables(3);
    tables.open(0, scratch.file("a.csv"), "x").field("1").endRow();
    tables.open(0, scratch.file("other.csv"), "y").field("2").endRow();  // already open
    tables.open(1, "/nonexistent-dir/b.csv", "x");
    tables.open(1, "/nonexistent-dir/b.csv", "x");  // failed: not tried again
    EXPECT_FALSE(tables.isOpen(1));
    EXPECT_FALSE(tables.isOpen(2));
    EXPECT_EQ(tables.written(),
              (std::vector<std::string>{scratch.file("a.csv"), "/nonexistent-dir/b.csv"}));
    std::string error;
    EXPECT_FALSE(tables.close(error));
    EXPECT_NE(error.find("/nonexistent-dir/b.csv"), std::string::npos);
    // After the error no table goes in place, and no temporary file stays behind.
    EXPECT_FALSE(tables.commit(error));
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path()));
}

TEST(ExportCsv, TablesGoInPlaceOnCommitOnly) {
    ExportScratch scratch;
    test::writeText(scratch.file("a.csv"), "old");
    CsvTables tables(2);
    tables.open(0, scratch.file("a.csv"), "x").field("1").endRow();
    tables.open(1, scratch.file("b.csv"), "y").field("2").endRow();
    std::string error;
    ASSERT_TRUE(tables.close(error)) << error;
    EXPECT_EQ(test::slurp(scratch.file("a.csv")), "old");  // closed, not yet in place
    EXPECT_FALSE(std::filesystem::exists(scratch.file("b.csv")));
    ASSERT_TRUE(tables.commit(error)) << error;
    EXPECT_EQ(test::slurp(scratch.file("a.csv")), "x\r\n1\r\n");
    EXPECT_EQ(test::slurp(scratch.file("b.csv")), "y\r\n2\r\n");
    EXPECT_EQ(test::filesIn(scratch.path()), (std::vector<std::string>{"a.csv", "b.csv"}));

    CsvTables discarded(1);
    discarded.open(0, scratch.file("a.csv"), "z").field("3").endRow();
    ASSERT_TRUE(discarded.close(error));
    discarded.discard();
    EXPECT_EQ(test::slurp(scratch.file("a.csv")), "x\r\n1\r\n");
    EXPECT_EQ(test::filesIn(scratch.path()), (std::vector<std::string>{"a.csv", "b.csv"}));
}

TEST(ExportCommon, PidFromFileName) {
    EXPECT_EQ(pidFromFileName("/tmp/run/vecadd.4242.atp"), 4242u);
    EXPECT_EQ(pidFromFileName("vecadd.atp"), 0u);
    EXPECT_EQ(pidFromFileName("a.b12.atp"), 0u);
    EXPECT_EQ(pidFromFileName(".77.atp"), 0u);  // no name before the pid
    EXPECT_EQ(pidFromFileName("dir.5/name"), 0u);
    EXPECT_EQ(traceBaseName("/x/y/vecadd.4242.atp"), "vecadd.4242");
    EXPECT_EQ(traceBaseName("noext"), "noext");
}

TEST(ExportCommon, ProcessIdsPreferHeaderThenNameAndResolveClashes) {
    ProcessIds ids;
    WarningLog warnings;
    ids.beginFile("a.100.atp");
    ids.header("ProcessId", "55");
    EXPECT_EQ(ids.pid(warnings), 55u);
    ids.beginFile("b.100.atp");
    ids.header("ProcessId", "not a number");
    EXPECT_EQ(ids.pid(warnings), 100u);
    ids.beginFile("c.100.atp");  // clashes with the file before
    const uint64_t clash = ids.pid(warnings);
    EXPECT_EQ(clash, ProcessIds::kSyntheticIdBase);
    ASSERT_EQ(warnings.messages().size(), 1u);
    EXPECT_NE(warnings.messages()[0].find("c.100.atp: pid 100"), std::string::npos);
    ids.beginFile("plain.atp");
    EXPECT_EQ(ids.pid(warnings), ProcessIds::kSyntheticIdBase + 1);
}

TEST(ExportCommon, WarningLogCapsMessages) {
    WarningLog log;
    for (size_t i = 0; i < WarningLog::kMaxKept + 5; ++i) log.add("w");
    EXPECT_EQ(log.messages().size(), WarningLog::kMaxKept);
    EXPECT_EQ(log.dropped(), 5u);
}

TEST(ExportCommon, CommandClasses) {
    atp::OclCommand command;
    command.commandType = 4595;
    EXPECT_EQ(classifyCommand(command), CommandClass::Memory);
    command.commandType = 4615;
    EXPECT_EQ(classifyCommand(command), CommandClass::Memory);
    command.commandType = 4606;  // MARKER
    EXPECT_EQ(classifyCommand(command), CommandClass::Other);
    command.commandType = 4594;
    EXPECT_EQ(classifyCommand(command), CommandClass::Kernel);
    command.commandType = 1;
    command.isKernel = true;
    EXPECT_EQ(classifyCommand(command), CommandClass::Kernel);
    EXPECT_EQ(commandClassName(CommandClass::Memory), "memory");
}

struct Collected {
    std::vector<MarkerSpan> spans;
    MarkerMatcher matcher{[this](const MarkerSpan& span) { spans.push_back(span); }};
    WarningLog warnings;
};

TEST(ExportMarkers, PairsNestedMarkersAndRenamesOnEndEx) {
    RecordFactory records;
    Collected c;
    c.matcher.beginFile("t.atp");
    c.matcher.add(records.marker(1, atp::MarkerKind::Begin, 100, "outer", "G", "color=red"),
                  c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::Begin, 110, "inner"), c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::End, 120), c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::EndEx, 200, "renamed", "H"), c.warnings);
    c.matcher.endFile(c.warnings);
    ASSERT_EQ(c.spans.size(), 2u);
    EXPECT_EQ(c.spans[0].name, "inner");
    EXPECT_EQ(c.spans[0].depth, 1u);
    EXPECT_EQ(c.spans[1].name, "renamed");
    EXPECT_EQ(c.spans[1].group, "H");
    EXPECT_EQ(c.spans[1].userString, "color=red");
    EXPECT_EQ(c.spans[1].begin, 100u);
    EXPECT_EQ(c.spans[1].end, 200u);
    EXPECT_TRUE(c.warnings.messages().empty());
}

TEST(ExportMarkers, UnbalancedMarkersAreDroppedOrClosedWithWarnings) {
    RecordFactory records;
    Collected c;
    c.matcher.beginFile("t.atp");
    c.matcher.add(records.marker(3, atp::MarkerKind::End, 50), c.warnings);  // never begun
    c.matcher.add(records.marker(3, atp::MarkerKind::Begin, 60, "open"), c.warnings);
    c.matcher.noteTime(3, 900);
    c.matcher.endFile(c.warnings);
    ASSERT_EQ(c.spans.size(), 1u);
    EXPECT_TRUE(c.spans[0].unclosed);
    EXPECT_EQ(c.spans[0].end, 900u);
    ASSERT_EQ(c.warnings.messages().size(), 2u);
    EXPECT_NE(c.warnings.messages()[0].find("t.atp:1: thread 3"), std::string::npos);
    EXPECT_NE(c.warnings.messages()[1].find("never ended"), std::string::npos);
}

TEST(ExportMarkers, BackwardTimestampsAreClampedToKeepNesting) {
    RecordFactory records;
    Collected c;
    c.matcher.beginFile("t.atp");
    c.matcher.add(records.marker(1, atp::MarkerKind::Begin, 100, "parent"), c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::Begin, 90, "child"),
                  c.warnings);  // before parent
    c.matcher.add(records.marker(1, atp::MarkerKind::End, 300), c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::End, 200), c.warnings);  // before child end
    c.matcher.add(records.marker(1, atp::MarkerKind::Begin, 250, "sibling"), c.warnings);
    c.matcher.add(records.marker(1, atp::MarkerKind::End, 260), c.warnings);
    c.matcher.endFile(c.warnings);
    ASSERT_EQ(c.spans.size(), 3u);
    EXPECT_EQ(c.spans[0].begin, 100u);  // child moved to the parent's start
    EXPECT_EQ(c.spans[1].end, 300u);    // parent extended over the child
    EXPECT_EQ(c.spans[2].begin, 300u);  // sibling after the parent
    EXPECT_EQ(c.spans[2].end, 300u);
    ASSERT_EQ(c.warnings.messages().size(), 1u);
    EXPECT_NE(c.warnings.messages()[0].find("out of order"), std::string::npos);
}

TEST(ExportSplitJson, PartsStayBelowTheLimitAndRepeatMetadata) {
    ExportScratch scratch;
    const std::string path = scratch.file("t.json");
    SplitJsonWriter writer(path, 600);
    writer.metadata(
        R"({"ph":"M","pid":1,"tid":1,"ts":0,"name":"thread_name","args":{"name":"T"}})");
    for (int i = 0; i < 40; ++i) {
        writer.events(R"({"ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(i) +
                      R"(,"dur":1,"name":"e"})");
    }
    std::string error;
    ASSERT_TRUE(writer.finish(error)) << error;
    ASSERT_GT(writer.files().size(), 2u);
    EXPECT_EQ(writer.files()[1], scratch.file("t-2.json"));
    size_t slices = 0;
    for (const std::string& file : writer.files()) {
        EXPECT_LE(std::filesystem::file_size(file), 600u);
        const json part = test::parseJsonFile(file);
        ASSERT_EQ(part["traceEvents"][0]["ph"], "M") << file;
        slices += test::eventsWithPh(part, "X").size();
    }
    EXPECT_EQ(slices, 40u);
}

TEST(ExportSplitJson, EmptyTraceIsValidAndUnwritablePathFails) {
    ExportScratch scratch;
    SplitJsonWriter empty(scratch.file("e.json"), 1000);
    std::string error;
    ASSERT_TRUE(empty.finish(error));
    EXPECT_TRUE(test::parseJsonFile(scratch.file("e.json"))["traceEvents"].empty());

    SplitJsonWriter bad(scratch.file("missing/dir/e.json"), 1000);
    bad.events("{}");
    EXPECT_FALSE(bad.finish(error));
    EXPECT_NE(error.find("missing/dir/e.json"), std::string::npos);
    EXPECT_EQ(SplitJsonWriter::partPath("/a.b/trace", 2), "/a.b/trace-3");
}

}  // namespace
