// Writes a report of synthetic records (two processes, nested markers, OpenCL and HSA calls,
// device commands, names that try to break out of the page) for the browser test. Usage:
// report_sample OUT.html [EXTRA_CALLS [MAX_ITEMS]] (extra enqueues make a large page, for timing)
#include <iostream>
#include <string>

#include "report/html_report.h"
#include "report/timeline.h"

namespace {

using namespace perfmarker;

void marker(report::TimelineCollector& collector, atp::MarkerKind kind, uint64_t time,
            const std::string& name = {}, const std::string& user = {}) {
    atp::Marker m;
    m.kind = kind;
    m.timestampNs = time;
    m.name = name;
    m.group = "Default";
    m.userString = user;
    atp::MarkerEvent event;
    event.tid = 100;
    event.marker = &m;
    collector.onMarker(event);
}

void oclCall(report::TimelineCollector& collector, const char* name, uint64_t start, bool kernel) {
    atp::OclApiCall call;
    call.tid = 100;
    call.name = name;
    call.returnValue = "CL_SUCCESS";
    call.start = start;
    call.end = start + 20000;
    call.hasCommand = true;
    call.command.commandName = kernel ? "CL_COMMAND_NDRANGE_KERNEL" : "CL_COMMAND_WRITE_BUFFER";
    call.command.commandType = kernel ? 4592 : 4596;
    call.command.start = start + 50000;
    call.command.end = start + 450000;
    call.command.deviceName = "pthread-cpu";
    call.command.isKernel = kernel;
    call.command.kernelName = "vecadd\"</script><b>";
    call.command.globalSize = "{1048576}";
    call.command.localSize = "{256}";
    call.command.hasDataSize = !kernel;
    call.command.dataSize = 4194304;
    collector.onOclApiCall(call);
}

void firstProcess(report::TimelineCollector& collector) {
    collector.onFileBegin("tests/app.atp");
    collector.onHeader("ProcessId", "4242", {});
    marker(collector, atp::MarkerKind::Begin, 1000000, "Frame", "frame=1");
    marker(collector, atp::MarkerKind::Begin, 1100000,
           "Upload </script><img src=x onerror=alert(1)>", "u='1' & \"2\"");
    oclCall(collector, "clEnqueueWriteBuffer", 1200000, false);
    marker(collector, atp::MarkerKind::End, 1800000);
    oclCall(collector, "clEnqueueNDRangeKernel", 1900000, true);
    marker(collector, atp::MarkerKind::End, 2600000);
    collector.onFileEnd("tests/app.atp");
}

void secondProcess(report::TimelineCollector& collector) {
    collector.onFileBegin("tests/hsa_app.atp");
    collector.onHeader("ProcessId", "4343", {});
    atp::HsaApiCall call;
    call.tid = 7;
    call.name = "hsa_queue_create";
    call.returnValue = "HSA_STATUS_SUCCESS";
    call.start = 1300000;
    call.end = 1350000;
    collector.onHsaApiCall(call);
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "gemm<float>";
    dispatch.agentName = "gfx900";
    dispatch.queueIndex = 1;
    dispatch.start = 1500000;
    dispatch.end = 2900000;
    collector.onHsaKernelDispatch(dispatch);
    collector.onFileEnd("tests/hsa_app.atp");
}

void manyCalls(report::TimelineCollector& collector, uint64_t count) {
    collector.onFileBegin("tests/many.atp");
    for (uint64_t i = 0; i < count; ++i) {
        oclCall(collector, i % 2 ? "clEnqueueNDRangeKernel" : "clEnqueueWriteBuffer",
                3000000 + i * 30000 + (i % 7) * 1000, i % 2 == 1);
    }
    collector.onFileEnd("tests/many.atp");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) {
        std::cerr << "usage: report_sample OUT.html [EXTRA_CALLS [MAX_ITEMS]]\n";
        return 2;
    }
    const uint64_t extra = argc > 2 ? std::stoull(argv[2]) : 0;
    const size_t maxItems = argc > 3 ? std::stoull(argv[3]) : report::kDefaultMaxItems;
    report::TimelineCollector collector(maxItems);
    firstProcess(collector);
    secondProcess(collector);
    if (extra > 0) manyCalls(collector, extra);
    report::ReportData data;
    data.maxItems = maxItems;
    data.title = "Synthetic </title><script>alert(1)</script> report";
    data.inputs = {"tests/app.atp", "tests/hsa_app.atp"};
    data.timeline = collector.take();
    analysis::Table table;
    table.id = "CLAPISummary";
    table.title = "API Summary Page";
    table.columns = {"API Name", "# of Calls", "Total Time(ms)"};
    table.rows = {{"clEnqueueNDRangeKernel", "1", "0.02000"},
                  {"clEnqueueWriteBuffer", "12", "0.11000"},
                  {"<img src=x onerror=alert(2)>", "3", "1.00000"}};
    data.tables.push_back(table);
    std::string error;
    if (!report::writeHtmlReportFile(argv[1], data, error)) {
        std::cerr << "report_sample: " << error << "\n";
        return 1;
    }
    return 0;
}
