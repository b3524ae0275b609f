// The fixture traces of tests/fixtures/atp through the real reader and each exporter, compared
// byte for byte with tests/fixtures/golden/export/. After an intended change of the output,
// regenerate with PERFMARKER_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>

#include "atp/read/trace_parser.h"
#include "export/csv_exporter.h"
#include "export/perfetto_exporter.h"
#include "export/vtune_exporter.h"
#include "export_test_support.h"

namespace {

using namespace perfmarker;
using namespace perfmarker::exporter;
using perfmarker::test::ExportScratch;
using perfmarker::test::slurp;

const std::string kFixtures = std::string(PERFMARKER_FIXTURES_DIR) + "/atp/";
const std::string kGolden = std::string(PERFMARKER_FIXTURES_DIR) + "/golden/export/";

bool updating() {
    const char* value = std::getenv("PERFMARKER_UPDATE_GOLDEN");
    return value != nullptr && std::string(value) == "1";
}

// Runs the traces through the parser into `out`; the inputs are named relative to the fixture
// directory so that the outputs do not depend on where the tree is.
void exportTraces(Exporter& out, const std::vector<std::string>& traces) {
    atp::TraceParser parser;
    parser.addListener(out);
    for (const std::string& trace : traces) {
        std::string error;
        ASSERT_TRUE(parser.parseBuffer(slurp(kFixtures + trace), trace, error)) << error;
    }
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
}

void compareWithGolden(const std::vector<std::string>& files) {
    ASSERT_FALSE(files.empty());
    for (const std::string& file : files) {
        const std::string name = std::filesystem::path(file).filename().string();
        const std::string golden = kGolden + name;
        if (updating()) {
            std::filesystem::create_directories(kGolden);
            std::filesystem::copy_file(file, golden,
                                       std::filesystem::copy_options::overwrite_existing);
            continue;
        }
        ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " missing: run with "
                                                     << "PERFMARKER_UPDATE_GOLDEN=1";
        EXPECT_EQ(slurp(file), slurp(golden)) << name << " differs from " << golden;
    }
}

class GoldenExport : public ::testing::TestWithParam<std::string> {
protected:
    ExportScratch m_scratch;
};

TEST_P(GoldenExport, Perfetto) {
    const std::string name = GetParam();
    PerfettoExporter out(PerfettoOptions{m_scratch.file(name + ".json"), uint64_t{256} << 20});
    exportTraces(out, {name + ".atp"});
    test::expectValidTrace(test::parseJsonFile(m_scratch.file(name + ".json")));
    compareWithGolden(out.writtenFiles());
}

TEST_P(GoldenExport, Vtune) {
    const std::string name = GetParam();
    VtuneExporter out(VtuneOptions{m_scratch.file(name), "golden", 0});
    exportTraces(out, {name + ".atp"});
    compareWithGolden(out.writtenFiles());
}

TEST_P(GoldenExport, Csv) {
    const std::string name = GetParam();
    CsvExporter out(m_scratch.file(name));
    exportTraces(out, {name + ".atp"});
    compareWithGolden(out.writtenFiles());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenExport,
                         ::testing::Values("ocl_vecadd", "hsa_reduce", "hsa_kernels_only",
                                           "legacy_codexl", "ocl_stack", "zero_device_times"));

TEST(GoldenExportSeveral, TwoTracesOnOneTimeline) {
    ExportScratch scratch;
    PerfettoExporter out(PerfettoOptions{scratch.file("two_traces.json"), uint64_t{256} << 20});
    exportTraces(out, {"ocl_vecadd.atp", "hsa_reduce.atp"});
    const auto trace = test::parseJsonFile(scratch.file("two_traces.json"));
    test::expectValidTrace(trace);
    std::set<int64_t> pids;
    for (const auto& event : trace["traceEvents"]) pids.insert(event["pid"].get<int64_t>());
    EXPECT_EQ(pids.size(), 2u);
    compareWithGolden(out.writtenFiles());
}

// A trace that breaks off: the records before the bad line are still exported as a valid trace.
TEST(GoldenExportBroken, TruncatedTraceStillGivesAValidTrace) {
    ExportScratch scratch;
    PerfettoExporter out(PerfettoOptions{scratch.file("bad.json"), uint64_t{256} << 20});
    atp::TraceParser parser;
    parser.addListener(out);
    std::string error;
    EXPECT_FALSE(
        parser.parseBuffer(slurp(kFixtures + "bad_truncated.atp"), "bad_truncated.atp", error));
    EXPECT_NE(error.find("bad_truncated.atp:"), std::string::npos) << error;
    ASSERT_TRUE(out.finish(error)) << error;
    test::expectValidTrace(test::parseJsonFile(scratch.file("bad.json")));
}

// What the command does instead after such an error: nothing is written, an existing file stays.
TEST(GoldenExportBroken, AbandonedAfterTheErrorTheOldFileStays) {
    ExportScratch scratch;
    test::writeText(scratch.file("bad.json"), "old");
    PerfettoExporter out(PerfettoOptions{scratch.file("bad.json"), uint64_t{256} << 20});
    atp::TraceParser parser;
    parser.addListener(out);
    std::string error;
    EXPECT_FALSE(
        parser.parseBuffer(slurp(kFixtures + "bad_truncated.atp"), "bad_truncated.atp", error));
    out.abandon();
    EXPECT_EQ(slurp(scratch.file("bad.json")), "old");
    EXPECT_EQ(test::filesIn(scratch.path()), std::vector<std::string>{"bad.json"});
}

// Zero device times: the Perfetto timeline starts at the trace's first real timestamp.
TEST(GoldenExportTimes, TheTimelineStartsAtTheFirstRealTimestamp) {
    ExportScratch scratch;
    PerfettoExporter out(PerfettoOptions{scratch.file("z.json"), uint64_t{256} << 20});
    exportTraces(out, {"zero_device_times.atp"});
    double earliest = 1e300;
    size_t kernels = 0;
    const auto trace = test::parseJsonFile(scratch.file("z.json"));
    for (const auto& event : trace["traceEvents"]) {
        if (event["ph"] == "M") continue;
        earliest = std::min(earliest, event["ts"].get<double>());
        kernels += event["ph"] == "X" && event["cat"] == "kernels";
    }
    EXPECT_DOUBLE_EQ(earliest, 5000000.0);  // clCreateContext at 5000000000 ns
    EXPECT_EQ(kernels, 3u);                 // two OpenCL kernels and one dispatch of three each
}

}  // namespace
