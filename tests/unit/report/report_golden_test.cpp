// The HTML report of the fixture traces, compared byte for byte with
// tests/fixtures/golden/report/. The page is cut into what it shows, so that a change of the
// style sheet, the scripts or the timeline toolbar (report_assets.cpp) leaves the golden files
// alone while any change of the content fails:
//   <name>.timeline.json  the timeline data embedded in the page (title, t0, processes, tracks,
//                         strings, totalItems, items), one process/track/string/item per line;
//   <name>.page.html      the page itself with each fixed asset replaced by its name and the
//                         data block by the name of the .timeline.json: head, title, inputs,
//                         notices, every summary table.
// The pages are written by the library (as the summary and export goldens are) and, where the
// tool is built, by `perfmarker report` itself, which must give the same files.
//
// After a deliberate change of the page content, regenerate the golden files with
//   PERFMARKER_UPDATE_GOLDEN=1 <build>/tests/unit/report_golden_test
// and review the diff.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/summary.h"
#include "atp/read/trace_parser.h"
#include "report/html_report.h"
#include "report/report_assets.h"
#include "report/timeline.h"

namespace perfmarker::report {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = PERFMARKER_FIXTURES_DIR;
const std::string kGoldenDir = kFixtures + "/golden/report/";
const std::string kDataOpen = "<script type=\"application/json\" id=\"timeline-data\">";

struct Golden {
    std::string name;                 // golden file stem
    std::vector<std::string> inputs;  // relative to tests/fixtures
};

// Failure messages name the fixture rather than dump the bytes of the struct.
void PrintTo(const Golden& golden, std::ostream* out) { *out << golden.name; }

// The fixtures of the summary and export goldens: traces in the agent's format, hand-made ones in
// the original format (legacy section names, standalone marker files) and two traces on one
// timeline (named as the export's two_traces.json).
const std::vector<Golden>& goldens() {
    static const std::vector<Golden> list = {
        {"ocl_vecadd", {"atp/ocl_vecadd.atp"}},
        {"ocl_stack", {"atp/ocl_stack.atp"}},
        {"call_sites", {"atp/call_sites.atp"}},
        {"hsa_reduce", {"atp/hsa_reduce.atp"}},
        {"hsa_kernels_only", {"atp/hsa_kernels_only.atp"}},
        {"legacy_codexl", {"atp/legacy_codexl.atp"}},
        {"spec_example", {"perfmarker/spec_example.amdtperfmarker"}},
        {"unbalanced_markers", {"perfmarker/legacy_codexl.clperfmarker"}},
        {"two_traces", {"atp/ocl_vecadd.atp", "atp/hsa_reduce.atp"}},
        {"zero_device_times", {"atp/zero_device_times.atp"}},
    };
    return list;
}

bool updating() {
    const char* value = std::getenv("PERFMARKER_UPDATE_GOLDEN");
    return value != nullptr && std::string(value) == "1";
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The title `perfmarker report` gives by default.
std::string defaultTitle(const std::vector<std::string>& inputs) {
    std::string title = "perfmarker report:";
    for (const std::string& input : inputs) title += " " + fs::path(input).filename().string();
    return title;
}

// The page as the command writes it. The inputs go through parseBuffer under their
// fixture-relative names, so that nothing in the page depends on where the source tree is.
std::string libraryPage(const Golden& golden) {
    analysis::TraceSummary summary;
    TimelineCollector timeline;
    atp::TraceParser parser;
    parser.addListener(summary);
    parser.addListener(timeline);
    for (const std::string& input : golden.inputs) {
        const std::string data = readAll(kFixtures + "/" + input);
        EXPECT_FALSE(data.empty()) << input;
        std::string error;
        EXPECT_TRUE(parser.parseBuffer(data, input, error)) << error;
    }
    ReportData report;
    report.title = defaultTitle(golden.inputs);
    report.inputs = golden.inputs;
    report.tables = summary.tables();
    report.timeline = timeline.take();
    std::ostringstream page;
    writeHtmlReport(page, report);
    return page.str();
}

// Replaces the one occurrence of `what` in `text`; false when there is none or more than one.
bool replaceOnce(std::string& text, const std::string& what, const std::string& with) {
    const size_t at = text.find(what);
    if (at == std::string::npos || text.find(what, at + 1) != std::string::npos) return false;
    text.replace(at, what.size(), with);
    return true;
}

// The embedded JSON, re-read and written with one entry of each array per line (the page has
// it on one line of up to megabytes, which no diff can show). Keys keep the page's order.
std::string formatTimeline(const std::string& raw) {
    const auto json = nlohmann::ordered_json::parse(raw);
    std::string out = "{";
    bool firstKey = true;
    for (auto entry = json.begin(); entry != json.end(); ++entry) {
        out += firstKey ? "\n" : ",\n";
        firstKey = false;
        out += nlohmann::ordered_json(entry.key()).dump() + ": ";
        if (!entry.value().is_array()) {
            out += entry.value().dump();
            continue;
        }
        out += "[";
        for (size_t i = 0; i < entry.value().size(); ++i) {
            out += (i == 0 ? "\n  " : ",\n  ") + entry.value()[i].dump();
        }
        out += entry.value().empty() ? "]" : "\n]";
    }
    return out + "\n}\n";
}

struct GoldenFiles {
    std::string page;      // <name>.page.html
    std::string timeline;  // <name>.timeline.json
};

// Cuts the page into the two golden files; a failure when an asset or the data block is not
// there exactly once.
GoldenFiles cutPage(std::string page, const std::string& name) {
    const std::pair<const char*, const char*> assets[] = {
        {kReportScript, "[kReportScript]"},
        {kReportCss, "[kReportCss]"},
        {kReportErrorScript, "[kReportErrorScript]"},
        {kReportTimelineMarkup, "[kReportTimelineMarkup]\n"},
    };
    for (const auto& [asset, placeholder] : assets) {
        EXPECT_TRUE(replaceOnce(page, asset, placeholder))
            << placeholder << " not once in the page";
    }
    GoldenFiles files;
    const size_t open = page.find(kDataOpen);
    const size_t start = open == std::string::npos ? open : open + kDataOpen.size();
    const size_t end = page.find("</script", start);
    if (open == std::string::npos || end == std::string::npos ||
        page.find(kDataOpen, start) != std::string::npos) {
        ADD_FAILURE() << "no single timeline-data block in the page of " << name;
        return files;
    }
    try {
        files.timeline = formatTimeline(page.substr(start, end - start));
    } catch (const nlohmann::json::exception& e) {
        ADD_FAILURE() << "the timeline data of " << name << " is not JSON: " << e.what();
    }
    files.page = page.replace(start, end - start, "[" + name + ".timeline.json]");
    return files;
}

void compareWithGolden(const std::string& file, const std::string& actual) {
    const std::string path = kGoldenDir + file;
    if (updating()) {
        fs::create_directories(kGoldenDir);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << actual;
        ASSERT_TRUE(out.good()) << "cannot write " << path;
        return;
    }
    ASSERT_TRUE(fs::exists(path)) << path << " missing: run with PERFMARKER_UPDATE_GOLDEN=1";
    EXPECT_EQ(actual, readAll(path))
        << "golden file " << path << " differs (PERFMARKER_UPDATE_GOLDEN=1 regenerates)";
}

class ReportGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(ReportGolden, PageWrittenByTheLibrary) {
    const GoldenFiles files = cutPage(libraryPage(GetParam()), GetParam().name);
    ASSERT_FALSE(files.timeline.empty());
    compareWithGolden(GetParam().name + ".page.html", files.page);
    compareWithGolden(GetParam().name + ".timeline.json", files.timeline);
}

#ifdef PERFMARKER_CLI_PATH
std::string shellQuoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// `perfmarker report` run in tests/fixtures on the fixture-relative names: the page a user gets
// must be the one the golden files hold (default title, inputs as given, the summary tables).
TEST_P(ReportGolden, PageWrittenByTheCommand) {
    if (updating()) GTEST_SKIP() << "the library test writes the golden files";
    const fs::path scratch =
        fs::temp_directory_path() /
        ("perfmarker-report-golden-" + GetParam().name + "-" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    const std::string page = (scratch / "report.html").string();
    const std::string log = (scratch / "log.txt").string();
    std::string command =
        "cd " + shellQuoted(kFixtures) + " && " + shellQuoted(PERFMARKER_CLI_PATH) + " report";
    for (const std::string& input : GetParam().inputs) command += " " + shellQuoted(input);
    command += " -o " + shellQuoted(page) + " >" + shellQuoted(log) + " 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << readAll(log);
    const GoldenFiles files = cutPage(readAll(page), GetParam().name);
    fs::remove_all(scratch);
    EXPECT_EQ(files.page, readAll(kGoldenDir + GetParam().name + ".page.html"));
    EXPECT_EQ(files.timeline, readAll(kGoldenDir + GetParam().name + ".timeline.json"));
}
#endif

INSTANTIATE_TEST_SUITE_P(Fixtures, ReportGolden, ::testing::ValuesIn(goldens()),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                             return info.param.name;
                         });

// The cut itself: it keeps what the page shows and drops only the fixed assets.
TEST(ReportGoldenCut, KeepsTablesAndDataAndDropsTheAssets) {
    const GoldenFiles files = cutPage(libraryPage(goldens().front()), "ocl_vecadd");
    EXPECT_NE(files.page.find("<h2>API Summary Page</h2>"), std::string::npos);
    EXPECT_NE(files.page.find("<td>clBuildProgram</td>"), std::string::npos);
    EXPECT_NE(files.page.find("<code>atp/ocl_vecadd.atp</code>"), std::string::npos);
    EXPECT_NE(files.page.find(kDataOpen + "[ocl_vecadd.timeline.json]</script>"),
              std::string::npos);
    EXPECT_EQ(files.page.find("JSON.parse"), std::string::npos);
    EXPECT_EQ(files.page.find("id=\"zoom-in\""), std::string::npos);
    const auto timeline = nlohmann::json::parse(files.timeline);
    EXPECT_EQ(timeline["title"], "perfmarker report: ocl_vecadd.atp");
    EXPECT_FALSE(timeline["items"].empty());
    EXPECT_EQ(timeline["totalItems"].get<size_t>(), timeline["items"].size());
}

}  // namespace
}  // namespace perfmarker::report
