// The VTune CSV exporter (file names, header, tasks and frames, clock offset) and the flat CSV
// exporter (columns, RFC 4180 quoting), fed with typed records built by hand.
#include <gtest/gtest.h>

#include "export/csv_exporter.h"
#include "export/vtune_exporter.h"
#include "export_test_support.h"

namespace {

using namespace perfmarker;
using namespace perfmarker::exporter;
using perfmarker::test::ExportScratch;
using perfmarker::test::RecordFactory;
using perfmarker::test::slurp;

std::vector<std::string> lines(const std::string& text, const std::string& end = "\n") {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < text.size()) {
        const size_t stop = text.find(end, start);
        out.push_back(text.substr(start, stop - start));
        if (stop == std::string::npos) break;
        start = stop + end.size();
    }
    return out;
}

class VtuneExport : public ::testing::Test {
protected:
    VtuneOptions options(int64_t offset = 0) const {
        return VtuneOptions{m_scratch.file("run"), "node7", offset};
    }
    using Header = std::vector<std::pair<std::string, std::string>>;
    void feed(VtuneExporter& out, const Header& header = {}, const char* file = "app.321.atp") {
        out.onFileBegin(file);
        for (const auto& [key, value] : header) out.onHeader(key, value, {});
        out.onMarker(m_records.marker(7, atp::MarkerKind::Begin, 100, "Upload, part \"1\""));
        out.onOclApiCall(m_records.kernelEnqueue(7, 0, 110, 120, 200, 300));
        out.onOclApiCall(m_records.readEnqueue(7, 1, 130, 140, 310, 320));
        out.onMarker(m_records.marker(7, atp::MarkerKind::End, 400));
        out.onFileEnd(file);
    }
    static bool warned(const VtuneExporter& out, const std::string& text) {
        for (const std::string& message : out.warnings().messages()) {
            if (message.find(text) != std::string::npos) return true;
        }
        return false;
    }
    // Start: offset 1000 at 100; end: offset 1004 at 500 (CLOCK_REALTIME far off, as it is).
    const Header m_anchored = {
        {"HostName", "traced"},
        {"ClockAnchorStart",
         "CLOCK_MONOTONIC=100;CLOCK_MONOTONIC_RAW=1100;CLOCK_REALTIME=1700000000000000100"},
        {"ClockAnchorEnd",
         "CLOCK_MONOTONIC=500;CLOCK_MONOTONIC_RAW=1504;CLOCK_REALTIME=1700000000000000500"}};
    ExportScratch m_scratch;
    RecordFactory m_records;
};

TEST_F(VtuneExport, FilesFollowTheImportRules) {
    VtuneExporter out(options());
    feed(out);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    const std::vector<std::string> expectedFiles = {
        m_scratch.file("run-markers-hostname-node7.csv"),
        m_scratch.file("run-api-hostname-node7.csv"),
        m_scratch.file("run-kernels-hostname-node7.csv"),
        m_scratch.file("run-transfers-hostname-node7.csv")};
    std::vector<std::string> files = out.writtenFiles();
    std::sort(files.begin(), files.end());
    std::vector<std::string> sorted = expectedFiles;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(files, sorted);

    const auto markers = lines(slurp(expectedFiles[0]));
    ASSERT_EQ(markers.size(), 2u);
    EXPECT_EQ(markers[0], "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid");
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",100,400,321,7");  // a task: tid set

    const auto kernels = lines(slurp(expectedFiles[2]));
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[1], "reduce,200,300,321,");  // a frame: no tid
    const auto transfers = lines(slurp(expectedFiles[3]));
    EXPECT_EQ(transfers[1], "CL_COMMAND_READ_BUFFER,310,320,321,");
    const auto api = lines(slurp(expectedFiles[1]));
    EXPECT_EQ(api[1], "clEnqueueNDRangeKernel,110,120,321,7");
    EXPECT_FALSE(std::filesystem::exists(m_scratch.file("run-commands-hostname-node7.csv")));
}

TEST_F(VtuneExport, ClockOffsetIsAdded) {
    VtuneExporter out(options(-50));
    feed(out);
    std::string error;
    ASSERT_TRUE(out.finish(error));
    const auto markers = lines(slurp(m_scratch.file("run-markers-hostname-node7.csv")));
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",50,350,321,7");
    // MONOTONIC_RAW and MONOTONIC differ by far less than a day on any machine we run on.
    EXPECT_LT(std::llabs(measureRawClockOffsetNs()), int64_t{86400} * 1000000000);
}

TEST_F(VtuneExport, HostnameCannotEscapeTheDirectory) {
    VtuneOptions settings = options();
    settings.hostname = "a/b";
    EXPECT_EQ(VtuneExporter::tablePath(settings, settings.hostname, "api"),
              m_scratch.file("run-api-hostname-a_b.csv"));
}

TEST_F(VtuneExport, TraceWithoutAnchorsFallsBackWithAWarning) {
    VtuneOptions settings = options(7);
    settings.hostname.clear();
    settings.fallbackHostname = "exporter";
    VtuneExporter out(settings);
    feed(out);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    const auto markers = lines(slurp(m_scratch.file("run-markers-hostname-exporter.csv")));
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",107,407,321,7");
    EXPECT_TRUE(warned(out, "app.321.atp: no clock anchors")) << out.warnings().messages().size();
    EXPECT_TRUE(warned(out, "no HostName="));
}

// The trace's anchors decide the conversion and the file names: the same CSV whatever offset
// and host name the exporting machine has.
TEST_F(VtuneExport, AnchoredTraceGivesTheSameCsvWhereverItIsExported) {
    std::vector<std::string> contents;
    for (const int64_t exportingOffset : {int64_t{0}, int64_t{-987654321}, int64_t{55555}}) {
        VtuneOptions settings = options(exportingOffset);
        settings.hostname.clear();
        settings.fallbackHostname = "machine" + std::to_string(exportingOffset);
        VtuneExporter out(settings);
        feed(out, m_anchored);
        std::string error;
        ASSERT_TRUE(out.finish(error)) << error;
        EXPECT_TRUE(out.warnings().messages().empty()) << out.warnings().messages().front();
        std::string all;
        for (const char* table : {"markers", "api", "kernels", "transfers"}) {
            all += slurp(m_scratch.file(std::string("run-") + table + "-hostname-traced.csv"));
        }
        contents.push_back(all);
    }
    EXPECT_EQ(contents[0], contents[1]);
    EXPECT_EQ(contents[0], contents[2]);
    // Interpolated: 1000 at 100 .. 1004 at 500.
    const auto markers = lines(slurp(m_scratch.file("run-markers-hostname-traced.csv")));
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",1100,1403,321,7");
    const auto kernels = lines(slurp(m_scratch.file("run-kernels-hostname-traced.csv")));
    EXPECT_EQ(kernels[1], "reduce,1201,1302,321,");
}

TEST_F(VtuneExport, InconsistentAnchorsWarnAndUseTheStart) {
    VtuneOptions settings = options(0);
    settings.hostname.clear();
    VtuneExporter out(settings);
    Header header = m_anchored;
    header[2].second = "CLOCK_MONOTONIC=50;CLOCK_MONOTONIC_RAW=1504;CLOCK_REALTIME=5";  // before
    feed(out, header);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    EXPECT_TRUE(warned(out, "app.321.atp: inconsistent clock anchors: the end anchor is before"));
    const auto markers = lines(slurp(m_scratch.file("run-markers-hostname-traced.csv")));
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",1100,1400,321,7");

    VtuneExporter malformed(settings);
    header[2].second = "CLOCK_MONOTONIC=x";
    feed(malformed, header, "bad.1.atp");
    ASSERT_TRUE(malformed.finish(error)) << error;
    EXPECT_TRUE(warned(malformed, "bad.1.atp: ClockAnchorEnd=CLOCK_MONOTONIC=x: expected"));
}

TEST_F(VtuneExport, EachHostGetsItsOwnFilesOnItsOwnClock) {
    VtuneOptions settings = options(0);
    settings.hostname.clear();
    VtuneExporter out(settings);
    feed(out, m_anchored, "a.1.atp");
    Header other = {{"HostName", "other"},
                    {"ClockAnchorStart",
                     "CLOCK_MONOTONIC=0;CLOCK_MONOTONIC_RAW=20;CLOCK_REALTIME=1700000000000000000"}};
    feed(out, other, "b.2.atp");
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    EXPECT_EQ(out.writtenFiles().size(), 8u);
    const auto markers = lines(slurp(m_scratch.file("run-markers-hostname-other.csv")));
    ASSERT_EQ(markers.size(), 2u);
    EXPECT_EQ(markers[1], "\"Upload, part \"\"1\"\"\",120,420,2,7");
}

TEST_F(VtuneExport, UnwritableDirectoryIsReported) {
    VtuneExporter out(VtuneOptions{m_scratch.file("missing/run"), "h", 0});
    feed(out);
    std::string error;
    EXPECT_FALSE(out.finish(error));
    EXPECT_NE(error.find("missing/run-"), std::string::npos);
}

TEST(CsvExport, TablesHoldEveryField) {
    ExportScratch scratch;
    RecordFactory records;
    CsvExporter out(scratch.file("run"));
    out.onFileBegin("app.atp");
    out.onHeader("ProcessId", "99", {});
    atp::OclApiCall call = records.kernelEnqueue(4, 3, 1000, 1500, 2000, 2600);
    call.params = {records.keep("0x1"), records.keep("\"quoted, text\"")};
    out.onOclApiCall(call);
    out.onMarker(records.marker(4, atp::MarkerKind::Begin, 900, "m,1", "G", "u=\"x\""));
    out.onMarker(records.marker(4, atp::MarkerKind::End, 1700));
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "k";
    dispatch.packetType = "HSA_PACKET_TYPE_KERNEL_DISPATCH";
    dispatch.start = 5;
    dispatch.end = 8;
    dispatch.queueIndex = 1;
    dispatch.agentName = "gfx900";
    out.onHsaKernelDispatch(dispatch);
    out.onFileEnd("app.atp");
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;

    const auto api = lines(slurp(scratch.file("run-api.csv")), "\r\n");
    ASSERT_EQ(api.size(), 2u);
    EXPECT_EQ(api[0], CsvExporter::kApiHeader);
    EXPECT_EQ(api[1],
              "99,4,3,clEnqueueNDRangeKernel,CL_SUCCESS,1000,1500,500,"
              "\"0x1;\"\"quoted, text\"\"\",OpenCL");
    const auto enqueues = lines(slurp(scratch.file("run-enqueues.csv")), "\r\n");
    ASSERT_EQ(enqueues.size(), 3u);
    EXPECT_EQ(enqueues[1],
              "99,4,3,clEnqueueNDRangeKernel,4592,CL_COMMAND_NDRANGE_KERNEL,0,0x20f4a30,"
              "0,0x2071c40,gfx900,1010,1020,2000,2600,600,0x21ff890,reduce,{1048576},"
              "{256},,OpenCL");
    EXPECT_EQ(enqueues[2], "99,,,,,HSA_PACKET_TYPE_KERNEL_DISPATCH,1,,,,gfx900,,,5,8,3,,k,,,,HSA");
    for (const std::string& row : enqueues) {
        EXPECT_EQ(std::count(row.begin(), row.end(), ','), 21) << row;
    }
    const auto markers = lines(slurp(scratch.file("run-markers.csv")), "\r\n");
    ASSERT_EQ(markers.size(), 2u);
    EXPECT_EQ(markers[1], "99,4,\"m,1\",G,\"u=\"\"x\"\"\",900,1700,800,0,0");
}

TEST(CsvExport, NoInputStillWritesHeadersAndErrorsNameTheFile) {
    ExportScratch scratch;
    CsvExporter empty(scratch.file("e"));
    std::string error;
    ASSERT_TRUE(empty.finish(error));
    EXPECT_EQ(empty.writtenFiles().size(), 3u);
    EXPECT_EQ(slurp(scratch.file("e-markers.csv")),
              std::string(CsvExporter::kMarkerHeader) + "\r\n");

    CsvExporter bad(scratch.file("nope/e"));
    EXPECT_FALSE(bad.finish(error));
    EXPECT_NE(error.find("nope/e-api.csv"), std::string::npos);
}

}  // namespace
