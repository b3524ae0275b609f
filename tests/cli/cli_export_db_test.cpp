// `perfmarker export --format otf2|sqlite` as a user runs it, checked with the tools the field
// uses on the results: `otf2-print` (Debian otf2-tools) reads the archive of the sample trace
// with markers, and the `sqlite3` shell queries the database and compares its api_summary view
// with `perfmarker summary` of the same trace (docs/otf2.md, docs/sqlite.md). Also: existing
// outputs refused without --force, failed exports that leave nothing, the count of commands
// left out for unknown device times, and the default output names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::ProcessResult;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_ATP_FIXTURES;
const std::string kOtf2Print = PERFMARKER_OTF2_PRINT;  // "" when not installed
const std::string kSqlite3 = PERFMARKER_SQLITE3;

// One ENTER or LEAVE line of otf2-print: "ENTER   <location>   <time>  Region: "<name>" <id>".
struct PrintedEvent {
    bool enter = false;
    std::string location;
    uint64_t time = 0;
    std::string region;
};

std::vector<PrintedEvent> printedEvents(const std::string& out) {
    std::vector<PrintedEvent> events;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const bool enter = line.rfind("ENTER ", 0) == 0;
        if (!enter && line.rfind("LEAVE ", 0) != 0) continue;
        std::istringstream fields(line.substr(6));
        PrintedEvent event;
        event.enter = enter;
        fields >> event.location >> event.time;
        const size_t open = line.find("Region: \"");
        const size_t close = line.find("\" <", open + 9);
        if (open != std::string::npos && close != std::string::npos) {
            event.region = line.substr(open + 9, close - open - 9);
        }
        events.push_back(event);
    }
    return events;
}

class ExportDbCli : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, "export"});
        return runProcess(args, {}, m_scratch.path());
    }
    ProcessResult tool(std::vector<std::string> args) {
        return runProcess(args, {}, m_scratch.path());
    }
    std::string fixture(const std::string& name) {
        const std::string copy = m_scratch.path() + "/" + name;
        fs::copy_file(kFixtures + "/" + name, copy, fs::copy_options::overwrite_existing);
        return copy;
    }
    // The one value `sql` gives on `db`.
    std::string sql(const std::string& db, const std::string& query) {
        const ProcessResult result = tool({kSqlite3, db, query});
        EXPECT_EQ(result.exitCode, 0) << result.err;
        std::string out = result.out;
        while (!out.empty() && out.back() == '\n') out.pop_back();
        return out;
    }
    // The names in the scratch directory but the traces and the captured output of runProcess.
    std::vector<std::string> outputs() {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(m_scratch.path())) {
            const std::string name = entry.path().filename().string();
            const bool captured =
                name.rfind("process", 0) == 0 &&
                (name.find(".out") != std::string::npos || name.find(".err") != std::string::npos);
            if (name.find(".atp") == std::string::npos && !captured) {
                names.push_back(name);
            }
        }
        std::sort(names.begin(), names.end());
        return names;
    }
    ScratchDir m_scratch;
};

TEST_F(ExportDbCli, Otf2ArchiveOfTheSampleReadsBackWithOtf2Print) {
    if (kOtf2Print.empty()) GTEST_SKIP() << "otf2-print not installed (Debian otf2-tools)";
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string archive = m_scratch.path() + "/run-otf2";
    const ProcessResult result = run({"--format", "otf2", trace, "-o", archive});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("wrote " + archive +
                              "/traces.otf2: 25 API calls, 7 device "
                              "commands, 4 markers of 1 process"),
              std::string::npos)
        << result.err;

    const ProcessResult printed = tool({kOtf2Print, "-Werror", archive + "/traces.otf2"});
    ASSERT_EQ(printed.exitCode, 0) << printed.err;
    const std::vector<PrintedEvent> events = printedEvents(printed.out);
    ASSERT_FALSE(events.empty()) << printed.out;
    std::map<std::string, std::vector<std::string>> open;  // per location
    std::map<std::string, uint64_t> lastTime;
    std::map<std::string, int> enters;
    std::map<std::string, std::pair<int, int>> perLocation;  // enters, leaves
    for (const PrintedEvent& event : events) {
        EXPECT_GE(event.time, lastTime[event.location]) << event.location;
        lastTime[event.location] = event.time;
        std::vector<std::string>& stack = open[event.location];
        if (event.enter) {
            stack.push_back(event.region);
            ++enters[event.region];
            ++perLocation[event.location].first;
            continue;
        }
        ++perLocation[event.location].second;
        ASSERT_FALSE(stack.empty()) << "leave of " << event.region << " never entered";
        EXPECT_EQ(stack.back(), event.region);
        stack.pop_back();
    }
    for (const auto& [location, stack] : open) {
        EXPECT_TRUE(stack.empty())
            << "location " << location << ": " << stack.size() << " regions never left";
        EXPECT_EQ(perLocation[location].first, perLocation[location].second) << location;
    }
    EXPECT_EQ(enters["clEnqueueNDRangeKernel"], 2);
    EXPECT_EQ(enters["reduce"], 2);
    for (const char* marker : {"Setup", "Frame 1", "Upload", "WorkerDone"}) {
        EXPECT_EQ(enters[marker], 1) << marker;
    }

    // Host threads and device queues are separate locations, of their own kinds.
    const ProcessResult definitions = tool({kOtf2Print, "-G", archive + "/traces.otf2"});
    ASSERT_EQ(definitions.exitCode, 0) << definitions.err;
    const std::string& defs = definitions.out;
    for (const char* thread : {"Thread 4711", "Thread 4712"}) {
        const size_t at = defs.find(std::string("Name: \"") + thread + "\"");
        ASSERT_NE(at, std::string::npos) << thread;
        EXPECT_EQ(defs.compare(defs.find("Type: ", at), 16, "Type: CPU_THREAD"), 0) << thread;
    }
    const size_t queue = defs.find("Name: \"OpenCL queue 0\"");
    ASSERT_NE(queue, std::string::npos) << defs;
    EXPECT_EQ(defs.compare(defs.find("Type: ", queue), 24, "Type: ACCELERATOR_STREAM"), 0);
    EXPECT_NE(defs.find("Ticks per Seconds: 1000000000, Global Offset: 4035211900500"),
              std::string::npos);
}

TEST_F(ExportDbCli, SqliteDatabaseOfTheSampleAnswersTheSummarysNumbers) {
    if (kSqlite3.empty()) GTEST_SKIP() << "sqlite3 not installed";
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string db = m_scratch.path() + "/run.db";
    const ProcessResult result = run({"--format", "sqlite", trace, "-o", db});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("wrote " + db + ": 25 API calls"), std::string::npos) << result.err;

    EXPECT_EQ(sql(db, "SELECT count(*) FROM api_calls WHERE name = 'clEnqueueNDRangeKernel'"), "2");
    EXPECT_EQ(sql(db,
                  "SELECT group_concat(name, ',') FROM (SELECT name FROM commands WHERE kind "
                  "LIKE '%KERNEL' OR kind = 'CL_COMMAND_TASK' ORDER BY start_ns)"),
              "reduce,reduce,NATIVE_KERNEL (0x401a2b)");
    EXPECT_EQ(sql(db,
                  "SELECT count(*) FROM commands WHERE category = 'kernel' AND end_ns > "
                  "start_ns"),
              "3");
    EXPECT_EQ(sql(db, "SELECT name || '=' || count(*) FROM markers GROUP BY name ORDER BY name"),
              "Frame 1=1\nSetup=1\nUpload=1\nWorkerDone=1");

    // api_summary against the API Summary page of `perfmarker summary --format csv`.
    const ProcessResult summary = tool({kPerfmarker, "summary", "--format", "csv", trace});
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    std::string text = summary.out;  // CSV lines end in CRLF
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    std::istringstream lines(text);
    std::string expected;
    std::string line;
    while (std::getline(lines, line) && line != "API Summary Page") {
    }
    std::getline(lines, line);  // the header
    while (std::getline(lines, line) && !line.empty()) {
        std::vector<std::string> cells;
        std::istringstream row(line);
        for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
        ASSERT_GE(cells.size(), 4u) << line;
        expected += (expected.empty() ? "" : "\n") + cells[0] + "|" + cells[3];
    }
    ASSERT_FALSE(expected.empty()) << summary.out;
    EXPECT_EQ(sql(db, "SELECT name, calls FROM api_summary"), expected);
}

TEST_F(ExportDbCli, ExistingOutputsAreRefusedUnlessForced) {
    const std::string trace = fixture("ocl_vecadd.atp");
    for (const char* format : {"otf2", "sqlite"}) {
        SCOPED_TRACE(format);
        const std::string out = m_scratch.path() + "/out-" + format;
        ASSERT_EQ(run({"--format", format, trace, "-o", out}).exitCode, 0);
        const auto written = fs::last_write_time(out);
        const ProcessResult again = run({"--format", format, trace, "-o", out});
        EXPECT_EQ(again.exitCode, 1);
        EXPECT_NE(again.err.find(out + ": exists; give --force to replace it"), std::string::npos)
            << again.err;
        EXPECT_NE(again.err.find("nothing written"), std::string::npos);
        EXPECT_EQ(fs::last_write_time(out), written);
        const ProcessResult forced = run({"--format", format, "--force", trace, "-o", out});
        EXPECT_EQ(forced.exitCode, 0) << forced.err;
    }
    EXPECT_EQ(outputs(), (std::vector<std::string>{"out-otf2", "out-sqlite"}));
}

TEST_F(ExportDbCli, AFailedExportLeavesNothing) {
    const std::string good = fixture("ocl_vecadd.atp");
    const std::string bad = fixture("bad_count.atp");
    for (const char* format : {"otf2", "sqlite"}) {
        SCOPED_TRACE(format);
        const ProcessResult result =
            run({"--format", format, good, bad, "-o", m_scratch.path() + "/out"});
        EXPECT_EQ(result.exitCode, 1);
        EXPECT_NE(result.err.find("nothing written"), std::string::npos) << result.err;
        EXPECT_TRUE(outputs().empty());
    }
}

TEST_F(ExportDbCli, UnknownDeviceTimesAreCountedInTheMessage) {
    const std::string trace = fixture("zero_device_times.atp");
    for (const char* format : {"otf2", "sqlite"}) {
        SCOPED_TRACE(format);
        const ProcessResult result =
            run({"--format", format, trace, "-o", m_scratch.path() + "/z-" + format});
        ASSERT_EQ(result.exitCode, 0) << result.err;
        EXPECT_NE(result.err.find("left out: 3 device commands without usable device times"),
                  std::string::npos)
            << result.err;
    }
}

TEST_F(ExportDbCli, DefaultOutputsAndSeveralTraces) {
    const std::string first = fixture("ocl_vecadd.atp");
    const std::string second = fixture("hsa_reduce.atp");
    ProcessResult result = run({"--format", "otf2", "--progress", first, second});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(m_scratch.path() + "/ocl_vecadd-otf2/traces.otf2")) << result.err;
    EXPECT_NE(result.err.find("of 2 processes"), std::string::npos) << result.err;
    result = run({"--format", "sqlite", first, second, "-o", m_scratch.path() + "/"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(m_scratch.path() + "/ocl_vecadd.db")) << result.err;
    if (!kSqlite3.empty()) {
        EXPECT_EQ(sql(m_scratch.path() + "/ocl_vecadd.db", "SELECT count(*) FROM processes"), "2");
    }
}

// A marker-only trace of one process on `host` (anchored at CLOCK_MONOTONIC `monotonic` and
// CLOCK_REALTIME `realtime`) with one marker from `begin` to `end`.
std::string hostTrace(const std::string& host, const std::string& pid, const std::string& monotonic,
                      const std::string& realtime, const std::string& marker,
                      const std::string& begin, const std::string& end) {
    return "TraceFileVersion=3.2\nProcessId=" + pid + "\nHostName=" + host +
           "\nClockAnchorStart=CLOCK_MONOTONIC=" + monotonic + ";CLOCK_MONOTONIC_RAW=" + monotonic +
           ";CLOCK_REALTIME=" + realtime +
           "\n=====Perfmarker Output=====\n1\n2\nclBeginPerfMarker   " + marker + "   " + begin +
           "   G\nclEndPerfMarker     " + end + "\n";
}

// Two ranks on two hosts, the second booted 5 s after the first: its marker began 500 ns after
// the first host's (on CLOCK_REALTIME) and lands there, on the first host's clock, in both
// formats (docs/export.md#several-hosts).
TEST_F(ExportDbCli, RanksOfTwoHostsGoOnOneClock) {
    const std::string alpha = m_scratch.path() + "/alpha.atp";
    const std::string beta = m_scratch.path() + "/beta.atp";
    perfmarker::test::writeFile(alpha, hostTrace("alpha", "11", "5000000000", "1700000000000000000",
                                                 "OnAlpha", "5000001000", "5000002000"));
    perfmarker::test::writeFile(
        beta, hostTrace("beta", "12", "1000", "1700000000000000500", "OnBeta", "2000", "3000"));
    const std::string db = m_scratch.path() + "/job.db";
    ProcessResult result = run({"--format", "sqlite", alpha, beta, "-o", db});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("aligned on CLOCK_REALTIME"), std::string::npos) << result.err;
    if (!kSqlite3.empty()) {
        EXPECT_EQ(sql(db,
                      "SELECT p.host || ':' || p.pid || ' ' || m.name || ' ' || m.start_ns FROM "
                      "markers m JOIN processes p ON p.id = m.process ORDER BY m.start_ns"),
                  "alpha:11 OnAlpha 5000001000\nbeta:12 OnBeta 5000001500");
    }
    const std::string archive = m_scratch.path() + "/job-otf2";
    result = run({"--format", "otf2", alpha, beta, "-o", archive});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    if (kOtf2Print.empty()) return;
    const ProcessResult printed = tool({kOtf2Print, archive + "/traces.otf2"});
    ASSERT_EQ(printed.exitCode, 0) << printed.err;
    std::map<std::string, uint64_t> starts;
    for (const PrintedEvent& event : printedEvents(printed.out)) {
        if (event.enter) starts[event.region] = event.time;
    }
    EXPECT_EQ(starts["OnAlpha"], 5000001000u);
    EXPECT_EQ(starts["OnBeta"], 5000001500u);
    const ProcessResult definitions = tool({kOtf2Print, "-G", archive + "/traces.otf2"});
    EXPECT_NE(definitions.out.find("Name: \"alpha:11 (alpha)\""), std::string::npos);
    EXPECT_NE(definitions.out.find("Name: \"beta:12 (beta)\""), std::string::npos);
}

}  // namespace
