// The OTF2 export (src/export/db/otf2_exporter.h, docs/otf2.md), read back with the OTF2
// library's reader: the fixture traces' regions and their counts, one location per host thread
// and per device queue in the right groups, every region entered is left in time order, the
// attributes, the clock properties, unknown times left out, crossing intervals cut, several
// traces in one archive, and archives refused, replaced or left behind as docs/export.md says.
#include <gtest/gtest.h>

#include <set>

#include "export/db/otf2_exporter.h"
#include "export_db_test_support.h"
#include "file_size_limit.h"
#include "otf2_read_back.h"

namespace perfmarker::exporter::db::test {
namespace {

using ::perfmarker::test::FileSizeLimit;

// Every location has events, in time order; every enter is left on the same location with a
// leave of the same region (innermost first); the count matches the location's definition.
void expectProperlyNested(const Otf2Contents& archive) {
    for (const auto& [id, location] : archive.locations) {
        SCOPED_TRACE(location.name);
        EXPECT_FALSE(location.events.empty());  // an empty location trips the OTF2 reader
        std::vector<uint32_t> open;
        uint64_t last = 0;
        for (const Otf2Event& event : location.events) {
            EXPECT_GE(event.time, last);
            last = event.time;
            EXPECT_NE(event.time, 0u);
            if (event.measurement) continue;
            if (event.enter) {
                open.push_back(event.region);
                continue;
            }
            ASSERT_FALSE(open.empty()) << "leave without enter";
            EXPECT_EQ(open.back(), event.region) << archive.regionName(event.region);
            open.pop_back();
        }
        EXPECT_TRUE(open.empty()) << open.size() << " regions never left";
        EXPECT_EQ(location.events.size(), location.declaredEvents);
    }
}

Otf2Contents exportAndRead(const Scratch& scratch, const std::vector<std::string>& traces,
                           ExportCounts* counts = nullptr,
                           std::vector<std::string>* warnings = nullptr) {
    Otf2Exporter exporter(Otf2Options{scratch.file("archive"), false, nullptr});
    std::string error;
    EXPECT_TRUE(runExport(exporter, traces, error)) << error;
    if (counts != nullptr) *counts = exporter.counts();
    if (warnings != nullptr) *warnings = exporter.warnings().messages();
    EXPECT_EQ(exporter.writtenFiles(),
              std::vector<std::string>{scratch.file("archive") + "/traces.otf2"});
    Otf2Contents archive = readOtf2(scratch.file("archive/traces.otf2"));
    EXPECT_TRUE(archive.ok);
    return archive;
}

TEST(Otf2Export, VecaddRegionsAndCounts) {
    Scratch scratch;
    ExportCounts counts;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "ocl_vecadd.atp"}, &counts);
    expectProperlyNested(archive);
    EXPECT_EQ(archive.enters("clEnqueueNDRangeKernel"), 2u);
    EXPECT_EQ(archive.enters("reduce"), 2u);  // the NDRange kernel and the task
    EXPECT_EQ(archive.enters("NATIVE_KERNEL (0x401a2b)"), 1u);
    EXPECT_EQ(archive.enters("clGetEventInfo"), 1u);  // one line of 37 collapsed calls
    for (const char* marker : {"Setup", "Frame 1", "Upload", "WorkerDone"}) {
        EXPECT_EQ(archive.enters(marker), 1u) << marker;
    }
    EXPECT_EQ(archive.enters("Worker"), 0u);  // renamed by its EndEx
    EXPECT_EQ(archive.enters("CL_COMMAND_WRITE_BUFFER"), 1u);
    EXPECT_EQ(counts.apiCalls, 25u);
    EXPECT_EQ(counts.commands, 7u);
    EXPECT_EQ(counts.markers, 4u);
    EXPECT_EQ(counts.processes, 1u);
    EXPECT_EQ(counts.commandsLeftOut, 0u);
    EXPECT_EQ(archive.eventsRead, 2 * (25u + 7u + 4u));
}

TEST(Otf2Export, HostThreadsAndDeviceQueuesAreSeparateLocations) {
    Scratch scratch;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    std::set<std::string> threads;
    std::set<std::string> streams;
    for (const auto& [id, location] : archive.locations) {
        const Otf2GroupInfo& group = archive.groups.at(location.group);
        std::set<std::string> regions;
        for (const Otf2Event& event : location.events) {
            regions.insert(archive.regionName(event.region));
        }
        if (location.type == OTF2_LOCATION_TYPE_CPU_THREAD) {
            threads.insert(location.name);
            EXPECT_EQ(group.type, OTF2_LOCATION_GROUP_TYPE_PROCESS);
            EXPECT_EQ(regions.count("reduce"), 0u) << location.name;
        } else {
            ASSERT_EQ(location.type, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM);
            streams.insert(location.name + " @ " + group.name);
            // A device's group is created by the process's group.
            EXPECT_EQ(group.type, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR);
            ASSERT_TRUE(archive.groups.count(group.creator));
            EXPECT_EQ(archive.groups.at(group.creator).type, OTF2_LOCATION_GROUP_TYPE_PROCESS);
            EXPECT_EQ(regions.count("clEnqueueNDRangeKernel"), 0u) << location.name;
        }
    }
    EXPECT_EQ(threads, (std::set<std::string>{"Thread 4711", "Thread 4712"}));
    // Queue 1 ran a native kernel on the CPU device and the rest on the GPU.
    EXPECT_EQ(streams.size(), 3u);
    EXPECT_EQ(archive.groups.size(), 3u);  // the process, gfx900, CPU_Device
}

TEST(Otf2Export, MarkersNestAroundTheirCalls) {
    Scratch scratch;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    // When clEnqueueWriteBuffer is entered, Frame 1 and Upload are open on its thread.
    bool found = false;
    for (const auto& [id, location] : archive.locations) {
        std::vector<std::string> open;
        for (const Otf2Event& event : location.events) {
            const std::string& name = archive.regionName(event.region);
            if (!event.enter) {
                open.pop_back();
                continue;
            }
            if (name == "clEnqueueWriteBuffer") {
                found = true;
                EXPECT_EQ(open, (std::vector<std::string>{"Frame 1", "Upload"}));
            }
            open.push_back(name);
        }
    }
    EXPECT_TRUE(found);
}

TEST(Otf2Export, RegionsAndAttributes) {
    Scratch scratch;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    for (const auto& [id, region] : archive.regions) {
        if (region.name == "clEnqueueNDRangeKernel") {
            EXPECT_EQ(region.role, OTF2_REGION_ROLE_FUNCTION);
            EXPECT_EQ(region.paradigm, OTF2_PARADIGM_OPENCL);
        }
        if (region.name == "Upload") {
            EXPECT_EQ(region.paradigm, OTF2_PARADIGM_USER);
        }
        if (region.name == "CL_COMMAND_READ_BUFFER") {
            EXPECT_EQ(region.role, OTF2_REGION_ROLE_DATA_TRANSFER);
        }
    }
    std::map<std::string, std::map<std::string, std::string>> firstEnter;
    for (const auto& [id, location] : archive.locations) {
        for (const Otf2Event& event : location.events) {
            if (event.enter)
                firstEnter.try_emplace(archive.regionName(event.region), event.attributes);
        }
    }
    const auto& kernel = firstEnter.at("reduce");
    EXPECT_EQ(kernel.at("global size"), "{1048576}");
    EXPECT_EQ(kernel.at("local size"), "{256}");
    EXPECT_EQ(kernel.at("command"), "CL_COMMAND_NDRANGE_KERNEL");
    EXPECT_EQ(kernel.at("queue"), "0");
    EXPECT_EQ(kernel.at("thread"), "4711");
    EXPECT_EQ(kernel.at("queued"), "4035307210000");
    EXPECT_EQ(firstEnter.at("CL_COMMAND_WRITE_BUFFER").at("bytes"), "4096");
    EXPECT_EQ(firstEnter.at("clGetEventInfo").at("calls"), "37");
    EXPECT_EQ(firstEnter.at("clCreateContext").at("result"), "0x2071c40");
    EXPECT_EQ(firstEnter.at("Frame 1").at("group"), "Render");
}

TEST(Otf2Export, ClockPropertiesFromTheTrace) {
    Scratch scratch;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    EXPECT_EQ(archive.resolution, 1000000000u);       // ns
    EXPECT_EQ(archive.globalOffset, 4035211900500u);  // the Setup marker's begin
    EXPECT_EQ(archive.globalOffset + archive.traceLength, 4035308520000u);  // WorkerDone's end
    EXPECT_EQ(archive.realtime, OTF2_UNDEFINED_TIMESTAMP);  // no clock anchors in the fixture
}

TEST(Otf2Export, RealtimeFromTheClockAnchors) {
    Scratch scratch;
    const std::string trace = scratch.file("anchored.atp");
    writeText(trace, handTrace({{1000, 2000}}, {},
                               "ProcessId=77\nHostName=node7\nClockAnchorStart=CLOCK_MONOTONIC=500;"
                               "CLOCK_MONOTONIC_RAW=600;CLOCK_REALTIME=1700000000000000500\n"));
    const Otf2Contents archive = exportAndRead(scratch, {trace});
    EXPECT_EQ(archive.globalOffset, 1000u);
    EXPECT_EQ(archive.realtime, 1700000000000001000u);
    ASSERT_EQ(archive.groups.size(), 1u);
    EXPECT_EQ(archive.groups.begin()->second.name, "node7:77 (anchored)");
}

TEST(Otf2Export, UnknownDeviceTimesAreLeftOutAndCounted) {
    Scratch scratch;
    ExportCounts counts;
    const Otf2Contents archive =
        exportAndRead(scratch, {kAtpFixtures + "zero_device_times.atp"}, &counts);
    expectProperlyNested(archive);
    EXPECT_EQ(archive.enters("vadd"), 2u);                    // of 3: one without device times
    EXPECT_EQ(archive.enters("CL_COMMAND_READ_BUFFER"), 1u);  // of 2
    EXPECT_EQ(archive.enters("scale"), 1u);                   // of 2 HSA dispatches
    EXPECT_EQ(counts.commandsLeftOut, 3u);
    EXPECT_NE(describeCounts(counts).find("left out: 3 device commands"), std::string::npos);
}

TEST(Otf2Export, CrossingIntervalsAreCutToStayNested) {
    Scratch scratch;
    const std::string trace = scratch.file("cross.atp");
    // The marker starts inside the first call and ends inside the second.
    writeText(trace, handTrace({{1000, 2000}, {3000, 4000}},
                               {beginMarker("Outer", 1500), endMarker(3500)}));
    std::vector<std::string> warnings;
    const Otf2Contents archive = exportAndRead(scratch, {trace}, nullptr, &warnings);
    expectProperlyNested(archive);
    EXPECT_EQ(archive.enters("Outer"), 1u);
    EXPECT_EQ(archive.enters("clFinish"), 2u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("1 interval(s)"), std::string::npos) << warnings[0];
}

TEST(Otf2Export, SeveralTracesOneArchive) {
    Scratch scratch;
    const std::string other = scratch.file("rank1.atp");
    writeText(other, handTrace({{1000, 2000}}, {}, "ProcessId=78\nHostName=node8\n"));
    const Otf2Contents archive = exportAndRead(
        scratch, {kAtpFixtures + "ocl_vecadd.atp", kAtpFixtures + "hsa_reduce.atp", other});
    expectProperlyNested(archive);
    std::vector<std::string> processes;
    for (const auto& [id, group] : archive.groups) {
        if (group.type == OTF2_LOCATION_GROUP_TYPE_PROCESS) processes.push_back(group.name);
    }
    ASSERT_EQ(processes.size(), 3u);
    EXPECT_NE(processes[0].find("(ocl_vecadd)"), std::string::npos);
    EXPECT_NE(processes[1].find("(hsa_reduce)"), std::string::npos);
    EXPECT_EQ(processes[2], "node8:78 (rank1)");
    EXPECT_GT(archive.enters("hsa_queue_create"), 0u);
    EXPECT_EQ(archive.enters("clFinish"), 3u);  // 2 in ocl_vecadd, 1 in rank1
}

TEST(Otf2Export, ExistingArchiveIsRefusedUnlessReplaced) {
    Scratch scratch;
    const std::string target = scratch.file("archive");
    std::string error;
    {
        Otf2Exporter first(Otf2Options{target, false, nullptr});
        ASSERT_TRUE(runExport(first, {kAtpFixtures + "hsa_kernels_only.atp"}, error)) << error;
    }
    const std::string anchor = readText(target + "/traces.otf2");
    Otf2Exporter refused(Otf2Options{target, false, nullptr});
    EXPECT_FALSE(runExport(refused, {kAtpFixtures + "ocl_vecadd.atp"}, error));
    EXPECT_NE(error.find("exists; give --force"), std::string::npos) << error;
    EXPECT_EQ(readText(target + "/traces.otf2"), anchor);
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"archive"});

    Otf2Exporter replacing(Otf2Options{target, true, nullptr});
    ASSERT_TRUE(runExport(replacing, {kAtpFixtures + "ocl_vecadd.atp"}, error)) << error;
    EXPECT_EQ(readOtf2(target + "/traces.otf2").enters("reduce"), 2u);
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"archive"});
}

TEST(Otf2Export, ADirectoryOfOtherFilesIsNeverReplaced) {
    Scratch scratch;
    const std::string target = scratch.file("results");
    std::filesystem::create_directory(target);
    writeText(target + "/notes.txt", "keep me");
    Otf2Exporter exporter(Otf2Options{target, true, nullptr});
    std::string error;
    EXPECT_FALSE(runExport(exporter, {kAtpFixtures + "ocl_vecadd.atp"}, error));
    EXPECT_NE(error.find("not an OTF2 archive"), std::string::npos) << error;
    EXPECT_EQ(readText(target + "/notes.txt"), "keep me");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"results"});
}

TEST(Otf2Export, AFailedExportLeavesNothing) {
    Scratch scratch;
    Otf2Exporter exporter(Otf2Options{scratch.file("archive"), false, nullptr});
    std::string error;
    // The trace is read up to its malformed line, then the export is abandoned.
    EXPECT_FALSE(runExport(
        exporter, {kAtpFixtures + "ocl_vecadd.atp", kAtpFixtures + "bad_count.atp"}, error));
    EXPECT_TRUE(scratch.entries().empty());
    EXPECT_TRUE(exporter.writtenFiles().empty());

    Otf2Exporter unwritable(Otf2Options{scratch.file("no/such/dir/archive"), false, nullptr});
    EXPECT_FALSE(runExport(unwritable, {kAtpFixtures + "ocl_vecadd.atp"}, error));
    EXPECT_NE(error.find("no/such/dir/archive: cannot create"), std::string::npos) << error;
    EXPECT_TRUE(scratch.entries().empty());
}

TEST(Otf2Export, AProcessWithDeviceRecordsOnlyHasItsMainThread) {
    Scratch scratch;
    const Otf2Contents archive = exportAndRead(scratch, {kAtpFixtures + "hsa_kernels_only.atp"});
    expectProperlyNested(archive);
    std::vector<const Otf2LocationInfo*> threads;
    for (const auto& [id, location] : archive.locations) {
        if (location.type == OTF2_LOCATION_TYPE_CPU_THREAD) threads.push_back(&location);
    }
    // An OTF2 process holds at least one CPU thread: the main one, with the measurement window
    // of the process's device records and no region.
    ASSERT_EQ(threads.size(), 1u);
    const std::vector<Otf2Event>& events = threads[0]->events;
    ASSERT_EQ(events.size(), 2u);
    EXPECT_TRUE(events[0].measurement && events[0].enter);
    EXPECT_TRUE(events[1].measurement && !events[1].enter);
    EXPECT_EQ(events[0].time, archive.globalOffset);
    EXPECT_EQ(events[1].time, archive.globalOffset + archive.traceLength);
    EXPECT_EQ(archive.enters("scale"), 1u);
}

// Every trace's intervals through the temporary file (a budget of 0: a run per interval) give
// the archive that memory alone gives, event for event (docs/otf2.md#memory).
TEST(Otf2Export, IntervalsSpilledToTheTemporaryFileGiveTheSameArchive) {
    Scratch scratch;
    // hsa_kernels_only.atp with a third dispatch on its queue, which overlaps the first: two lanes.
    std::string dispatches = readText(kAtpFixtures + "hsa_kernels_only.atp");
    const size_t second = dispatches.find("\nscale");
    ASSERT_NE(second, std::string::npos);
    std::string overlap = dispatches.substr(second);
    const size_t times = overlap.find("4035435001000        4035435900000");
    ASSERT_NE(times, std::string::npos);
    overlap.replace(times, 34, "4035420000000        4035436000000");
    dispatches.replace(dispatches.find("\n2\n"), 3, "\n3\n");
    if (dispatches.back() == '\n') dispatches.pop_back();
    writeText(scratch.file("lanes.atp"), dispatches + overlap + "\n");
    const std::vector<std::string> traces = {
        kAtpFixtures + "ocl_vecadd.atp", kAtpFixtures + "hsa_reduce.atp", scratch.file("lanes.atp"),
        kAtpFixtures + "ocl_stack.atp"};
    Otf2Contents archives[2];
    for (const size_t budget : {size_t{0}, size_t{1} << 30}) {
        Otf2Options options{scratch.file("archive" + std::to_string(budget)), false, nullptr};
        options.memoryBudget = budget;
        Otf2Exporter exporter(options);
        std::string error;
        ASSERT_TRUE(runExport(exporter, traces, error)) << error;
        archives[budget == 0 ? 0 : 1] = readOtf2(options.archiveDir + "/traces.otf2");
    }
    const Otf2Contents& spilled = archives[0];
    const Otf2Contents& kept = archives[1];
    ASSERT_TRUE(spilled.ok && kept.ok);
    expectProperlyNested(spilled);
    EXPECT_EQ(spilled.strings, kept.strings);
    EXPECT_EQ(spilled.eventsRead, kept.eventsRead);
    EXPECT_GT(kept.eventsRead, 100u);
    ASSERT_EQ(spilled.locations.size(), kept.locations.size());
    size_t lanes = 0;
    for (const auto& [id, location] : kept.locations) {
        SCOPED_TRACE(location.name);
        const Otf2LocationInfo& other = spilled.locations.at(id);
        EXPECT_EQ(other.name, location.name);
        EXPECT_EQ(other.group, location.group);
        EXPECT_EQ(other.declaredEvents, location.declaredEvents);
        ASSERT_EQ(other.events.size(), location.events.size());
        for (size_t i = 0; i < location.events.size(); ++i) {
            const Otf2Event& a = other.events[i];
            const Otf2Event& b = location.events[i];
            EXPECT_TRUE(a.enter == b.enter && a.measurement == b.measurement && a.time == b.time &&
                        a.region == b.region && a.attributes == b.attributes)
                << "event " << i;
        }
        lanes += location.name.find(" #") != std::string::npos ? 1 : 0;
    }
    EXPECT_GT(lanes, 0u);  // a queue spread over lanes went through the lanes' store too
}

// A full disk under the temporary file of intervals (a file-size limit: EFBIG, the same path as
// ENOSPC) fails the export with the file's directory and reason, and leaves nothing.
TEST(Otf2Export, ATemporaryFileThatCannotBeWrittenFailsTheExport) {
    Scratch scratch;
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    for (uint64_t i = 1; i <= 2000; ++i) calls.emplace_back(i * 1000, i * 1000 + 500);
    const std::string trace = scratch.file("calls.atp");
    writeText(trace, handTrace(calls, {}));
    Otf2Options options{scratch.file("archive"), false, nullptr};
    options.memoryBudget = 0;
    Otf2Exporter exporter(options);
    std::string error;
    bool exported = true;
    {
        FileSizeLimit limit(16384);
        ASSERT_TRUE(limit.set());
        exported = runExport(exporter, {trace}, error);
    }
    EXPECT_FALSE(exported);
    EXPECT_NE(error.find("cannot write the temporary file of intervals in " + scratch.path() +
                         "/archive.tmp."),
              std::string::npos)
        << error;
    EXPECT_NE(error.find(": File too large"), std::string::npos) << error;
    EXPECT_TRUE(exporter.writtenFiles().empty());
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"calls.atp"});
}

TEST(Otf2Export, AProcessWithoutUsableRecordsIsLeftOut) {
    Scratch scratch;
    const std::string trace = scratch.file("untimed.atp");
    writeText(trace, handTrace({{0, 0}}, {}));
    ExportCounts counts;
    std::vector<std::string> warnings;
    const Otf2Contents archive =
        exportAndRead(scratch, {trace, kAtpFixtures + "ocl_vecadd.atp"}, &counts, &warnings);
    expectProperlyNested(archive);
    EXPECT_EQ(counts.processes, 1u);
    EXPECT_EQ(counts.callsLeftOut, 1u);
    ASSERT_FALSE(warnings.empty());
    EXPECT_NE(warnings[0].find("untimed.atp: no record with usable times"), std::string::npos);
}

}  // namespace
}  // namespace perfmarker::exporter::db::test
