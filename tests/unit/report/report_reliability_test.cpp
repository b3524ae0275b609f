// The report on traces from the field (docs/report.md#what-the-timeline-leaves-out): calls and
// commands without times or ending before they start are not drawn and the page says how many,
// a trace cut at the API call cap says so, and a report is replaced only by a finished page.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/html_report.h"
#include "report/timeline.h"
#include "report_records.h"

namespace perfmarker::report {
namespace {

using testing::sendApi;
using testing::sendEnqueue;

std::vector<std::string> names(const Timeline& timeline) {
    std::vector<std::string> out;
    for (const Item& item : timeline.items) out.push_back(timeline.strings[item.name]);
    return out;
}

TEST(ReportReliability, UnknownAndBackwardTimesAreNotDrawnAndCounted) {
    TimelineCollector collector;
    collector.onFileBegin("dir/field.atp");
    sendApi(collector, 1, "clUntimed", 0, 0);
    atp::OclApiCall backwards;
    backwards.tid = 1;
    backwards.name = "clBackwards";
    backwards.start = 900;
    backwards.end = 800;
    backwards.timestampLine = atp::SourceLocation{"dir/field.atp", 30};
    collector.onOclApiCall(backwards);
    sendEnqueue(collector, 4592, "CL_COMMAND_NDRANGE_KERNEL", "fine", 5000, 6000);
    atp::OclApiCall lost;
    lost.tid = 1;
    lost.name = "clEnqueueNDRangeKernel";
    lost.start = 7000;
    lost.end = 7100;
    lost.hasCommand = true;  // device times 0: unknown
    lost.command.isKernel = true;
    lost.command.kernelName = "lost";
    lost.timestampLine = atp::SourceLocation{"dir/field.atp", 41};
    collector.onOclApiCall(lost);
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "backward dispatch";
    dispatch.start = 9000;
    dispatch.end = 8000;
    dispatch.line = atp::SourceLocation{"dir/field.atp", 57};
    collector.onHsaKernelDispatch(dispatch);
    collector.onFileEnd("dir/field.atp");
    const Timeline timeline = collector.take();
    const std::vector<std::string> drawn = names(timeline);
    EXPECT_EQ(drawn, (std::vector<std::string>{"clEnqueueNDRangeKernel", "clEnqueueNDRangeKernel",
                                               "fine"}));
    EXPECT_EQ(timeline.totalItems, 3u);
    uint64_t t0 = UINT64_MAX;
    for (const Item& item : timeline.items) t0 = std::min(t0, item.start);
    EXPECT_EQ(t0, 4900u);  // the first real timestamp, not 0
    EXPECT_EQ(timeline.warnings,
              (std::vector<std::string>{
                  "field.atp: 2 calls or commands without times (unknown) are not drawn",
                  "field.atp: 2 calls or commands end before they start (the first at "
                  "dir/field.atp:30) and are not drawn"}));
}

TEST(ReportReliability, TheFirstBackwardIntervalIsNamed) {
    TimelineCollector collector;
    collector.onFileBegin("b.atp");
    atp::OclApiCall call;
    call.tid = 3;
    call.name = "clFinish";
    call.start = 20;
    call.end = 10;
    call.timestampLine = atp::SourceLocation{"b.atp", 12};
    collector.onOclApiCall(call);
    collector.onFileEnd("b.atp");
    EXPECT_EQ(collector.take().warnings,
              (std::vector<std::string>{"b.atp: 1 calls or commands end before they start (the "
                                        "first at b.atp:12) and are not drawn"}));
}

TEST(ReportReliability, QueuedDetailOnlyWhenKnown) {
    TimelineCollector collector;
    collector.onFileBegin("q.atp");
    atp::OclApiCall call;
    call.tid = 1;
    call.name = "clEnqueueNDRangeKernel";
    call.start = 100;
    call.end = 200;
    call.hasCommand = true;
    call.command.isKernel = true;
    call.command.kernelName = "k";
    call.command.start = 300;
    call.command.end = 400;  // queued: 0, unknown
    collector.onOclApiCall(call);
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.items.size(), 2u);
    for (const Item& item : timeline.items) {
        EXPECT_EQ(item.details.find("queued"), std::string::npos) << item.details;
    }
}

TEST(ReportReliability, ACutTraceSaysSo) {
    TimelineCollector collector;
    collector.onFileBegin("runs/cut.atp");
    collector.onHeader("ApiCallsLeftOut", "25", {});
    sendApi(collector, 1, "clFlush", 10, 20);
    collector.onFileEnd("runs/cut.atp");
    collector.onFileBegin("whole.atp");
    collector.onHeader("ApiCallsLeftOut", "0", {});
    collector.onFileEnd("whole.atp");
    EXPECT_EQ(collector.take().warnings,
              (std::vector<std::string>{"cut.atp: the trace was cut at the API call cap (25 calls "
                                        "left out): the timeline ends at the cut"}));
}

// ---- the page is replaced only when complete -------------------------------------------------

class ReportFile : public ::testing::Test {
protected:
    ReportFile() {
        std::string dir = (std::filesystem::temp_directory_path() / "pm-report-XXXXXX").string();
        if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_dir = dir;
    }
    ~ReportFile() override { std::filesystem::remove_all(m_dir); }
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& entry : std::filesystem::directory_iterator(m_dir)) {
            out.push_back(entry.path().filename().string());
        }
        return out;
    }
    static std::string read(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }
    std::string m_dir;
};

TEST_F(ReportFile, AnExistingReportIsReplacedWhole) {
    const std::string path = m_dir + "/r.html";
    std::ofstream(path) << "old report";
    ReportData data;
    data.title = "new";
    std::string error;
    ASSERT_TRUE(writeHtmlReportFile(path, data, error)) << error;
    EXPECT_NE(read(path).find("<title>new</title>"), std::string::npos);
    EXPECT_EQ(files(), std::vector<std::string>{"r.html"});
}

TEST_F(ReportFile, AFailedWriteLeavesTheOldReportAndNoTemporaryFile) {
    // A report that cannot be created (its name is a directory): the directory stays as it is.
    const std::string dir = m_dir + "/r.html";
    std::filesystem::create_directory(dir);
    std::string error;
    EXPECT_FALSE(writeHtmlReportFile(dir, ReportData{}, error));
    EXPECT_EQ(error, dir + ": cannot create: Is a directory");
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    EXPECT_EQ(files(), std::vector<std::string>{"r.html"});
}

}  // namespace
}  // namespace perfmarker::report
