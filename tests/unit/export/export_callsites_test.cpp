// Call sites in the Perfetto export (docs/export.md#call-sites): the slice of an API call whose
// Stack Trace line names a call site gets it as "call_site" in its arguments, read ahead from the
// trace file (tests/fixtures/atp/call_sites.atp: two threads, both families, the three line
// forms, collapsed clGetEventInfo lines); Stack Trace sections that do not line up give a
// warning naming the file and the line; an input that is not a regular file says why its slices
// have none.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atp/read/trace_parser.h"
#include "export/perfetto_exporter.h"
#include "export_test_support.h"

namespace {

using namespace perfmarker;
using perfmarker::test::eventsWithPh;
using perfmarker::test::ExportScratch;
using perfmarker::test::json;

const std::string kAtp = std::string(PERFMARKER_FIXTURES_DIR) + "/atp/";

class PerfettoCallSites : public ::testing::Test {
protected:
    // Exports `path` (read as a file) or, with `text`, that text under the name `path`.
    json exportTrace(const std::string& path, const std::string* text = nullptr) {
        m_exporter = std::make_unique<exporter::PerfettoExporter>(
            exporter::PerfettoOptions{m_scratch.file("out.json")});
        atp::TraceParser parser;
        parser.addListener(*m_exporter);
        std::string error;
        const bool parsed = text != nullptr ? parser.parseBuffer(*text, path, error)
                                            : parser.parseFile(path, error);
        EXPECT_TRUE(parsed) << error;
        EXPECT_TRUE(m_exporter->finish(error)) << error;
        return test::parseJsonFile(m_scratch.file("out.json"));
    }
    const std::vector<std::string>& warnings() const { return m_exporter->warnings().messages(); }
    // The args of the API slice `name` at `index` of its thread block on track `tid` (any
    // track when 0).
    static json apiArgs(const json& trace, const std::string& name, uint64_t index,
                        int64_t tid = 0) {
        for (const json& event : eventsWithPh(trace, "X")) {
            if (event["name"] != name || event["args"].value("index", UINT64_MAX) != index)
                continue;
            if (tid != 0 && event["tid"] != tid) continue;
            return event["args"];
        }
        ADD_FAILURE() << "no slice " << name << " at " << index;
        return json::object();
    }
    static std::string callSite(const json& args) { return args.value("call_site", ""); }

    ExportScratch m_scratch;
    std::unique_ptr<exporter::PerfettoExporter> m_exporter;
};

TEST_F(PerfettoCallSites, EveryFormOfTheFixture) {
    const json trace = exportTrace(kAtp + "call_sites.atp");
    test::expectValidTrace(trace);
    EXPECT_EQ(callSite(apiArgs(trace, "clGetPlatformIDs", 0, 100)), "app.c:12 main");
    EXPECT_EQ(callSite(apiArgs(trace, "clEnqueueNDRangeKernel", 2, 100)), "app.c:42 enqueue_twice");
    const json collapsed = apiArgs(trace, "clGetEventInfo", 3, 100);
    EXPECT_EQ(callSite(collapsed), "app.c:57 wait_done");
    EXPECT_EQ(collapsed["consecutive calls"], 5);
    EXPECT_EQ(callSite(apiArgs(trace, "clEnqueueNDRangeKernel", 4, 100)), "app.c:42 enqueue_twice");
    EXPECT_EQ(callSite(apiArgs(trace, "clFinish", 5, 100)), "libhelper.so+0x1a2b");
    EXPECT_FALSE(apiArgs(trace, "clReleaseKernel", 6, 100).contains("call_site"));  // bare
    EXPECT_EQ(callSite(apiArgs(trace, "clEnqueueNDRangeKernel", 0, 200)), "worker.c:88 worker");
    EXPECT_EQ(callSite(apiArgs(trace, "clEnqueueNDRangeKernel", 1, 200)), "app.c:42 enqueue_twice");
    EXPECT_EQ(callSite(apiArgs(trace, "clFinish", 2, 200)), "worker_sync");
    EXPECT_FALSE(apiArgs(trace, "clGetEventInfo", 3, 200).contains("call_site"));  // "NA"
    EXPECT_EQ(callSite(apiArgs(trace, "hsa_init", 0)), "app.c:10 main");
    EXPECT_EQ(callSite(apiArgs(trace, "hsa_queue_create", 1)), "hsa_setup.cpp:30 setup_queue");
    EXPECT_EQ(callSite(apiArgs(trace, "hsa_signal_create", 2)), "libhsa_helper.so+0x400");
    EXPECT_FALSE(apiArgs(trace, "hsa_signal_destroy", 0).contains("call_site"));
    EXPECT_EQ(callSite(apiArgs(trace, "hsa_shut_down", 1)), "app.c:99 main");
    // Device commands carry no call site: their enqueue's slice has it.
    for (const json& event : eventsWithPh(trace, "X")) {
        if (event["cat"] != "OpenCL API" && event["cat"] != "HSA API") {
            EXPECT_FALSE(event["args"].contains("call_site")) << event.dump();
        }
    }
    EXPECT_TRUE(warnings().empty()) << warnings().front();
}

TEST_F(PerfettoCallSites, TheOriginalsFixture) {
    const json trace = exportTrace(kAtp + "ocl_stack.atp");
    EXPECT_EQ(callSite(apiArgs(trace, "clGetPlatformIDs", 0)), "main.cpp:42 main");
    EXPECT_EQ(callSite(apiArgs(trace, "clBuildProgram", 1)), "libvecadd.so+0x1a2b");
    EXPECT_FALSE(apiArgs(trace, "clFinish", 2).contains("call_site"));
}

TEST_F(PerfettoCallSites, NoneWithoutAStackTraceSection) {
    const json trace = exportTrace(kAtp + "ocl_vecadd.atp");
    for (const json& event : eventsWithPh(trace, "X")) {
        EXPECT_FALSE(event["args"].contains("call_site")) << event.dump();
    }
    for (const std::string& warning : warnings()) {
        EXPECT_EQ(warning.find("call site"), std::string::npos) << warning;
    }
}

TEST_F(PerfettoCallSites, StackLinesThatDoNotLineUpAreNamed) {
    const std::string text =
        "TraceFileVersion=3.2\n"
        "=====ocl API Trace Output=====\n7\n2\n"
        "CL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( 0x1 )\n"
        "=====ocl Timestamp Output=====\n7\n2\n"
        "51   clFinish   1000   2000\n50   clFlush   3000   4000\n"
        "=====ocl Stack Trace Output=====\n7\n3\n"
        "clFinish\tf\t1\ta.c\nclFlush\tg\t2\tb.c\nclFlush\th\t3\tc.c\n";
    const std::string path = m_scratch.file("longer.atp");
    test::writeText(path, text);
    const json trace = exportTrace(path);
    EXPECT_EQ(callSite(apiArgs(trace, "clFinish", 0)), "a.c:1 f");
    EXPECT_EQ(callSite(apiArgs(trace, "clFlush", 1)), "b.c:2 g");
    ASSERT_EQ(warnings().size(), 1u);
    EXPECT_EQ(warnings()[0], path +
                                 ":15: ocl Stack Trace Output, thread 7: 3 line(s) for 2 API "
                                 "call(s): the last 1 line(s) name no call and are left out");
}

TEST_F(PerfettoCallSites, AnInputThatIsNotAFileHasNone) {
    const std::string text = test::slurp(kAtp + "call_sites.atp");
    const json trace = exportTrace("piped.atp", &text);
    EXPECT_FALSE(apiArgs(trace, "clGetPlatformIDs", 0).contains("call_site"));
    ASSERT_EQ(warnings().size(), 1u);
    EXPECT_NE(warnings()[0].find("piped.atp:"), std::string::npos) << warnings()[0];
    EXPECT_NE(warnings()[0].find("call sites are read ahead from regular files only"),
              std::string::npos)
        << warnings()[0];
}

}  // namespace
