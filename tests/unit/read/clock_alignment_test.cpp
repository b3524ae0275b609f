// Traces of several hosts on one timeline (src/atp/read/clock_alignment.h): the header pre-pass,
// the shift per host and the listener that applies it.
#include "atp/read/clock_alignment.h"

#include <gtest/gtest.h>

#include <fstream>

#include "atp_trace_support.h"

namespace perfmarker::atp {
namespace {

using testing::TempDir;

TraceClocks host(const std::string& name, int64_t monotonic, int64_t realtime) {
    TraceClocks clocks;
    clocks.hostName = name;
    clocks.start = ClockAnchor{monotonic, monotonic + 7, realtime};
    return clocks;
}

bool contains(const std::vector<std::string>& messages, const std::string& text) {
    for (const std::string& message : messages) {
        if (message.find(text) != std::string::npos) return true;
    }
    return false;
}

TEST(ClockAlignment, OneHostKeepsEveryTimeAsRecorded) {
    const std::vector<std::string> inputs{"a.1.atp", "a.2.atp", "old.atp"};
    const HostAlignment result =
        alignHosts(inputs, {host("a", 100, 5000), host("a", 900, 5900), TraceClocks()});
    EXPECT_EQ(result.shiftNs, (std::vector<int64_t>{0, 0, 0}));
    EXPECT_EQ(result.hosts, 1u);
    EXPECT_TRUE(result.aligned.empty());
    EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
}

// Host b booted later (its CLOCK_MONOTONIC reads less at the same wall time): its times move
// onto a's clock; a second process of b moves by the same amount as the first, and a second
// process of a does not move at all.
TEST(ClockAlignment, HostsMoveOntoTheFirstHostsClock) {
    const std::vector<std::string> inputs{"a.1.atp", "b.1.atp", "b.2.atp", "a.2.atp", "old.atp"};
    const HostAlignment result =
        alignHosts(inputs, {host("a", 1'000'000, 50'000'000), host("b", 10, 50'000'300),
                            host("b", 600'000, 50'600'600),  // its own reading, slightly slewed
                            host("a", 2'000'000, 51'000'005), TraceClocks()});
    EXPECT_EQ(result.hosts, 2u);
    // a's offset 49'000'000, b's 50'000'290: b moves by 1'000'290.
    EXPECT_EQ(result.shiftNs, (std::vector<int64_t>{0, 1'000'290, 1'000'290, 0, 0}));
    EXPECT_EQ(result.aligned,
              "traces of 2 hosts (a, b) aligned on CLOCK_REALTIME; times are a's CLOCK_MONOTONIC");
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_EQ(result.warnings[0].rfind("old.atp: no clock anchors", 0), 0u) << result.warnings[0];
}

TEST(ClockAlignment, InconsistentAnchorsAreNamedAndTheStartIsUsed) {
    TraceClocks b = host("b", 10, 50'000'300);
    b.end = ClockAnchor{5, 12, 40'000'000};  // before the start
    const HostAlignment result =
        alignHosts({"a.atp", "b.atp"}, {host("a", 1'000'000, 50'000'000), b});
    EXPECT_EQ(result.shiftNs, (std::vector<int64_t>{0, 1'000'290}));
    EXPECT_TRUE(contains(result.warnings, "b.atp: inconsistent clock anchors: the end anchor"));
}

TEST(ClockAlignment, HeaderPrePassReadsTheAnchorsOfEachFile) {
    TempDir scratch;
    const std::string a = scratch.path() + "/a.atp";
    const std::string b = scratch.path() + "/b.atp";
    const std::string bad = scratch.path() + "/bad.atp";
    std::ofstream(a) << "TraceFileVersion=3.2\n HostName = alpha \n"
                        "ClockAnchorStart=CLOCK_MONOTONIC=1000;CLOCK_MONOTONIC_RAW=1000;"
                        "CLOCK_REALTIME=9000\r\n=====Perfmarker Output=====\n"
                        "HostName=not-a-header-line\n";
    std::ofstream(b)
        << "HostName=beta\n"
           "ClockAnchorEnd=CLOCK_MONOTONIC=10;CLOCK_MONOTONIC_RAW=1;CLOCK_REALTIME=9500\n";
    std::ofstream(bad) << "HostName=gamma\nClockAnchorStart=CLOCK_MONOTONIC=oops\n";
    std::string problem;
    const TraceClocks clocks = readTraceClocks(a, problem);
    EXPECT_EQ(clocks.hostName, "alpha");
    ASSERT_TRUE(clocks.start.has_value());
    EXPECT_EQ(clocks.start->realtime, 9000);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(readTraceClocks(scratch.path() + "/missing.atp", problem).hostName, "");

    const HostAlignment result = alignInputs({a, b, bad});
    EXPECT_EQ(result.shiftNs, (std::vector<int64_t>{0, 9490 - 8000, 0}));
    EXPECT_TRUE(contains(result.warnings, bad + ": ClockAnchorStart=CLOCK_MONOTONIC=oops"));
    EXPECT_TRUE(contains(result.warnings, bad + ": no clock anchors"));
}

// Records of every kind keep their fields; times move, unknown (zero) times stay zero, and a
// time the shift would make negative becomes zero.
class Recorder : public TraceListener {
public:
    void onOclApiCall(const OclApiCall& call) override { ocl.push_back(call); }
    void onHsaApiCall(const HsaApiCall& call) override { hsa.push_back(call); }
    void onHsaKernelDispatch(const HsaKernelDispatch& d) override { dispatches.push_back(d); }
    void onMarker(const MarkerEvent& event) override { markers.push_back(*event.marker); }
    void onHeader(std::string_view key, std::string_view, SourceLocation) override {
        keys.emplace_back(key);
    }
    std::vector<OclApiCall> ocl;
    std::vector<HsaApiCall> hsa;
    std::vector<HsaKernelDispatch> dispatches;
    std::vector<Marker> markers;
    std::vector<std::string> keys;
};

TEST(ClockAlignment, ShiftingListenerMovesEveryTime) {
    Recorder out;
    ShiftingListener shifting(out);
    OclApiCall call;
    call.name = "clEnqueueNDRangeKernel";
    call.start = 100;
    call.end = 200;
    call.hasCommand = true;
    call.command.queued = 110;
    call.command.submit = 120;
    call.command.start = 0;  // unknown
    call.command.end = 5;
    HsaApiCall hsa;
    hsa.start = 300;
    hsa.end = 400;
    hsa.transferStart = 310;
    hsa.transferEnd = 320;
    HsaKernelDispatch dispatch;
    dispatch.kernelName = "k";
    dispatch.start = 500;
    dispatch.end = 600;
    Marker marker;
    marker.name = "m";
    marker.timestampNs = 700;
    MarkerEvent event;
    event.tid = 3;
    event.marker = &marker;

    shifting.onHeader("HostName", "x", {});
    for (const int64_t shift : {int64_t{0}, int64_t{1000}, int64_t{-50}}) {
        shifting.setShift(shift);
        shifting.onOclApiCall(call);
        shifting.onHsaApiCall(hsa);
        shifting.onHsaKernelDispatch(dispatch);
        shifting.onMarker(event);
    }
    EXPECT_EQ(out.keys, std::vector<std::string>{"HostName"});
    ASSERT_EQ(out.ocl.size(), 3u);
    EXPECT_EQ(out.ocl[0].start, 100u);
    EXPECT_EQ(out.ocl[1].start, 1100u);
    EXPECT_EQ(out.ocl[1].end, 1200u);
    EXPECT_EQ(out.ocl[1].command.queued, 1110u);
    EXPECT_EQ(out.ocl[1].command.submit, 1120u);
    EXPECT_EQ(out.ocl[1].command.start, 0u);
    EXPECT_EQ(out.ocl[1].command.end, 1005u);
    EXPECT_EQ(out.ocl[1].name, "clEnqueueNDRangeKernel");
    EXPECT_EQ(out.ocl[2].start, 50u);
    EXPECT_EQ(out.ocl[2].command.end, 0u);  // 5 - 50
    EXPECT_EQ(out.hsa[1].start, 1300u);
    EXPECT_EQ(out.hsa[1].end, 1400u);
    EXPECT_EQ(out.hsa[1].transferStart, 1310u);
    EXPECT_EQ(out.hsa[1].transferEnd, 1320u);
    EXPECT_EQ(out.dispatches[1].start, 1500u);
    EXPECT_EQ(out.dispatches[1].end, 1600u);
    EXPECT_EQ(out.dispatches[1].kernelName, "k");
    EXPECT_EQ(out.markers[1].timestampNs, 1700u);
    EXPECT_EQ(out.markers[2].timestampNs, 650u);
    EXPECT_EQ(out.markers[1].name, "m");
    EXPECT_EQ(marker.timestampNs, 700u) << "the caller's record is not touched";
}

}  // namespace
}  // namespace perfmarker::atp
