// The streaming .atp reader (src/atp/atp_reader.h): API lines, header, sections and legacy
// names, thread blocks, the pairing rule, the Perfmarker section, and errors with line numbers
// for malformed input (also for randomly damaged files, which must never crash it).
#include "atp/atp_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <sstream>

namespace perfmarker::atp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The parsed views point into the text: keep every text alive for the whole test program.
ApiLine api(const std::string& text) {
    static std::deque<std::string> texts;
    texts.push_back(text);
    ApiLine out;
    std::string error;
    EXPECT_TRUE(parseApiLine(texts.back(), out, error)) << error;
    return out;
}

std::vector<std::string> strings(const std::vector<std::string_view>& views) {
    return {views.begin(), views.end()};
}

TEST(ApiLineParser, SpecExamples) {
    ApiLine a = api("CL_SUCCESS = clGetPlatformIDs ( 1;[0x7f1c44a5e1c0];NULL )");
    EXPECT_EQ(a.returnValue, "CL_SUCCESS");
    EXPECT_EQ(a.name, "clGetPlatformIDs");
    EXPECT_THAT(strings(a.params), ElementsAre("1", "[0x7f1c44a5e1c0]", "NULL"));
    EXPECT_EQ(a.comment, "");

    a =
        api("0x2071c40 = clCreateContext ( [{CL_CONTEXT_PLATFORM,139759432704448,NULL}];1;"
            "[0x1f3a6b0];NULL;NULL;[CL_SUCCESS] )");
    EXPECT_EQ(a.returnValue, "0x2071c40");
    EXPECT_EQ(a.params.size(), 6u);
    EXPECT_EQ(a.params[0], "[{CL_CONTEXT_PLATFORM,139759432704448,NULL}]");

    a =
        api("CL_SUCCESS = clGetEventInfo ( 0x2233aa0;CL_EVENT_COMMAND_EXECUTION_STATUS;4;"
            "[CL_COMPLETE];NULL /*37 consecutive calls*/ )");
    EXPECT_EQ(a.params.size(), 5u);
    EXPECT_EQ(a.params[4], "NULL");
    EXPECT_EQ(a.comment, "37 consecutive calls");

    // Quoted strings may hold spaces, ';' and comment starts.
    a = api(
        "CL_SUCCESS = clBuildProgram ( 0x21aa300;1;[0x1f3a6b0];\"-D A=1; /*x*/ -O3\";NULL;NULL )");
    EXPECT_EQ(a.params.size(), 6u);
    EXPECT_EQ(a.params[3], "\"-D A=1; /*x*/ -O3\"");
    EXPECT_EQ(a.comment, "");

    a = api(
        "CL_SUCCESS = clGetDeviceInfo ( 0x1;CL_DEVICE_NAME;64;[\"a \\\"quoted\\\" (name)\"];[7] )");
    EXPECT_EQ(a.params.size(), 5u);

    // HSA: void APIs have no return value; zero-argument APIs have two spaces.
    a = api("hsa_signal_store_relaxed ( signal={140246450118912};value=1 )");
    EXPECT_EQ(a.returnValue, "");
    EXPECT_EQ(a.name, "hsa_signal_store_relaxed");
    a = api("HSA_STATUS_SUCCESS = hsa_init (  )");
    EXPECT_TRUE(a.params.empty());
    a = api("CL_SUCCESS = clFoo ( )");
    EXPECT_TRUE(a.params.empty());
    a = api("1 = clFoo ( /*only a comment*/ )");
    EXPECT_TRUE(a.params.empty());
    EXPECT_EQ(a.comment, "only a comment");
}

TEST(ApiLineParser, Rejects) {
    ApiLine out;
    std::string error;
    for (const char* bad : {"", "CL_SUCCESS = clFoo", "CL_SUCCESS = clFoo ( 1;2", " = clFoo ( 1 )",
                            "A B = clFoo ( 1 )", "( 1 )", "CL_SUCCESS = clFoo ( 1 /*open )"}) {
        EXPECT_FALSE(parseApiLine(bad, out, error)) << bad;
        EXPECT_THAT(error, StartsWith("expected")) << bad;
    }
}

const char* const kValidAtp =
    "TraceFileVersion=3.2\n"
    "ProfilerVersion=5.6.0\n"
    "EnvVar=A=B=C\n"
    "OS Version=Linux Build 6.1\n"
    "Device gfx900 Platform Vendor = Advanced Micro Devices, Inc.\n"
    "CLExcludedAPIs=\n"
    "=====CodeXL ocl API Trace Output=====\n"
    "4242\n"
    "2\n"
    "CL_SUCCESS = clFinish ( 0x1 )\n"
    "\n"
    "CL_SUCCESS = clEnqueueMarker ( 0x1;NULL )\n"
    "4243\n"
    "0\n"
    "=====ocl Timestamp Output=====\r\n"
    "4242\n"
    "2\n"
    "51   clFinish                                     10                   20                   \n"
    "73   clEnqueueMarker                              30                   40                   "
    "4606    CL_COMMAND_MARKER                       31                   32                   "
    "33                   34                   0         0x1                      0         "
    "0x2                      gfx900                        \n"
    "4243\n"
    "0\n"
    "=====AMD OpenCL Perfmarker Output=====\n"
    "4242\n"
    "2\n"
    "clBeginPerfMarker   Frame&nbsp;1                                       5                      "
    "Render\n"
    "clEndPerfMarker     45                  \n";

class Recorder final : public AtpListener {
public:
    void onHeader(std::string_view k, std::string_view v, uint64_t) override {
        events.push_back("H " + std::string(k) + "|" + std::string(v));
    }
    void onSection(SectionKind, std::string_view name, uint64_t line) override {
        events.push_back("S " + std::string(name) + " @" + std::to_string(line));
    }
    void onThread(SectionKind, uint64_t tid, uint64_t count, uint64_t) override {
        events.push_back("T " + std::to_string(tid) + " " + std::to_string(count));
    }
    void onApiLine(SectionKind, uint64_t tid, const ApiLine& a, uint64_t line) override {
        events.push_back("A " + std::to_string(tid) + " " + std::string(a.name) + " @" +
                         std::to_string(line));
    }
    void onTimestampLine(SectionKind, uint64_t, const std::vector<std::string_view>& f,
                         uint64_t) override {
        events.push_back("TS " + std::string(f[1]) + " " + std::to_string(f.size()));
    }
    void onMarker(uint64_t tid, const Marker& m) override {
        events.push_back("M " + std::to_string(tid) + " " + m.name + " " +
                         std::to_string(m.timestampNs));
    }
    std::vector<std::string> events;
};

TEST(AtpReader, ReadsEveryPartInOrder) {
    std::istringstream in(kValidAtp);
    Recorder r;
    std::string error;
    ASSERT_TRUE(readAtp(in, "t.atp", r, error)) << error;
    EXPECT_THAT(
        r.events,
        ElementsAre("H TraceFileVersion|3.2", "H ProfilerVersion|5.6.0", "H EnvVar|A=B=C",
                    "H OS Version|Linux Build 6.1",
                    "H Device gfx900 Platform Vendor | Advanced Micro Devices, Inc.",
                    "H CLExcludedAPIs|", "S CodeXL ocl API Trace Output @7", "T 4242 2",
                    "A 4242 clFinish @10", "A 4242 clEnqueueMarker @12", "T 4243 0",
                    "S ocl Timestamp Output @15", "T 4242 2", "TS clFinish 4",
                    "TS clEnqueueMarker 15", "T 4243 0", "S AMD OpenCL Perfmarker Output @22",
                    "T 4242 2", "M 4242 Frame 1 5", "M 4242  45"));
}

TEST(AtpReader, LoadsADocument) {
    std::istringstream in(kValidAtp);
    AtpDocument doc;
    std::string error;
    ASSERT_TRUE(loadAtp(in, "t.atp", doc, error)) << error;
    ASSERT_NE(doc.headerValue("EnvVar"), nullptr);
    EXPECT_EQ(*doc.headerValue("EnvVar"), "A=B=C");
    EXPECT_EQ(doc.headerValue("Nope"), nullptr);
    EXPECT_THAT(doc.sections, ElementsAre(SectionKind::OclApiTrace, SectionKind::OclTimestamp,
                                          SectionKind::Perfmarker));
    const auto& api = doc.blocks[SectionKind::OclApiTrace];
    ASSERT_EQ(api.size(), 2u);
    EXPECT_THAT(api[0].lines, ElementsAre("CL_SUCCESS = clFinish ( 0x1 )",
                                          "CL_SUCCESS = clEnqueueMarker ( 0x1;NULL )"));
    EXPECT_TRUE(api[1].lines.empty());
    ASSERT_EQ(doc.markers.threads.size(), 1u);
    EXPECT_EQ(doc.markers.threads[0].markers.size(), 2u);
}

struct Malformed {
    std::string name;
    std::string text;
    uint64_t line;
    std::string what;
};

std::string header() { return "TraceFileVersion=3.2\n"; }  // line 1
std::string apiSection(const std::string& body) {
    return "=====ocl API Trace Output=====\n" + body;
}
const std::string kApi2 = "1\n2\nCL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( 0x1 )\n";
const std::string kTs = "=====ocl Timestamp Output=====\n";

std::vector<Malformed> malformedCases() {
    return {
        {"HeaderWithoutEquals", "TraceFileVersion=3.2\nnot a header\n", 2,
         "expected a header line"},
        {"BadSectionLine", header() + "=====oops\n", 2, "expected a section line"},
        {"ThreadIdNotANumber", header() + apiSection("12a\n"), 3, "expected a thread id"},
        {"CountNotANumber", header() + apiSection("12\nmany\n"), 4, "expected the line count"},
        {"ApiLineWithoutParens", header() + apiSection("1\n1\nCL_SUCCESS = clFinish\n"), 5,
         "expected an API line"},
        {"BlockCutShortBySection",
         header() + apiSection("1\n3\nCL_SUCCESS = clFinish ( 0x1 )\n") + kTs, 6,
         "expected the 3 lines thread 1 declares"},
        {"BlockCutShortByEnd", header() + apiSection("1\n3\nCL_SUCCESS = clFinish ( 0x1 )\n"), 6,
         "expected the 3 lines"},
        {"TimestampTooFewFields", header() + kTs + "1\n1\n51 clFinish 10\n", 5, "got 3 fields"},
        {"TimestampNotANumber", header() + kTs + "1\n1\n51 clFinish 10 2x\n", 5, "the end time"},
        {"PairingWrongName",
         header() + apiSection(kApi2) + kTs + "1\n2\n51 clFinish 1 2\n51 clFinish 3 4\n", 11,
         "expected API 'clFlush'"},
        {"PairingWrongCount", header() + apiSection(kApi2) + kTs + "1\n1\n", 9,
         "expected thread 1 with 2 lines"},
        {"PairingWrongThread", header() + apiSection(kApi2) + kTs + "2\n2\n", 9,
         "expected thread 1 with 2 lines as in the ocl API Trace Output section, got thread 2"},
        {"PairingMissingThread", header() + apiSection(kApi2) + kTs, 8, "expected 1 thread blocks"},
        {"PairingExtraThread",
         header() + apiSection(kApi2) + kTs + "1\n2\n51 clFinish 1 2\n50 clFlush 3 4\n9\n0\n", 13,
         "expected no more thread blocks"},
        {"MarkerLine", header() + "=====Perfmarker Output=====\n1\n1\nclBogus 12\n", 5,
         "clBeginPerfMarker"},
        {"KernelTimestampCount", header() + "=====hsa Kernel Timestamp Output=====\nx\n", 3,
         "expected the number of dispatch lines"},
        {"KernelTimestampTooMany", header() + "=====hsa Kernel Timestamp Output=====\n1\na\nb\n", 5,
         "expected a section line after the declared dispatch lines"},
    };
}

class AtpReaderMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(AtpReaderMalformed, ErrorNamesTheLine) {
    const Malformed& m = GetParam();
    std::istringstream in(m.text);
    AtpListener ignore;
    std::string error;
    ASSERT_FALSE(readAtp(in, "bad.atp", ignore, error));
    EXPECT_THAT(error, StartsWith("bad.atp:" + std::to_string(m.line) + ": ")) << error;
    EXPECT_THAT(error, HasSubstr(m.what)) << error;
}

INSTANTIATE_TEST_SUITE_P(Cases, AtpReaderMalformed, ::testing::ValuesIn(malformedCases()),
                         [](const ::testing::TestParamInfo<Malformed>& info) {
                             return info.param.name;
                         });

TEST(AtpReader, UnknownAndStackSectionsAreDelivered) {
    std::istringstream in(
        "=====ocl Stack Trace Output=====\n7\n1\nclFinish\tNA\t12\tmain.c\n"
        "=====Some Future Output=====\nfree text\n");
    class Lines final : public AtpListener {
    public:
        void onOtherLine(SectionKind kind, uint64_t tid, std::string_view text, uint64_t) override {
            seen.push_back(std::to_string(static_cast<int>(kind)) + ":" + std::to_string(tid) +
                           ":" + std::string(text));
        }
        std::vector<std::string> seen;
    } lines;
    std::string error;
    ASSERT_TRUE(readAtp(in, "s.atp", lines, error)) << error;
    EXPECT_THAT(lines.seen, ElementsAre("2:7:clFinish\tNA\t12\tmain.c", "8:0:free text"));
}

TEST(AtpReader, MissingFileIsAnError) {
    AtpListener ignore;
    std::string error;
    EXPECT_FALSE(readAtpFile("/nonexistent/x.atp", ignore, error));
    EXPECT_THAT(error, HasSubstr("/nonexistent/x.atp: cannot open"));
}

// Random damage (byte flips, deletions, duplicated lines) must give true or an error, never a
// crash or a hang; errors always name a line.
TEST(AtpReader, SurvivesRandomDamage) {
    const std::string valid = kValidAtp;
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
        std::string text = valid;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const size_t pos = rng() % text.size();
            switch (rng() % 4) {
                case 0:
                    text[pos] = static_cast<char>(rng() % 256);
                    break;
                case 1:
                    text.erase(pos, 1 + rng() % 20);
                    break;
                case 2:
                    text.insert(pos, text.substr(rng() % text.size(), rng() % 80));
                    break;
                case 3:
                    text[pos] = "\n=; ()/*0123456789"[rng() % 18];
                    break;
            }
        }
        std::istringstream in(text);
        AtpDocument doc;
        std::string error;
        if (!loadAtp(in, "f.atp", doc, error)) {
            EXPECT_THAT(error, ::testing::MatchesRegex("f\\.atp:[0-9]+: .*")) << error;
        }
    }
}

}  // namespace
}  // namespace perfmarker::atp
