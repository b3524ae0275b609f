// Call sites in the report (docs/report.md): an API call's slice gets a "call site" detail line
// from the trace's Stack Trace section (tests/fixtures/atp/call_sites.atp), also after the cap
// dropped slices and with several traces; the page has the Call Site tables of the summary.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/summary.h"
#include "atp/read/trace_parser.h"
#include "report/html_report.h"
#include "report/timeline.h"

namespace perfmarker::report {
namespace {

const std::string kAtp = std::string(PERFMARKER_FIXTURES_DIR) + "/atp/";

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Timeline collect(const std::vector<std::string>& traces, size_t maxItems = kDefaultMaxItems,
                 analysis::TraceSummary* summary = nullptr) {
    TimelineCollector collector(maxItems);
    atp::TraceParser parser;
    parser.addListener(collector);
    if (summary != nullptr) parser.addListener(*summary);
    for (const std::string& trace : traces) {
        std::string error;
        EXPECT_TRUE(parser.parseBuffer(readAll(kAtp + trace), trace, error)) << error;
    }
    return collector.take();
}

// The "call site=" line of an item's details; "" when it has none.
std::string callSite(const Item& item) {
    const std::string key = "call site=";
    const size_t at = item.details.find(key);
    if (at == std::string::npos) return {};
    const size_t end = item.details.find('\n', at);
    return item.details.substr(at + key.size(),
                               end == std::string::npos ? end : end - at - key.size());
}

// The call sites of the API slices named `name` on the rows labelled `track`, by start time.
std::vector<std::string> sitesOf(const Timeline& timeline, const std::string& name,
                                 const std::string& track, uint32_t process = 0) {
    std::vector<std::string> out;
    for (const Item& item : timeline.items) {
        const Track& row = timeline.tracks[item.track];
        if (item.kind != ItemKind::Api || timeline.strings[item.name] != name ||
            row.label != track || row.process != process) {
            continue;
        }
        out.push_back(callSite(item));
    }
    return out;
}

TEST(ReportCallSites, ApiSlicesShowTheirCallSite) {
    const Timeline timeline = collect({"call_sites.atp"});
    EXPECT_EQ(sitesOf(timeline, "clEnqueueNDRangeKernel", "thread 100"),
              (std::vector<std::string>{"app.c:42 enqueue_twice", "app.c:42 enqueue_twice"}));
    EXPECT_EQ(sitesOf(timeline, "clEnqueueNDRangeKernel", "thread 200"),
              (std::vector<std::string>{"worker.c:88 worker", "app.c:42 enqueue_twice"}));
    EXPECT_EQ(sitesOf(timeline, "clGetEventInfo", "thread 100"),
              (std::vector<std::string>{"app.c:57 wait_done"}));
    EXPECT_EQ(sitesOf(timeline, "clGetEventInfo", "thread 200"), (std::vector<std::string>{""}));
    EXPECT_EQ(sitesOf(timeline, "clFinish", "thread 100"),
              (std::vector<std::string>{"libhelper.so+0x1a2b"}));
    EXPECT_EQ(sitesOf(timeline, "clFinish", "thread 200"),
              (std::vector<std::string>{"worker_sync"}));
    EXPECT_EQ(sitesOf(timeline, "clReleaseKernel", "thread 100"), (std::vector<std::string>{""}));
    EXPECT_EQ(sitesOf(timeline, "hsa_queue_create", "thread 100"),
              (std::vector<std::string>{"hsa_setup.cpp:30 setup_queue"}));
    EXPECT_EQ(sitesOf(timeline, "hsa_shut_down", "thread 300"),
              (std::vector<std::string>{"app.c:99 main"}));
    for (const Item& item : timeline.items) {
        if (item.kind != ItemKind::Api) {
            EXPECT_EQ(callSite(item), "") << item.details;
        }
    }
}

TEST(ReportCallSites, SlicesKeptByTheCapKeepTheirOwn) {
    // Three slices are kept: the longest (clCreateContext 2 ms, hsa_queue_create 2 ms,
    // hsa_shut_down 1 ms).
    const Timeline timeline = collect({"call_sites.atp"}, 3);
    ASSERT_EQ(timeline.items.size(), 3u);
    EXPECT_EQ(sitesOf(timeline, "clCreateContext", "thread 100"),
              (std::vector<std::string>{"app.c:14 main"}));
    EXPECT_EQ(sitesOf(timeline, "hsa_queue_create", "thread 100"),
              (std::vector<std::string>{"hsa_setup.cpp:30 setup_queue"}));
    EXPECT_EQ(sitesOf(timeline, "hsa_shut_down", "thread 300"),
              (std::vector<std::string>{"app.c:99 main"}));
}

TEST(ReportCallSites, EachTraceItsOwn) {
    const Timeline timeline = collect({"ocl_vecadd.atp", "call_sites.atp", "ocl_stack.atp"});
    for (const Item& item : timeline.items) {
        if (timeline.tracks[item.track].process == 0) {
            EXPECT_EQ(callSite(item), "") << item.details;
        }
    }
    EXPECT_EQ(sitesOf(timeline, "clGetPlatformIDs", "thread 100", 1),
              (std::vector<std::string>{"app.c:12 main"}));
    EXPECT_EQ(sitesOf(timeline, "clGetPlatformIDs", "thread 4711", 2),
              (std::vector<std::string>{"main.cpp:42 main"}));
    EXPECT_EQ(sitesOf(timeline, "clBuildProgram", "thread 4711", 2),
              (std::vector<std::string>{"libvecadd.so+0x1a2b"}));
}

TEST(ReportCallSites, ThePageHasTheCallSiteTables) {
    analysis::TraceSummary summary;
    ReportData data;
    data.timeline = collect({"call_sites.atp"}, kDefaultMaxItems, &summary);
    data.tables = summary.tables();
    std::ostringstream page;
    writeHtmlReport(page, data);
    const std::string html = page.str();
    EXPECT_NE(html.find("id=\"table-CLCallSiteSummary\""), std::string::npos);
    EXPECT_NE(html.find("id=\"table-HSACallSiteSummary\""), std::string::npos);
    EXPECT_NE(html.find("<td>app.c:42 enqueue_twice</td>"), std::string::npos);
    EXPECT_NE(html.find("call site=app.c:42 enqueue_twice"), std::string::npos);
}

}  // namespace
}  // namespace perfmarker::report
