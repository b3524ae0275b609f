// `perfmarker export` as a user runs it: usage errors (exit 2), missing and malformed traces
// (exit 1, the message names the file and the line), unwritable outputs (exit 1), default
// output names, and the list of written files on stderr.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_ATP_FIXTURES;

// True when `text` holds "<file>:<line>: ".
bool namesFileAndLine(const std::string& text, const std::string& file) {
    for (size_t at = text.find(file + ":"); at != std::string::npos;
         at = text.find(file + ":", at + 1)) {
        size_t digits = at + file.size() + 1;
        const size_t first = digits;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
            ++digits;
        }
        if (digits > first && text.compare(digits, 2, ": ") == 0) return true;
    }
    return false;
}

class ExportCli : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, "export"});
        return runProcess(args, {}, m_scratch.path());
    }
    // A copy of a fixture in the scratch directory (the default outputs go next to it).
    std::string fixture(const std::string& name) {
        const std::string copy = m_scratch.path() + "/" + name;
        fs::copy_file(kFixtures + "/" + name, copy, fs::copy_options::overwrite_existing);
        return copy;
    }
    ScratchDir m_scratch;
};

TEST_F(ExportCli, UsageErrorsExitWithTwo) {
    const std::string trace = fixture("ocl_vecadd.atp");
    EXPECT_EQ(run({trace}).exitCode, 2);                     // no --format
    EXPECT_EQ(run({"--format", "svg", trace}).exitCode, 2);  // unknown format
    EXPECT_EQ(run({"--format", "perfetto"}).exitCode, 2);    // no trace
    EXPECT_EQ(run({"--format", "perfetto", "--max-file-mb", "0", trace}).exitCode, 2);
    const ProcessResult bad = run({"--format", "svg", trace});
    EXPECT_NE(bad.err.find("svg"), std::string::npos) << bad.err;
}

TEST_F(ExportCli, MissingTraceNamesTheFile) {
    const std::string missing = m_scratch.path() + "/absent.atp";
    const ProcessResult result = run({"--format", "csv", missing});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("absent.atp"), std::string::npos) << result.err;
}

TEST_F(ExportCli, MalformedTraceNamesFileAndLine) {
    const std::string trace = fixture("bad_count.atp");
    const ProcessResult result =
        run({"--format", "perfetto", trace, "-o", m_scratch.path() + "/bad.json"});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_TRUE(namesFileAndLine(result.err, "bad_count.atp")) << result.err;
}

TEST_F(ExportCli, UnwritableOutputFails) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string out = m_scratch.path() + "/no/such/dir/t.json";
    const ProcessResult result = run({"--format", "perfetto", trace, "-o", out});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find(out), std::string::npos) << result.err;
    const ProcessResult csv =
        run({"--format", "csv", trace, "-o", m_scratch.path() + "/no/such/base"});
    EXPECT_EQ(csv.exitCode, 1);
    EXPECT_NE(csv.err.find("no/such/base-api.csv"), std::string::npos) << csv.err;
}

TEST_F(ExportCli, PerfettoDefaultOutputAndSplit) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const ProcessResult result = run({"--format", "perfetto", trace});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::string json = m_scratch.path() + "/ocl_vecadd.json";
    EXPECT_TRUE(fs::exists(json));
    EXPECT_NE(result.err.find("wrote " + json), std::string::npos) << result.err;
    EXPECT_EQ(readFile(json).rfind("{\"displayTimeUnit\"", 0), 0u);

    const ProcessResult split = run({"--format", "perfetto", "--max-file-mb", "0.004", trace, "-o",
                                     m_scratch.path() + "/s.json"});
    ASSERT_EQ(split.exitCode, 0) << split.err;
    EXPECT_TRUE(fs::exists(m_scratch.path() + "/s-2.json"));
    EXPECT_NE(split.err.find("wrote " + m_scratch.path() + "/s-2.json"), std::string::npos);
}

// A smaller export to the same name removes the parts of the earlier, larger one that it does not
// write itself, and says so; files that only look like parts (another user's name pattern, a
// leading zero, a file that is not one of our parts, a link) stay (docs/export.md#splitting).
TEST_F(ExportCli, PerfettoRemovesStalePartsOfAnEarlierLargerExport) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string dir = m_scratch.path() + "/parts";
    fs::create_directories(dir);
    const ProcessResult large =
        run({"--format", "perfetto", "--max-file-mb", "0.002", trace, "-o", dir + "/s.json"});
    ASSERT_EQ(large.exitCode, 0) << large.err;
    size_t parts = 1;
    while (fs::exists(dir + "/s-" + std::to_string(parts + 1) + ".json")) ++parts;
    ASSERT_GE(parts, 4u) << large.err;
    // Look-alikes that are not stale parts of this export.
    const std::string lookalikes[] = {dir + "/s-07.json", dir + "/s-97.json", dir + "/s-3.json.bak",
                                      dir + "/s-x.json"};
    for (const std::string& file : lookalikes) std::ofstream(file) << "mine\n";
    fs::create_symlink(dir + "/s-2.json", dir + "/s-99.json");

    const ProcessResult small =
        run({"--format", "perfetto", "--max-file-mb", "0.004", trace, "-o", dir + "/s.json"});
    ASSERT_EQ(small.exitCode, 0) << small.err;
    size_t now = 1;
    while (readFile(dir + "/s-" + std::to_string(now + 1) + ".json")
               .find("\"part\":" + std::to_string(now + 1)) != std::string::npos)
        ++now;
    ASSERT_GE(now, 2u);
    ASSERT_LT(now, parts);
    for (size_t n = now + 1; n <= parts; ++n) {
        const std::string stale = dir + "/s-" + std::to_string(n) + ".json";
        EXPECT_FALSE(fs::exists(stale)) << stale;
        EXPECT_NE(small.err.find("removed " + stale), std::string::npos) << small.err;
    }
    for (const std::string& file : lookalikes) EXPECT_EQ(readFile(file), "mine\n") << file;
    EXPECT_TRUE(fs::is_symlink(dir + "/s-99.json"));

    // One part only: every part of the earlier export goes.
    const ProcessResult single = run({"--format", "perfetto", trace, "-o", dir + "/s.json"});
    ASSERT_EQ(single.exitCode, 0) << single.err;
    EXPECT_FALSE(fs::exists(dir + "/s-2.json"));
    EXPECT_NE(single.err.find("removed " + dir + "/s-2.json"), std::string::npos) << single.err;
}

TEST_F(ExportCli, VtuneAndCsvIntoADirectory) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string dir = m_scratch.path() + "/out";
    fs::create_directories(dir);
    ProcessResult result = run({"--format", "vtune", "--hostname", "box1", trace, "-o", dir});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-markers-hostname-box1.csv")) << result.err;
    EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-kernels-hostname-box1.csv"));
    result = run({"--format", "csv", trace, "-o", dir + "/"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    for (const char* table : {"api", "enqueues", "markers"}) {
        EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-" + table + ".csv")) << table;
    }
}

// A marker-only trace of one process on `host`, its anchor taken at CLOCK_MONOTONIC `monotonic`
// and CLOCK_REALTIME `realtime`, with one marker from `begin` to `end` (CLOCK_MONOTONIC).
std::string hostTrace(const std::string& host, const std::string& monotonic,
                      const std::string& realtime, const std::string& marker,
                      const std::string& begin, const std::string& end) {
    return "TraceFileVersion=3.2\nProcessId=" + std::to_string(host.size()) + "\nHostName=" + host +
           "\nClockAnchorStart=CLOCK_MONOTONIC=" + monotonic + ";CLOCK_MONOTONIC_RAW=" + monotonic +
           ";CLOCK_REALTIME=" + realtime +
           "\n=====Perfmarker Output=====\n1\n2\nclBeginPerfMarker   " + marker + "   " + begin +
           "   G\nclEndPerfMarker     " + end + "\n";
}

// The "ts" of the Perfetto slice named `name` (microseconds, as written), or "" when none.
std::string sliceStart(const std::string& json, const std::string& name) {
    const size_t at = json.find("\"name\":\"" + name + "\"");
    if (at == std::string::npos) return "";
    const size_t lineStart = json.rfind('\n', at) + 1;
    const size_t ts = json.find("\"ts\":", lineStart);
    if (ts == std::string::npos || ts > at) return "";
    return json.substr(ts + 5, json.find(',', ts) - ts - 5);
}

// Two hosts, the second booted 5 s after the first: its CLOCK_MONOTONIC times are far smaller,
// yet its marker began 500 ns after the first host's (on CLOCK_REALTIME). Exported together, it
// lands there, on the first host's clock.
TEST_F(ExportCli, TracesOfTwoHostsLandInOrderOnOneTimeline) {
    const std::string alpha = m_scratch.path() + "/alpha.atp";
    const std::string beta = m_scratch.path() + "/beta.atp";
    std::ofstream(alpha) << hostTrace("alpha", "5000000000", "1700000000000000000", "OnAlpha",
                                      "5000001000", "5000002000");
    std::ofstream(beta) << hostTrace("beta", "1000", "1700000000000000500", "OnBeta", "2000",
                                     "3000");
    const std::string out = m_scratch.path() + "/both.json";
    ProcessResult result = run({"--format", "perfetto", alpha, beta, "-o", out});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("traces of 2 hosts (alpha, beta) aligned on CLOCK_REALTIME"),
              std::string::npos)
        << result.err;
    std::string json = readFile(out);
    EXPECT_EQ(sliceStart(json, "OnAlpha"), "5000001.000") << json;
    EXPECT_EQ(sliceStart(json, "OnBeta"), "5000001.500") << json;

    // The CSV export too; the first host decides the clock whatever the order.
    result = run({"--format", "csv", beta, alpha, "-o", m_scratch.path() + "/both"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::string markers = readFile(m_scratch.path() + "/both-markers.csv");
    EXPECT_NE(markers.find("OnBeta,G,,2000,3000,"), std::string::npos) << markers;
    EXPECT_NE(markers.find("OnAlpha,G,,1500,2500,"), std::string::npos) << markers;

    // A trace without anchors among them: said, and kept as recorded.
    const std::string old = fixture("ocl_vecadd.atp");
    result = run({"--format", "perfetto", alpha, beta, old, "-o", out});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("warning: " + old + ": no clock anchors"), std::string::npos)
        << result.err;
    json = readFile(out);
    EXPECT_EQ(sliceStart(json, "OnBeta"), "5000001.500");
    EXPECT_EQ(sliceStart(json, "Setup"), "4035211900.500");
}

// VTune: each host's files, named after it and converted with its own anchors, wherever the
// export runs; --hostname still overrides.
TEST_F(ExportCli, VtuneNamesFilesAfterTheTracedHost) {
    const std::string alpha = m_scratch.path() + "/alpha.atp";
    std::ofstream(alpha) << hostTrace("alpha", "5000000000", "1700000000000000000", "OnAlpha",
                                      "5000001000", "5000002000");
    const std::string dir = m_scratch.path() + "/vt";
    fs::create_directories(dir);
    ProcessResult result = run({"--format", "vtune", alpha, "-o", dir + "/run"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.err.find("warning"), std::string::npos) << result.err;
    // CLOCK_MONOTONIC_RAW = CLOCK_MONOTONIC in this trace's anchor.
    EXPECT_EQ(readFile(dir + "/run-markers-hostname-alpha.csv"),
              "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid\nOnAlpha,5000001000,5000002000,5,1\n");
    result = run({"--format", "vtune", "--hostname", "box", alpha, "-o", dir + "/run"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(dir + "/run-markers-hostname-box.csv"));
}

// ---- outputs are replaced only by a finished export (docs/export.md#how-outputs-are-written) --

// The temporary files ("<output>.tmp.<random>") an export left behind in `dir`.
std::vector<std::string> temporaries(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".tmp.") != std::string::npos) out.push_back(name);
    }
    return out;
}

TEST_F(ExportCli, AFailedExportLeavesExistingOutputsAsTheyWere) {
    const std::string bad = fixture("bad_count.atp");
    const std::string empty = m_scratch.path() + "/empty.atp";
    perfmarker::test::writeFile(empty, "");
    const std::string json = m_scratch.path() + "/out.json";
    const std::string part2 = m_scratch.path() + "/out-2.json";
    for (const std::string& input : {m_scratch.path() + "/absent.atp", bad, empty}) {
        perfmarker::test::writeFile(json, "old trace");
        perfmarker::test::writeFile(part2, "old part");
        const ProcessResult result =
            run({"--format", "perfetto", "--max-file-mb", "0.004", input, "-o", json});
        EXPECT_EQ(result.exitCode, 1) << input;
        EXPECT_NE(result.err.find("perfmarker export: nothing written (existing outputs are "
                                  "unchanged)"),
                  std::string::npos)
            << result.err;
        EXPECT_EQ(result.err.find("wrote"), std::string::npos) << result.err;
        EXPECT_EQ(readFile(json), "old trace") << input;
        EXPECT_EQ(readFile(part2), "old part") << input;
        EXPECT_EQ(temporaries(m_scratch.path()), std::vector<std::string>{}) << input;
        EXPECT_FALSE(fs::exists(m_scratch.path() + "/out-3.json"));
    }
}

TEST_F(ExportCli, AnUnwritableTableKeepsEveryTableOut) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string base = m_scratch.path() + "/run";
    perfmarker::test::writeFile(base + "-api.csv", "old api");
    fs::create_directory(base + "-enqueues.csv");  // cannot be replaced by a file
    const ProcessResult result = run({"--format", "csv", trace, "-o", base});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find(base + "-enqueues.csv: cannot create"), std::string::npos)
        << result.err;
    EXPECT_EQ(readFile(base + "-api.csv"), "old api");
    EXPECT_FALSE(fs::exists(base + "-markers.csv"));
    EXPECT_EQ(temporaries(m_scratch.path()), std::vector<std::string>{});
}

TEST_F(ExportCli, NotATraceIsRefusedNamingTheFile) {
    const std::string blank = m_scratch.path() + "/blank.atp";
    const std::string garbage = m_scratch.path() + "/garbage.atp";
    perfmarker::test::writeFile(blank, "\n\n");
    perfmarker::test::writeFile(garbage, "\xc3\xa9=\x01\n");
    for (const std::string& input : {std::string("/dev/null"), blank, garbage}) {
        const ProcessResult result = run({"--format", "csv", input, "-o", m_scratch.path() + "/t"});
        EXPECT_EQ(result.exitCode, 1) << input;
        EXPECT_NE(result.err.find("perfmarker export: " + input + ": not a trace: "),
                  std::string::npos)
            << result.err;
        EXPECT_FALSE(fs::exists(m_scratch.path() + "/t-api.csv"));
    }
}

// ---- traces from the field ---------------------------------------------------------------------

TEST_F(ExportCli, TimesThatEndBeforeTheyStartAreNamedWithTheirLine) {
    const std::string trace = fixture("end_before_start.atp");
    const ProcessResult result =
        run({"--format", "perfetto", trace, "-o", m_scratch.path() + "/e.json"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("warning: " + trace +
                              ":20: clEnqueueNDRangeKernel: the command "
                              "ends (6000400000) before it starts"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find(trace + ":21: clFinish: the call ends"), std::string::npos);
    EXPECT_TRUE(namesFileAndLine(result.err, "end_before_start.atp"));
}

// The Done-when of the issue: zero device times do not pull the timeline back to 0.
TEST_F(ExportCli, ZeroDeviceTimesAreLeftOutAndTheTimelineStartsAtTheFirstRealTime) {
    const std::string trace = fixture("zero_device_times.atp");
    const std::string out = m_scratch.path() + "/z.json";
    const ProcessResult result = run({"--format", "perfetto", trace, "-o", out});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(trace + ": 2 commands without device times (unknown), left out"),
              std::string::npos)
        << result.err;
    const std::string json = readFile(out);
    std::string earliest;
    for (size_t at = json.find("\"ts\":"); at != std::string::npos;
         at = json.find("\"ts\":", at + 1)) {
        if (json.rfind("\"ph\":\"M\"", at) > json.rfind('\n', at)) continue;  // metadata
        const std::string ts = json.substr(at + 5, json.find(',', at) - at - 5);
        if (earliest.empty() || std::stod(ts) < std::stod(earliest)) earliest = ts;
    }
    EXPECT_EQ(earliest, "5000000.000");
    // CSV keeps every command, with the unknown times empty.
    const ProcessResult csv = run({"--format", "csv", trace, "-o", m_scratch.path() + "/z"});
    ASSERT_EQ(csv.exitCode, 0) << csv.err;
    EXPECT_NE(readFile(m_scratch.path() + "/z-enqueues.csv").find("gfx900,,,,,,0x21ff890,vadd"),
              std::string::npos);
}

TEST_F(ExportCli, ACutTraceSaysSo) {
    const std::string trace = fixture("cut_at_cap.atp");
    const ProcessResult result =
        run({"--format", "perfetto", trace, "-o", m_scratch.path() + "/c.json"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("warning: " + trace + ":6: the trace was cut at the API call cap"),
              std::string::npos)
        << result.err;
}

}  // namespace
