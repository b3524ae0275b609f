// Number formatting, the top-N list, parameter reading and the renderers of the summary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/format.h"
#include "analysis/params.h"
#include "analysis/render.h"

namespace perfmarker::analysis {
namespace {

TEST(AnalysisFormat, MillisecondsWithFiveDecimalsAndZeroAsZero) {
    EXPECT_EQ(formatMs(0), "0");
    EXPECT_EQ(formatMs(4), "0.00000");
    EXPECT_EQ(formatMs(5), "0.00001");
    EXPECT_EQ(formatMs(1000000), "1.00000");
    EXPECT_EQ(formatMs(1234567), "1.23457");
    EXPECT_EQ(formatMs(98765432101), "98765.43210");
    EXPECT_EQ(formatMsMean(0, 3), "0");
    EXPECT_EQ(formatMsMean(5, 0), "0");
    EXPECT_EQ(formatMsMean(3000000, 2), "1.50000");
}

TEST(AnalysisFormat, SizesAre1024BasedWithTwoDecimals) {
    EXPECT_EQ(formatSize(0), "0.00 Byte");
    EXPECT_EQ(formatSize(1023), "1023.00 Byte");
    EXPECT_EQ(formatSize(1024), "1.00 KB");
    EXPECT_EQ(formatSize(1536), "1.50 KB");
    EXPECT_EQ(formatSize(uint64_t{1} << 20), "1.00 MB");
    EXPECT_EQ(formatSize(uint64_t{3} << 30), "3.00 GB");
    EXPECT_EQ(formatSize(uint64_t{5} << 40), "5120.00 GB");
}

TEST(AnalysisFormat, RatesInMiBPerSecondOrNA) {
    EXPECT_EQ(formatRate(uint64_t{1} << 20, 1000000), "1000.000");
    EXPECT_EQ(formatRate(4096, 0), "NA");
    EXPECT_EQ(formatRate(4096, 999, true), "NA");
    EXPECT_EQ(formatRate(4096, 999, false), "3910.160");
    EXPECT_EQ(formatRate(uint64_t{1} << 20, 1000, true), "1000000.000");
}

TEST(AnalysisFormat, Percentages) {
    EXPECT_EQ(formatPercent(1, 3), "33.33");
    EXPECT_EQ(formatPercent(3, 3), "100.00");
    EXPECT_EQ(formatPercent(0, 0), "0.00");
}

TEST(AnalysisFormat, DurationIsZeroWhenEndIsNotAfterStart) {
    EXPECT_EQ(durationNs(10, 25), 15u);
    EXPECT_EQ(durationNs(25, 25), 0u);
    EXPECT_EQ(durationNs(30, 25), 0u);
    DurationStats stats;
    stats.add(0);
    stats.add(7);
    stats.add(3);
    EXPECT_EQ(stats.count, 3u);
    EXPECT_EQ(stats.minNs, 3u);  // zero durations do not count as the minimum
    EXPECT_EQ(stats.maxNs, 7u);
}

TEST(AnalysisTopList, KeepsTheLargestAndTheEarliestOfEqualKeys) {
    TopList<std::string> top(3);
    top.offer(5, "a");
    top.offer(9, "b");
    top.offer(5, "c");
    top.offer(1, "d");
    top.offer(7, "e");
    top.offer(5, "f");
    EXPECT_EQ(top.sorted(), (std::vector<std::string>{"b", "e", "a"}));
    EXPECT_FALSE(top.wouldKeep(5));  // equal to the smallest: the earlier one stays
    EXPECT_TRUE(top.wouldKeep(6));
    TopList<std::string> none(0);
    none.offer(1, "x");
    EXPECT_TRUE(none.empty());
}

TEST(AnalysisParams, SizesFlagsHandlesLists) {
    EXPECT_EQ(sizeProduct("[64,64]"), 4096u);
    EXPECT_EQ(sizeProduct("{1048576}"), 1048576u);
    EXPECT_EQ(sizeProduct("256"), 256u);
    EXPECT_FALSE(sizeProduct("NULL"));
    EXPECT_FALSE(sizeProduct("{NULL}"));
    EXPECT_FALSE(sizeProduct(""));
    EXPECT_FALSE(parseUnsigned("99999999999999999999"));
    EXPECT_TRUE(hasFlag("CL_MEM_READ_ONLY|CL_MEM_COPY_HOST_PTR", "CL_MEM_COPY_HOST_PTR"));
    EXPECT_FALSE(hasFlag("CL_MAP_READ_X", "CL_MAP_READ"));
    EXPECT_EQ(normalizeHandle("0x2101E80"), "0x2101e80");
    EXPECT_EQ(normalizeHandle("NULL"), "");
    EXPECT_EQ(splitList("0x1,[a,b],{c,d}").size(), 3u);
    EXPECT_EQ(stripBrackets("[CL_SUCCESS]"), "CL_SUCCESS");
    EXPECT_EQ(stripBrackets("NULL"), "NULL");
    EXPECT_EQ(paramAt({"a"}, 3), "");
}

TEST(AnalysisParams, HsaParametersAndAgents) {
    const std::vector<std::string_view> params = {"dst=0x1", "size=4096", "sizes=3"};
    EXPECT_EQ(hsaParam(params, "size"), std::optional<std::string_view>("4096"));
    EXPECT_FALSE(hsaParam(params, "src"));
    const auto agent = parseHsaAgent("{handle=30811232,name=AMD&nbsp;Ryzen&comma;X}");
    ASSERT_TRUE(agent);
    EXPECT_EQ(agent->handle, "30811232");
    EXPECT_EQ(agent->name, "AMD Ryzen,X");
    EXPECT_FALSE(parseHsaAgent("30811232"));
    EXPECT_FALSE(parseHsaAgent("{other=1}"));
}

// Every parameter the rules and pages read exists, by its name, in every API it is read from:
// a name the catalogue does not have would read as "" forever after.
TEST(AnalysisParams, EveryOpenClParameterReadIsInTheCatalogue) {
    const std::vector<const OclParam*> all = oclParams().all();
    EXPECT_EQ(all.size(), 15u);
    for (const OclParam* param : all) EXPECT_EQ(param->unresolved(), std::vector<std::string>{});
    const OclParam typo{{"global_work_sizes"}, {"clEnqueueNDRangeKernel", "clEnqueueFoo*"}};
    EXPECT_EQ(typo.unresolved(),
              (std::vector<std::string>{"clEnqueueNDRangeKernel has no parameter global_work_sizes",
                                        "no API matches clEnqueueFoo*"}));
}

TEST(AnalysisParams, OpenClParametersByName) {
    atp::OclApiCall call;
    call.name = "clEnqueueNDRangeKernel";
    call.params = {"0x1", "0x2", "1", "NULL", "[64]", "[16]", "0", "NULL", "[0x3]"};
    const OclParams& params = oclParams();
    EXPECT_EQ(params.queue.in(call), "0x1");
    EXPECT_EQ(params.globalWorkSize.in(call), "[64]");
    EXPECT_EQ(params.localWorkSize.in(call), "[16]");
    EXPECT_EQ(params.mapFlags.in(call), "");  // not read from this API
    call.params.resize(5);                    // printed fewer parameters
    EXPECT_EQ(params.localWorkSize.in(call), "");
    call.name = "clRetainKernel";
    call.params = {"0x4"};
    EXPECT_EQ(params.retained.in(call), "0x4");
    call.name = "clCreateSubBuffer";  // a sub-buffer's owner is its buffer
    call.params = {"0x5", "CL_MEM_READ_ONLY", "CL_BUFFER_CREATE_TYPE_REGION", "[{0,64}]", "NULL"};
    EXPECT_EQ(params.owner.in(call), "0x5");
    // APIs without a prototype in the catalogue: an AMD extension and a Windows sharing API.
    call.name = "clSVMFreeAMD";
    call.params = {"0x6", "0x7000"};
    EXPECT_EQ(params.svmPointer.in(call), "0x7000");
    call.name = "clEnqueueAcquireD3D10ObjectsKHR";
    call.params = {"0x8", "1", "[0x9]", "0", "NULL", "NULL"};
    EXPECT_EQ(params.queue.in(call), "0x8");
    call.name = "clEnqueueSomething";  // unknown to the format
    EXPECT_EQ(params.queue.in(call), "");
}

std::vector<Table> sampleTables() {
    return {
        Table{
            "T1", "First Page", {"Name", "Value"}, {{"a|b", "1"}, {"long,name", "22"}}, {"a note"}},
        Table{"T2", "Second", {"X"}, {{"say \"hi\"\nthere"}}, {}}};
}

TEST(AnalysisRender, TextAlignsColumnsUnderTitles) {
    const std::string text = renderText(sampleTables());
    EXPECT_EQ(text,
              "First Page\n==========\n"
              "Name       Value\n"
              "---------  -----\n"
              "a|b        1\n"
              "long,name  22\n"
              "Note: a note\n"
              "\n"
              "Second\n======\n"
              "X\n"
              "--------------\n"
              "say \"hi\" there\n");
    EXPECT_NE(renderText({}).find("No data"), std::string::npos);
}

TEST(AnalysisRender, MarkdownEscapesPipesAndLineBreaks) {
    const std::string md = renderMarkdown(sampleTables());
    EXPECT_NE(md.find("## First Page\n\n| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n"),
              std::string::npos);
    EXPECT_NE(md.find("\n- a note\n"), std::string::npos);
    EXPECT_NE(md.find("| say \"hi\" there |"), std::string::npos);
}

TEST(AnalysisRender, CsvQuotesPerRfc4180) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(renderCsv(sampleTables()),
              "First Page\r\nName,Value\r\na|b,1\r\n\"long,name\",22\r\na note\r\n"
              "\r\nSecond\r\nX\r\n\"say \"\"hi\"\"\nthere\"\r\n");
}

TEST(AnalysisRender, JsonHasTablesWithAllFields) {
    const auto json = nlohmann::json::parse(renderJson(sampleTables()));
    ASSERT_EQ(json["tables"].size(), 2u);
    EXPECT_EQ(json["tables"][0]["id"], "T1");
    EXPECT_EQ(json["tables"][0]["title"], "First Page");
    EXPECT_EQ(json["tables"][0]["columns"][1], "Value");
    EXPECT_EQ(json["tables"][0]["rows"][1][0], "long,name");
    EXPECT_EQ(json["tables"][0]["notes"][0], "a note");
    EXPECT_TRUE(json["tables"][1]["notes"].empty());
    // Bytes that are not UTF-8 are replaced rather than failing.
    const Table bad{"B", "Bad", {"X"}, {{std::string("\xff")}}, {}};
    nlohmann::json parsed;
    EXPECT_NO_THROW(parsed = nlohmann::json::parse(renderJson({bad})));
    EXPECT_EQ(parsed["tables"].size(), 1u);
    EXPECT_EQ(nlohmann::json::parse(renderJson({}))["tables"].size(), 0u);
}

TEST(AnalysisRender, FormatNames) {
    EXPECT_EQ(parseOutputFormat("text"), OutputFormat::Text);
    EXPECT_EQ(parseOutputFormat("md"), OutputFormat::Markdown);
    EXPECT_EQ(parseOutputFormat("csv"), OutputFormat::Csv);
    EXPECT_EQ(parseOutputFormat("json"), OutputFormat::Json);
    EXPECT_FALSE(parseOutputFormat("html"));
    EXPECT_EQ(render(sampleTables(), OutputFormat::Csv), renderCsv(sampleTables()));
    EXPECT_EQ(render(sampleTables(), OutputFormat::Markdown), renderMarkdown(sampleTables()));
    EXPECT_EQ(render(sampleTables(), OutputFormat::Json), renderJson(sampleTables()));
    EXPECT_EQ(render(sampleTables(), OutputFormat::Text), renderText(sampleTables()));
}

}  // namespace
}  // namespace perfmarker::analysis
