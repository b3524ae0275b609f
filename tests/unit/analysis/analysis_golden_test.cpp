// `perfmarker summary` output of the fixture traces through the real reader, compared byte for
// byte with tests/fixtures/golden/summary/<fixture>.<txt|md|csv|json>.
//
// After a deliberate change of the pages, regenerate the golden files with
//   PERFMARKER_UPDATE_GOLDEN=1 <build>/tests/unit/analysis_golden_test
// and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/render.h"
#include "analysis/summary.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::analysis {
namespace {

const std::string kFixtures = PERFMARKER_FIXTURES_DIR;
const std::string kGoldenDir = kFixtures + "/golden/summary/";

struct Golden {
    std::string name;                 // golden file stem
    std::vector<std::string> inputs;  // relative to tests/fixtures
};

const std::vector<Golden>& goldens() {
    static const std::vector<Golden> list = {
        {"ocl_vecadd", {"atp/ocl_vecadd.atp"}},
        {"ocl_stack", {"atp/ocl_stack.atp"}},
        // Call sites of both families, in two threads, in the three line forms.
        {"call_sites", {"atp/call_sites.atp"}},
        {"hsa_reduce", {"atp/hsa_reduce.atp"}},
        {"hsa_kernels_only", {"atp/hsa_kernels_only.atp"}},
        {"legacy_codexl", {"atp/legacy_codexl.atp"}},
        {"spec_example", {"perfmarker/spec_example.amdtperfmarker"}},
        {"unbalanced_markers", {"perfmarker/legacy_codexl.clperfmarker"}},
        {"ocl_and_hsa", {"atp/ocl_vecadd.atp", "atp/hsa_reduce.atp"}},
        // Unknown device times, intervals that end before they start, a trace cut at the cap.
        {"zero_device_times", {"atp/zero_device_times.atp"}},
        {"end_before_start", {"atp/end_before_start.atp"}},
        {"cut_at_cap", {"atp/cut_at_cap.atp"}},
    };
    return list;
}

struct FormatFile {
    OutputFormat format;
    const char* extension;
};

const FormatFile kFormats[] = {{OutputFormat::Text, "txt"},
                               {OutputFormat::Markdown, "md"},
                               {OutputFormat::Csv, "csv"},
                               {OutputFormat::Json, "json"}};

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The inputs go through parseBuffer under their fixture-relative names, so that file names in
// the pages do not depend on where the source tree is.
std::vector<Table> summarize(const Golden& golden) {
    TraceSummary summary;
    atp::TraceParser parser;
    parser.addListener(summary);
    for (const std::string& input : golden.inputs) {
        std::string error;
        const std::string data = readAll(kFixtures + "/" + input);
        EXPECT_FALSE(data.empty()) << input;
        EXPECT_TRUE(parser.parseBuffer(data, input, error)) << error;
    }
    return summary.tables();
}

class SummaryGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(SummaryGolden, MatchesEveryFormat) {
    const std::vector<Table> tables = summarize(GetParam());
    ASSERT_FALSE(tables.empty());
    const char* update = std::getenv("PERFMARKER_UPDATE_GOLDEN");
    for (const FormatFile& format : kFormats) {
        const std::string path = kGoldenDir + GetParam().name + "." + format.extension;
        const std::string actual = render(tables, format.format);
        if (update != nullptr && std::string(update) == "1") {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out << actual;
            ASSERT_TRUE(out.good()) << "cannot write " << path;
            continue;
        }
        EXPECT_EQ(actual, readAll(path))
            << "golden file " << path << " differs (PERFMARKER_UPDATE_GOLDEN=1 regenerates)";
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SummaryGolden, ::testing::ValuesIn(goldens()),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                             return info.param.name;
                         });

}  // namespace
}  // namespace perfmarker::analysis
