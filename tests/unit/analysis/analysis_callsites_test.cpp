// The Call Site pages (docs/summary.md#call-sites) through the real reader: the labels of the
// three line forms, every cell of the pages of tests/fixtures/atp/call_sites.atp (worked out by
// hand from its timestamps), where the pages go, and the notes on Stack Trace sections that do
// not line up with their API Trace sections. Also the read-ahead of the call sites of a file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/callsites/call_site_reader.h"
#include "analysis/callsites/call_sites.h"
#include "analysis/summary.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::analysis {
namespace {

const std::string kFixture = std::string(PERFMARKER_FIXTURES_DIR) + "/atp/call_sites.atp";

using Rows = std::vector<std::vector<std::string>>;

std::vector<Table> summarizeFile(const std::string& path) {
    TraceSummary summary;
    atp::TraceParser parser;
    parser.addListener(summary);
    std::string error;
    EXPECT_TRUE(parser.parseFile(path, error)) << error;
    return summary.tables();
}

std::vector<Table> summarizeText(const std::string& text) {
    TraceSummary summary;
    atp::TraceParser parser;
    parser.addListener(summary);
    std::string error;
    EXPECT_TRUE(parser.parseBuffer(text, "bad.atp", error)) << error;
    return summary.tables();
}

const Table* findTable(const std::vector<Table>& tables, const std::string& id) {
    for (const Table& table : tables) {
        if (table.id == id) return &table;
    }
    return nullptr;
}

std::vector<std::string> ids(const std::vector<Table>& tables) {
    std::vector<std::string> out;
    for (const Table& table : tables) out.push_back(table.id);
    return out;
}

// The rows of the Trace Notes page (File, Line, Note); none when the page is not there.
Rows notes(const std::vector<Table>& tables) {
    const Table* table = findTable(tables, "TraceNotes");
    return table == nullptr ? Rows{} : table->rows;
}

// The 1-based number of the line of `text` that is the `nth` (from 1) line equal to `line`.
uint64_t lineNumber(const std::string& text, const std::string& line, int nth = 1) {
    uint64_t number = 0;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        ++number;
        if (text.compare(start, end - start, line) == 0 && --nth == 0) return number;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return 0;
}

// One OpenCL thread block of the API Trace, Timestamp or Stack Trace section.
struct Block {
    uint64_t tid;
    std::vector<std::string> calls;  // "clFinish"; its times are derived from its place
    std::vector<std::string> sites;  // the Stack Trace lines
};

// An OpenCL trace with the blocks given; every call lasts 1000 ns. `stack` false: no Stack Trace
// section; `api` false: only the Stack Trace section.
std::string oclTrace(const std::vector<Block>& blocks, bool api = true, bool stack = true,
                     const std::vector<Block>* stackBlocks = nullptr) {
    const auto id = [](const std::string& name) { return name == "clFinish" ? "51" : "50"; };
    std::string text = "TraceFileVersion=3.2\n";
    if (api) {
        std::string trace = "=====ocl API Trace Output=====\n";
        std::string times = "=====ocl Timestamp Output=====\n";
        uint64_t start = 1000000;
        for (const Block& block : blocks) {
            const std::string head =
                std::to_string(block.tid) + "\n" + std::to_string(block.calls.size()) + "\n";
            trace += head;
            times += head;
            for (const std::string& call : block.calls) {
                trace += "CL_SUCCESS = " + call + " ( 0x20f4a30 )\n";
                times += std::string(id(call)) + "   " + call + "   " + std::to_string(start) +
                         "   " + std::to_string(start + 1000) + "\n";
                start += 2000;
            }
        }
        text += trace + times;
    }
    if (stack) {
        text += "=====ocl Stack Trace Output=====\n";
        for (const Block& block : stackBlocks != nullptr ? *stackBlocks : blocks) {
            text += std::to_string(block.tid) + "\n" + std::to_string(block.sites.size()) + "\n";
            for (const std::string& site : block.sites) text += site + "\n";
        }
    }
    return text;
}

TEST(CallSiteLabel, TheThreeFormsAndWhatIsUnknown) {
    atp::StackEntry entry;
    entry.apiName = "clFinish";
    entry.symbol = "enqueue_twice";
    entry.sourceLine = 42;
    entry.file = "/src/app/app.c";
    EXPECT_EQ(callsites::callSiteLabel(entry), "app.c:42 enqueue_twice");
    entry.sourceLine = 0;
    EXPECT_EQ(callsites::callSiteLabel(entry), "app.c enqueue_twice");
    entry.file.clear();
    EXPECT_EQ(callsites::callSiteLabel(entry), "enqueue_twice");
    entry.symbol = "NA";  // the original's unknown function
    EXPECT_EQ(callsites::callSiteLabel(entry), "");
    entry.file = "relative.c";
    entry.sourceLine = 7;
    EXPECT_EQ(callsites::callSiteLabel(entry), "relative.c:7");
    entry.symbol.clear();
    entry.file.clear();
    entry.sourceLine = 0;
    EXPECT_EQ(callsites::callSiteLabel(entry), "");  // the bare API name
    entry.address = "my&nbsp;lib.so+0x1a2b";
    EXPECT_EQ(callsites::callSiteLabel(entry), "my lib.so+0x1a2b");
}

TEST(CallSitePages, EveryCellOfTheFixture) {
    const std::vector<Table> tables = summarizeFile(kFixture);
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    ASSERT_NE(cl, nullptr);
    EXPECT_EQ(cl->title, "Call Site Summary Page");
    EXPECT_EQ(cl->columns, (std::vector<std::string>{"API Name", "Call Site", "# of Calls",
                                                     "Total Time(ms)", "Avg Time(ms)"}));
    // Thread 100 and 200 call enqueue_twice at app.c:42 (20 + 30 + 10 us); the collapsed
    // clGetEventInfo line counts 5 calls; the worker's clFinish has symbols only; the bare
    // clReleaseKernel and the "NA" clGetEventInfo (3 calls) have no call site.
    EXPECT_EQ(cl->rows,
              (Rows{{"clCreateContext", "app.c:14 main", "1", "2.00000", "2.00000"},
                    {"clFinish", "worker_sync", "1", "0.20000", "0.20000"},
                    {"clFinish", "libhelper.so+0x1a2b", "1", "0.10000", "0.10000"},
                    {"clEnqueueNDRangeKernel", "app.c:42 enqueue_twice", "3", "0.06000", "0.02000"},
                    {"clGetEventInfo", "app.c:57 wait_done", "5", "0.05000", "0.01000"},
                    {"clEnqueueNDRangeKernel", "worker.c:88 worker", "1", "0.04000", "0.04000"},
                    {"clGetPlatformIDs", "app.c:12 main", "1", "0.00800", "0.00800"}}));
    EXPECT_EQ(cl->notes,
              (std::vector<std::string>{"4 call(s) without a call site are not listed"}));

    const Table* hsa = findTable(tables, "HSACallSiteSummary");
    ASSERT_NE(hsa, nullptr);
    EXPECT_EQ(hsa->rows,
              (Rows{{"hsa_queue_create", "hsa_setup.cpp:30 setup_queue", "1", "2.00000", "2.00000"},
                    {"hsa_shut_down", "app.c:99 main", "1", "1.00000", "1.00000"},
                    {"hsa_init", "app.c:10 main", "1", "0.90000", "0.90000"},
                    {"hsa_signal_create", "libhsa_helper.so+0x400", "1", "0.01000", "0.01000"}}));
    ASSERT_EQ(hsa->notes.size(), 1u);
    EXPECT_EQ(hsa->notes[0].substr(0, 2), "1 ");
    EXPECT_TRUE(notes(tables).empty());
}

TEST(CallSitePages, EachFollowsItsFamilysApiPage) {
    const std::vector<std::string> order = ids(summarizeFile(kFixture));
    EXPECT_EQ(order,
              (std::vector<std::string>{"CLAPISummary", "CLCallSiteSummary", "CLContextSummary",
                                        "CLKernelSummary", "CLTopKernelSummary", "HSAAPISummary",
                                        "HSACallSiteSummary", "BestPractices"}));
}

TEST(CallSitePages, NoPageWithoutAStackTraceSection) {
    const std::vector<Table> tables =
        summarizeFile(std::string(PERFMARKER_FIXTURES_DIR) + "/atp/ocl_vecadd.atp");
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary"), nullptr);
    EXPECT_EQ(findTable(tables, "HSACallSiteSummary"), nullptr);
}

TEST(CallSitePages, ASectionOfBareLinesGivesAnEmptyPage) {
    const std::vector<Table> tables =
        summarizeText(oclTrace({{7, {"clFinish", "clFinish"}, {"clFinish", "clFinish"}}}));
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    ASSERT_NE(cl, nullptr);
    EXPECT_TRUE(cl->rows.empty());
    ASSERT_EQ(cl->notes.size(), 1u);
    EXPECT_EQ(cl->notes[0].substr(0, 2), "2 ");
    EXPECT_EQ(findTable(tables, "HSACallSiteSummary"), nullptr);
}

TEST(CallSitePages, BlocksOfOneThreadAreJoinedInTheirOrder) {
    // Thread 7 has two blocks (threads that got the same id one after the other).
    const std::vector<Table> tables = summarizeText(oclTrace({
        {7, {"clFinish"}, {"clFinish\tfirst\t1\ta.c"}},
        {8, {"clFlush"}, {"clFlush\tother\t2\ta.c"}},
        {7, {"clFlush", "clFinish"}, {"clFlush\tsecond\t3\ta.c", "clFinish\tsecond\t4\ta.c"}},
    }));
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    ASSERT_NE(cl, nullptr);
    EXPECT_EQ(cl->rows, (Rows{{"clFinish", "a.c:1 first", "1", "0.00100", "0.00100"},
                              {"clFinish", "a.c:4 second", "1", "0.00100", "0.00100"},
                              {"clFlush", "a.c:2 other", "1", "0.00100", "0.00100"},
                              {"clFlush", "a.c:3 second", "1", "0.00100", "0.00100"}}));
    EXPECT_TRUE(notes(tables).empty());
}

TEST(CallSitePages, MoreStackLinesThanCalls) {
    const std::vector<Block> api = {{7, {"clFinish", "clFlush"}, {}}};
    const std::vector<Block> stack = {
        {7, {}, {"clFinish\tf\t1\ta.c", "clFlush\tf\t2\ta.c", "clFinish\tf\t3\ta.c"}}};
    const std::string text = oclTrace(api, true, true, &stack);
    const std::vector<Table> tables = summarizeText(text);
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary")->rows.size(), 2u);
    EXPECT_EQ(notes(tables),
              (Rows{{"bad.atp", std::to_string(lineNumber(text, "clFinish\tf\t1\ta.c")),
                     "ocl Stack Trace Output, thread 7: 3 line(s) for 2 API call(s): the last 1 "
                     "line(s) name no call and are left out"}}));
}

TEST(CallSitePages, FewerStackLinesThanCalls) {
    const std::vector<Block> api = {{7, {"clFinish", "clFlush", "clFlush"}, {}}};
    const std::vector<Block> stack = {{7, {}, {"clFinish\tf\t1\ta.c"}}};
    const std::string text = oclTrace(api, true, true, &stack);
    const std::vector<Table> tables = summarizeText(text);
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    EXPECT_EQ(cl->rows, (Rows{{"clFinish", "a.c:1 f", "1", "0.00100", "0.00100"}}));
    EXPECT_EQ(notes(tables),
              (Rows{{"bad.atp", std::to_string(lineNumber(text, "clFinish\tf\t1\ta.c")),
                     "ocl Stack Trace Output, thread 7: 1 line(s) for 3 API call(s): the last 2 "
                     "call(s) have no call site"}}));
}

TEST(CallSitePages, AThreadWithoutAStackBlock) {
    const std::vector<Block> api = {{7, {"clFinish"}, {}}, {8, {"clFlush", "clFlush"}, {}}};
    const std::vector<Block> stack = {{7, {}, {"clFinish\tf\t1\ta.c"}}};
    const std::string text = oclTrace(api, true, true, &stack);
    const std::vector<Table> tables = summarizeText(text);
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary")->rows.size(), 1u);
    EXPECT_EQ(
        notes(tables),
        (Rows{{"bad.atp", std::to_string(lineNumber(text, "=====ocl Stack Trace Output=====")),
               "ocl Stack Trace Output has no block for thread 8 (2 API call(s)): they have "
               "no call site"}}));
}

TEST(CallSitePages, AStackBlockOfAThreadWithoutCalls) {
    const std::vector<Block> api = {{7, {"clFinish"}, {}}};
    const std::vector<Block> stack = {{7, {}, {"clFinish\tf\t1\ta.c"}},
                                      {9, {}, {"clFlush\tg\t2\ta.c"}}};
    const std::string text = oclTrace(api, true, true, &stack);
    const std::vector<Table> tables = summarizeText(text);
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary")->rows.size(), 1u);
    EXPECT_EQ(notes(tables),
              (Rows{{"bad.atp", std::to_string(lineNumber(text, "clFlush\tg\t2\ta.c")),
                     "ocl Stack Trace Output, thread 9: 1 line(s) for no API call: left out"}}));
}

TEST(CallSitePages, AStackSectionWithoutAnApiSection) {
    const std::string text = oclTrace({{7, {}, {"clFinish\tf\t1\ta.c", "clFlush"}}}, false);
    const std::vector<Table> tables = summarizeText(text);
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    ASSERT_NE(cl, nullptr);
    EXPECT_TRUE(cl->rows.empty());
    EXPECT_EQ(
        notes(tables),
        (Rows{{"bad.atp", std::to_string(lineNumber(text, "=====ocl Stack Trace Output=====")),
               "ocl Stack Trace Output: the trace has no OpenCL API calls: its 2 line(s) "
               "are left out"}}));
}

TEST(CallSitePages, ALineNamingAnotherApiIsLeftOut) {
    const std::vector<Block> api = {{7, {"clFinish", "clFlush", "clFinish"}, {}}};
    const std::vector<Block> stack = {
        {7, {}, {"clFinish\tf\t1\ta.c", "clFinish\tf\t2\ta.c", "clFinish\tf\t3\ta.c"}}};
    const std::string text = oclTrace(api, true, true, &stack);
    const std::vector<Table> tables = summarizeText(text);
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary")->rows,
              (Rows{{"clFinish", "a.c:1 f", "1", "0.00100", "0.00100"},
                    {"clFinish", "a.c:3 f", "1", "0.00100", "0.00100"}}));
    EXPECT_EQ(notes(tables),
              (Rows{{"bad.atp", std::to_string(lineNumber(text, "clFinish\tf\t1\ta.c")),
                     "ocl Stack Trace Output, thread 7: line 2 of the block names clFinish where "
                     "the API call is clFlush; 1 line(s) of the block name another API than their "
                     "call: those calls have no call site"}}));
}

TEST(CallSitePages, CallsWithoutUsableTimesAreLeftOutWithTheirCount) {
    std::string text =
        oclTrace({{7, {"clFinish", "clFinish"}, {"clFinish\tf\t1\ta.c", "clFinish\tf\t1\ta.c"}}});
    // The second call ends before it starts (docs/format.md#unknown-times).
    const std::string second = "51   clFinish   1002000   1003000";
    const size_t at = text.find(second);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, second.size(), "51   clFinish   1003000   1002000");
    const std::vector<Table> tables = summarizeText(text);
    EXPECT_EQ(findTable(tables, "CLCallSiteSummary")->rows,
              (Rows{{"clFinish", "a.c:1 f", "1", "0.00100", "0.00100"}}));
    EXPECT_TRUE(findTable(tables, "CLCallSiteSummary")->notes.empty());
}

TEST(CallSitePages, SeveralTracesAddUp) {
    TraceSummary summary;
    atp::TraceParser parser;
    parser.addListener(summary);
    std::string error;
    ASSERT_TRUE(parser.parseFile(kFixture, error)) << error;
    ASSERT_TRUE(parser.parseFile(kFixture, error)) << error;
    const std::vector<Table> tables = summary.tables();
    const Table* cl = findTable(tables, "CLCallSiteSummary");
    ASSERT_NE(cl, nullptr);
    EXPECT_EQ(cl->rows[0], (std::vector<std::string>{"clCreateContext", "app.c:14 main", "2",
                                                     "4.00000", "2.00000"}));
}

TEST(CallSiteReader, ReadsTheStackTraceSectionsAhead) {
    callsites::CallSiteIndex index;
    std::string error;
    ASSERT_TRUE(callsites::readCallSites(kFixture, index, error)) << error;
    EXPECT_TRUE(index.hasSection(atp::ApiFamily::Ocl));
    EXPECT_TRUE(index.hasSection(atp::ApiFamily::Hsa));
    callsites::BlockCounter blocks;
    const auto find = [&](atp::ApiFamily family, uint64_t tid, uint64_t position,
                          std::string_view api) {
        return std::string(index.find(blocks.key(family, tid, position), api));
    };
    EXPECT_EQ(find(atp::ApiFamily::Ocl, 100, 0, "clGetPlatformIDs"), "app.c:12 main");
    EXPECT_EQ(find(atp::ApiFamily::Ocl, 100, 1, "clCreateContext"), "app.c:14 main");
    EXPECT_EQ(find(atp::ApiFamily::Ocl, 200, 0, "clEnqueueNDRangeKernel"), "worker.c:88 worker");
    EXPECT_EQ(find(atp::ApiFamily::Ocl, 200, 1, "clEnqueueNDRangeKernel"),
              "app.c:42 enqueue_twice");
    EXPECT_EQ(find(atp::ApiFamily::Ocl, 200, 2, "clFlush"), "");  // another API at that place
    EXPECT_EQ(find(atp::ApiFamily::Hsa, 100, 2, "hsa_signal_create"), "libhsa_helper.so+0x400");
    EXPECT_EQ(find(atp::ApiFamily::Hsa, 300, 0, "hsa_signal_destroy"), "");  // a bare line
}

TEST(CallSiteReader, OnlyRegularFiles) {
    callsites::CallSiteIndex index;
    std::string error;
    EXPECT_FALSE(callsites::readCallSites("/dev/null", index, error));
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
    EXPECT_FALSE(callsites::readCallSites(kFixture + ".missing", index, error));
    EXPECT_FALSE(index.hasSection(atp::ApiFamily::Ocl));
}

}  // namespace
}  // namespace perfmarker::analysis
