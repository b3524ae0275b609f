// The Perfetto / Chrome JSON exporter fed with typed records built by hand: the structure of
// the trace (tracks, nesting, flows, metadata), escaping, pids and splitting.
#include <gtest/gtest.h>

#include <random>

#include "export/perfetto_exporter.h"
#include "export_test_support.h"
#include "file_size_limit.h"

namespace {

using namespace perfmarker;
using namespace perfmarker::exporter;
using perfmarker::test::eventsWithPh;
using perfmarker::test::ExportScratch;
using perfmarker::test::FileSizeLimit;
using perfmarker::test::json;
using perfmarker::test::RecordFactory;

class PerfettoExport : public ::testing::Test {
protected:
    PerfettoExporter& exporter(uint64_t maxBytes = uint64_t{256} << 20) {
        m_exporter = std::make_unique<PerfettoExporter>(
            PerfettoOptions{m_scratch.file("out.json"), maxBytes});
        return *m_exporter;
    }
    json finish() {
        std::string error;
        EXPECT_TRUE(m_exporter->finish(error)) << error;
        return test::parseJsonFile(m_scratch.file("out.json"));
    }
    // The name of a track, from its thread_name metadata.
    static std::string trackName(const json& trace, int64_t pid, int64_t tid) {
        for (const json& event : eventsWithPh(trace, "M")) {
            if (event["name"] == "thread_name" && event["pid"] == pid && event["tid"] == tid) {
                return event["args"]["name"];
            }
        }
        return {};
    }
    static json sliceNamed(const json& trace, const std::string& name) {
        for (const json& event : eventsWithPh(trace, "X")) {
            if (event["name"] == name) return event;
        }
        return json();
    }

    ExportScratch m_scratch;
    RecordFactory m_records;
    std::unique_ptr<PerfettoExporter> m_exporter;
};

TEST_F(PerfettoExport, HostAndDeviceTracksWithFlows) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("/traces/vecadd.4242.atp");
    out.onHeader("Application", "/bin/vecadd", {});
    out.onOclApiCall(m_records.apiCall(7, 0, "clCreateBuffer", 1000, 2000));
    out.onOclApiCall(m_records.kernelEnqueue(7, 1, 3000, 4000, 5000, 9000));
    out.onOclApiCall(m_records.readEnqueue(7, 2, 4500, 5500, 9500, 9800));
    out.onMarker(m_records.marker(7, atp::MarkerKind::Begin, 900, "Frame", "Render", "color=red"));
    out.onMarker(m_records.marker(7, atp::MarkerKind::End, 6000));
    out.onFileEnd("/traces/vecadd.4242.atp");
    const json trace = finish();
    test::expectValidTrace(trace);

    const json kernel = sliceNamed(trace, "reduce");
    ASSERT_FALSE(kernel.is_null());
    EXPECT_EQ(kernel["pid"], 4242);
    EXPECT_DOUBLE_EQ(kernel["ts"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(kernel["dur"].get<double>(), 4.0);
    EXPECT_EQ(kernel["args"]["global size"], "{1048576}");
    EXPECT_EQ(kernel["args"]["local size"], "{256}");
    EXPECT_EQ(kernel["args"]["kernel handle"], "0x21ff890");
    EXPECT_EQ(trackName(trace, 4242, kernel["tid"]), "OpenCL queue 0 (gfx900) kernels");

    const json read = sliceNamed(trace, "CL_COMMAND_READ_BUFFER");
    EXPECT_EQ(read["args"]["bytes"], 4096);
    EXPECT_EQ(trackName(trace, 4242, read["tid"]), "OpenCL queue 0 (gfx900) memory");

    const json api = sliceNamed(trace, "clEnqueueNDRangeKernel");
    EXPECT_EQ(api["tid"], 7);
    EXPECT_EQ(api["args"]["params"], "0x1000;CL_TRUE");
    EXPECT_EQ(trackName(trace, 4242, 7), "Thread 7");

    const json marker = sliceNamed(trace, "Frame");
    EXPECT_EQ(marker["args"]["group"], "Render");
    EXPECT_EQ(marker["args"]["user string"], "color=red");
    EXPECT_EQ(trackName(trace, 4242, marker["tid"]), "Thread 7 markers");

    // One flow per enqueue, from the call's track to the command's track.
    const auto starts = eventsWithPh(trace, "s");
    const auto finishes = eventsWithPh(trace, "f");
    ASSERT_EQ(starts.size(), 2u);
    ASSERT_EQ(finishes.size(), 2u);
    EXPECT_EQ(starts[0]["tid"], 7);
    EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), 3.5);  // inside the call's slice
    bool found = false;
    for (const json& f : finishes) {
        if (f["id"] == starts[0]["id"] || f["id"] == starts[1]["id"]) found = true;
    }
    EXPECT_TRUE(found);

    bool processNamed = false;
    for (const json& event : eventsWithPh(trace, "M")) {
        if (event["name"] == "process_name") {
            EXPECT_EQ(event["args"]["name"], "vecadd.4242");
            processNamed = true;
        }
    }
    EXPECT_TRUE(processNamed);
    EXPECT_EQ(trace["displayTimeUnit"], "ns");
}

TEST_F(PerfettoExport, OverlappingCommandsGoToSeparateLanes) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("t.atp");
    // Two threads enqueue to one queue; the commands overlap on the device.
    out.onOclApiCall(m_records.kernelEnqueue(1, 0, 100, 200, 1000, 3000, 0, "k1"));
    out.onOclApiCall(m_records.kernelEnqueue(2, 0, 150, 250, 2000, 4000, 0, "k2"));
    out.onOclApiCall(m_records.kernelEnqueue(2, 1, 260, 270, 3500, 3600, 0, "k3"));
    out.onFileEnd("t.atp");
    const json trace = finish();
    test::expectValidTrace(trace);
    const json k1 = sliceNamed(trace, "k1");
    const json k2 = sliceNamed(trace, "k2");
    const json k3 = sliceNamed(trace, "k3");
    EXPECT_NE(k1["tid"], k2["tid"]);
    EXPECT_EQ(k3["tid"], k1["tid"]);  // the first lane is free again at 3500
    EXPECT_EQ(trackName(trace, k2["pid"], k2["tid"]), "OpenCL queue 0 (gfx900) kernels #2");
}

TEST_F(PerfettoExport, OverlappingHostSlicesAreClampedNotCrossed) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("t.atp");
    out.onOclApiCall(m_records.apiCall(1, 0, "clA", 100, 500));
    out.onOclApiCall(m_records.apiCall(1, 1, "clB", 300, 700));  // overlaps clA
    out.onOclApiCall(m_records.apiCall(1, 2, "clC", 900, 800));  // ends before it starts
    out.onFileEnd("t.atp");
    const json trace = finish();
    test::expectValidTrace(trace);
    EXPECT_DOUBLE_EQ(sliceNamed(trace, "clB")["ts"].get<double>(), 0.5);
    // No slice for a call that ends before it starts (the reader names its line).
    EXPECT_TRUE(sliceNamed(trace, "clC").is_null());
    ASSERT_EQ(out.warnings().messages().size(), 1u);
    EXPECT_NE(out.warnings().messages()[0].find("1 slice(s)"), std::string::npos);
}

TEST_F(PerfettoExport, UnbalancedMarkersNeverMismatch) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("t.atp");
    out.onMarker(m_records.marker(5, atp::MarkerKind::End, 10));  // dropped
    out.onMarker(m_records.marker(5, atp::MarkerKind::Begin, 20, "a"));
    out.onMarker(m_records.marker(5, atp::MarkerKind::Begin, 30, "b"));
    out.onMarker(m_records.marker(5, atp::MarkerKind::End, 40));
    out.onOclApiCall(m_records.apiCall(5, 0, "clFinish", 50, 80));
    out.onFileEnd("t.atp");
    const json trace = finish();
    test::expectValidTrace(trace);
    const json a = sliceNamed(trace, "a");
    EXPECT_EQ(a["args"]["unclosed"], true);
    EXPECT_DOUBLE_EQ(a["dur"].get<double>(), 0.060);  // closed at the thread's last time (80)
    EXPECT_EQ(out.warnings().messages().size(), 2u);
}

TEST_F(PerfettoExport, HostileNamesRoundTrip) {
    const std::string hostile = std::string("k\"\\\n\t\x01") + "\xFF" + "\xC3\xA9";
    PerfettoExporter& out = exporter();
    out.onFileBegin("t\"x.atp");
    out.onOclApiCall(m_records.kernelEnqueue(1, 0, 10, 20, 30, 40, 0, hostile));
    out.onMarker(m_records.marker(1, atp::MarkerKind::Begin, 5, hostile, hostile, hostile));
    out.onMarker(m_records.marker(1, atp::MarkerKind::End, 50));
    out.onFileEnd("t\"x.atp");
    const json trace = finish();
    test::expectValidTrace(trace);
    const std::string expected = std::string("k\"\\\n\t\x01") + "\xEF\xBF\xBD" + "\xC3\xA9";
    size_t seen = 0;
    for (const json& event : eventsWithPh(trace, "X")) {
        if (event["name"] == expected) ++seen;
    }
    EXPECT_EQ(seen, 2u);
}

TEST_F(PerfettoExport, SeveralFilesKeepDistinctPids) {
    PerfettoExporter& out = exporter();
    for (const char* file : {"a.atp", "b.atp"}) {
        out.onFileBegin(file);
        out.onHeader("ProcessId", "300", {});
        out.onOclApiCall(m_records.apiCall(1, 0, "clFinish", 10, 20));
        out.onFileEnd(file);
    }
    const json trace = finish();
    test::expectValidTrace(trace);
    std::set<int64_t> pids;
    for (const json& event : eventsWithPh(trace, "X")) pids.insert(event["pid"].get<int64_t>());
    EXPECT_EQ(pids, (std::set<int64_t>{300, int64_t{ProcessIds::kSyntheticIdBase}}));
    ASSERT_EQ(out.warnings().messages().size(), 1u);
    EXPECT_NE(out.warnings().messages()[0].find("b.atp: pid 300"), std::string::npos);
}

TEST_F(PerfettoExport, HsaCallsDispatchesAndCopies) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("h.atp");
    atp::HsaApiCall copy;
    copy.tid = 9;
    copy.name = "hsa_amd_memory_async_copy";
    copy.returnValue = "HSA_STATUS_SUCCESS";
    copy.start = 100;
    copy.end = 200;
    copy.hasTransferTimes = true;
    copy.transferStart = 300;
    copy.transferEnd = 700;
    out.onHsaApiCall(copy);
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "reduce(float*, int)";
    dispatch.kernelHandle = "0x7F8C3A2B1C00";
    dispatch.start = 800;
    dispatch.end = 900;
    dispatch.agentName = "gfx900";
    dispatch.queueIndex = 2;
    out.onHsaKernelDispatch(dispatch);
    out.onFileEnd("h.atp");
    const json trace = finish();
    test::expectValidTrace(trace);
    const json kernel = sliceNamed(trace, "reduce(float*, int)");
    EXPECT_EQ(trackName(trace, kernel["pid"], kernel["tid"]), "HSA queue 2 (gfx900) kernels");
    const json api = sliceNamed(trace, "hsa_amd_memory_async_copy");
    EXPECT_EQ(trackName(trace, api["pid"], api["tid"]), "Thread 9 HSA");
    EXPECT_EQ(eventsWithPh(trace, "s").size(), 1u);
}

TEST_F(PerfettoExport, SplitPartsAreEachValidWithMetadata) {
    PerfettoExporter& out = exporter(4096);
    out.onFileBegin("big.12.atp");
    for (uint64_t i = 0; i < 200; ++i) {
        out.onOclApiCall(m_records.kernelEnqueue(1, i, 1000 * i, 1000 * i + 100, 1000 * i + 200,
                                                 1000 * i + 900));
    }
    out.onFileEnd("big.12.atp");
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    const auto files = out.writtenFiles();
    ASSERT_GT(files.size(), 3u);
    size_t kernels = 0;
    for (const std::string& file : files) {
        EXPECT_LE(std::filesystem::file_size(file), 4096u) << file;
        const json part = test::parseJsonFile(file);
        test::expectValidTrace(part);
        bool processNamed = false;
        for (const json& event : eventsWithPh(part, "M")) {
            processNamed |= event["name"] == "process_name";
        }
        EXPECT_TRUE(processNamed) << file;
        for (const json& event : eventsWithPh(part, "X")) kernels += event["name"] == "reduce";
    }
    EXPECT_EQ(kernels, 200u);
}

TEST_F(PerfettoExport, UnwritableOutputIsReported) {
    PerfettoExporter out(PerfettoOptions{m_scratch.file("no/such/dir/out.json"), 1 << 20});
    out.onFileBegin("t.atp");
    out.onOclApiCall(m_records.apiCall(1, 0, "clFinish", 10, 20));
    out.onFileEnd("t.atp");
    std::string error;
    EXPECT_FALSE(out.finish(error));
    EXPECT_NE(error.find("no/such/dir/out.json"), std::string::npos);
}

// Random records (overlapping calls, unbalanced and backward markers, overlapping commands on
// few queues): whatever comes in, the trace keeps its structure.
TEST_F(PerfettoExport, RandomRecordsAlwaysGiveAValidTrace) {
    std::mt19937_64 random(20261123);
    const auto pick = [&random](uint64_t limit) { return random() % limit; };
    PerfettoExporter& out = exporter(64 * 1024);
    for (int file = 0; file < 3; ++file) {
        const std::string name = "r" + std::to_string(file) + ".atp";
        out.onFileBegin(name);
        for (int i = 0; i < 2000; ++i) {
            const uint64_t tid = 1 + pick(3);
            const uint64_t start = pick(100000);
            switch (pick(4)) {
                case 0:
                    out.onOclApiCall(m_records.apiCall(tid, i, "clCall", start, start + pick(500)));
                    break;
                case 1:
                    out.onOclApiCall(m_records.kernelEnqueue(tid, i, start, start + pick(50),
                                                             start + pick(1000), start + pick(3000),
                                                             pick(2)));
                    break;
                default: {
                    const auto kind = pick(2) == 0 ? atp::MarkerKind::Begin
                                                   : (pick(2) == 0 ? atp::MarkerKind::End
                                                                   : atp::MarkerKind::EndEx);
                    out.onMarker(m_records.marker(tid, kind, start, "m" + std::to_string(i)));
                }
            }
        }
        out.onFileEnd(name);
    }
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    ASSERT_GT(out.writtenFiles().size(), 1u);
    for (const std::string& file : out.writtenFiles()) {
        test::expectValidTrace(test::parseJsonFile(file));
    }
}

// Device commands of several queues, overlapping (lanes), some without an enqueue slice, the
// same bytes whether they waited in memory or in the temporary file next to the output (a budget
// of 0: each one is written out as it comes; docs/export.md#memory), in every part.
TEST_F(PerfettoExport, CommandsThatWaitedInTheTemporaryFileGiveTheSameBytes) {
    std::vector<std::string> outputs[2];
    for (const size_t budget : {size_t{0}, size_t{32} << 20}) {
        std::mt19937_64 random(20261128);
        PerfettoOptions options{m_scratch.file("b" + std::to_string(budget) + ".json"), 64 << 10};
        options.memoryBudget = budget;
        PerfettoExporter out(options);
        for (int file = 0; file < 2; ++file) {
            const std::string name = "q" + std::to_string(file) + ".atp";
            out.onFileBegin(name);
            for (int i = 0; i < 1500; ++i) {
                const uint64_t start = random() % 100000;
                atp::OclApiCall call = m_records.kernelEnqueue(
                    1 + random() % 2, i, start, start + random() % 50, start + random() % 1000,
                    start + random() % 3000, random() % 3, "k" + std::to_string(random() % 4));
                if (random() % 5 == 0) call.start = call.end = 0;  // no slice of the call
                out.onOclApiCall(call);
                if (random() % 3 == 0) {  // the memory sub-track
                    out.onOclApiCall(m_records.readEnqueue(3, i, start, start + 5, start + 100,
                                                           start + 100 + random() % 500));
                }
            }
            out.onFileEnd(name);
        }
        std::string error;
        ASSERT_TRUE(out.finish(error)) << error;
        ASSERT_GT(out.writtenFiles().size(), 1u);
        for (const std::string& part : out.writtenFiles()) {
            outputs[budget == 0 ? 0 : 1].push_back(test::slurp(part));
        }
    }
    EXPECT_TRUE(outputs[0] == outputs[1]);
    // Only the outputs: the temporary file had no name.
    EXPECT_EQ(test::filesIn(m_scratch.path()).size(), 2 * outputs[0].size());
}

// A temporary file of device commands that cannot be written (a full disk; here the file size
// limit, EFBIG) fails the export, names the directory, and leaves no output.
TEST_F(PerfettoExport, ATemporaryFileThatCannotBeWrittenFailsTheExport) {
    PerfettoOptions options{m_scratch.file("out.json"), uint64_t{256} << 20};
    options.memoryBudget = 0;
    PerfettoExporter out(options);
    bool finished = true;
    std::string error;
    {
        FileSizeLimit limit(16384);
        ASSERT_TRUE(limit.set());
        out.onFileBegin("t.atp");
        for (uint64_t i = 0; i < 2000; ++i) {
            out.onOclApiCall(m_records.kernelEnqueue(1, i, i * 100, i * 100 + 10, i * 100 + 20,
                                                     i * 100 + 50, 0, "kernel"));
        }
        out.onFileEnd("t.atp");
        finished = out.finish(error);
    }
    EXPECT_FALSE(finished);
    EXPECT_EQ(error, "cannot write the temporary file of intervals in " + m_scratch.path() +
                         ": File too large");
    EXPECT_TRUE(test::filesIn(m_scratch.path()).empty());  // no part went in place
}

// A parse that stops half way never ends its file: finish() still writes what came, with the
// open markers closed.
TEST_F(PerfettoExport, FinishWithoutFileEndClosesTheFile) {
    PerfettoExporter& out = exporter();
    out.onFileBegin("t.atp");
    out.onMarker(m_records.marker(1, atp::MarkerKind::Begin, 10, "open"));
    out.onOclApiCall(m_records.kernelEnqueue(1, 0, 20, 30, 40, 50));
    const json trace = finish();
    test::expectValidTrace(trace);
    EXPECT_EQ(sliceNamed(trace, "open")["args"]["unclosed"], true);
    EXPECT_FALSE(sliceNamed(trace, "reduce").is_null());
}

}  // namespace
