// The HSA agent's profile mode (profiler_hooks/hsa/profile_mode.h, docs/profile.md#hsa) through
// the constructed runtime: kernels with known packet fields and constructed descriptors, then
// the CSV and `.occupancy` rows read back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_harness.h"
#include "atp/format/atp_header.h"
#include "profile/format/kernel_descriptor.h"

namespace perfmarker::test {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSecondKernel = 0x7F8C3A2B2000ull;  // no symbol: named by its handle

std::array<unsigned char, 64> descriptor(uint32_t vgprField, uint32_t sgprField) {
    profile::KernelDescriptor d;
    d.computePgmRsrc1 = vgprField | (sgprField << 6);
    return profile::writeKernelDescriptor(d);
}

// Read by the agent directly when the runtime has no loader extension.
const std::array<unsigned char, 64> kHostDescriptor = descriptor(15, 3);

// In the child: the profile output next to the trace the harness would write.
void setProfileOutput() {
    const fs::path dir = fs::path(std::getenv("PERFMARKER_OUTPUT")).parent_path();
    setenv("PERFMARKER_PROFILE_OUTPUT", (dir / "p.___PID___.csv").c_str(), 1);
}

hsa_queue_t* gpuQueue(FakeRuntime& rt) {
    hsa_queue_t* q = nullptr;
    CHILD_CHECK(rt.core().hsa_queue_create_fn(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                                              UINT32_MAX, UINT32_MAX, &q) == HSA_STATUS_SUCCESS);
    return q;
}

hsa_kernel_dispatch_packet_t packet(uint64_t kernelObject, uint32_t gx, uint32_t gy, uint16_t wx,
                                    uint16_t wy, uint32_t group, uint32_t priv, hsa_signal_t done) {
    hsa_kernel_dispatch_packet_t p = dispatchPacket(done);
    p.setup = 2;
    p.kernel_object = kernelObject;
    p.grid_size_x = gx, p.grid_size_y = gy, p.grid_size_z = 1;
    p.workgroup_size_x = wx, p.workgroup_size_y = wy, p.workgroup_size_z = 1;
    p.group_segment_size = group;
    p.private_segment_size = priv;
    return p;
}

struct ProfileFiles {
    std::string pid;  // from the file name (___PID___)
    std::vector<std::string> csv;
    std::vector<std::string> occupancy;
    std::vector<std::string> others;  // anything else the run left in the directory
};

std::vector<std::string> readLines(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

ProfileFiles readProfile(const TracedRun& run) {
    ProfileFiles files;
    for (const auto& entry : fs::directory_iterator(fs::path(run.atpPath).parent_path())) {
        const std::string name = entry.path().filename().string();
        const bool ours = name.rfind("p.", 0) == 0;
        if (ours && entry.path().extension() == ".csv") {
            files.pid = name.substr(2, name.size() - 6);
            files.csv = readLines(entry.path());
        } else if (ours && entry.path().extension() == ".occupancy") {
            files.occupancy = readLines(entry.path());
        } else if (name != "stderr.txt") {
            files.others.push_back(name);
        }
    }
    return files;
}

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIX64, value);
    return text;
}

const char kOccupancyColumns[] =
    "Thread ID,Kernel Name,Device Name,Number of compute units,Max. number of wavefronts per CU,"
    "Max. number of work-group per CU,Max. number of VGPR,Max. number of SGPR,Max. amount of LDS,"
    "Number of VGPR used,Number of SGPR used,Amount of LDS used,Size of wavefront,Work-group size,"
    "Wavefronts per work-group,Max work-group size,Max wavefronts per work-group,Global work size,"
    "Maximum global work size,Nbr VGPR-limited waves,Nbr SGPR-limited waves,Nbr LDS-limited "
    "waves,Nbr of WG-limited waves,Kernel occupancy,Graphics IP Version,Number of SIMDs per CU";

TEST(HsaProfile, OneCsvRowAndOneOccupancyRowPerDispatch) {
    const TracedRun run = runTraced("profile", [](FakeRuntime& rt, const Agent& agent) {
        setProfileOutput();
        const auto first = descriptor(15, 3);   // 64 VGPRs, 32 SGPRs on gfx900
        const auto second = descriptor(5, 11);  // 24 VGPRs, 96 SGPRs
        rt.setKernelDescriptor(kKernelObject, first.data());
        rt.setKernelDescriptor(kSecondKernel, second.data());
        CHILD_CHECK(load(rt, agent));
        CoreApiTable& t = rt.core();
        hsa_executable_symbol_t symbol{};
        const hsa_agent_t device = gpu();
        CHILD_CHECK(t.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{1}, kKernelSymbol,
                                                           &device, &symbol) == HSA_STATUS_SUCCESS);
        hsa_queue_t* q = gpuQueue(rt);
        hsa_signal_t done{};
        CHILD_CHECK(t.hsa_signal_create_fn(3, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
        rt.submit(q, packet(kKernelObject, 1048576, 1, 256, 1, 8192, 48, done));
        rt.submit(q, packet(kSecondKernel, 256, 4, 16, 2, 4096, 0, done));
        rt.submit(q, packet(kKernelObject, 1048576, 1, 256, 1, 8192, 48, done));
        // The packets reach the hardware unchanged: the application's signal completes at once.
        CHILD_CHECK(rt.execute(q, 100, 200) == 3);
        CHILD_CHECK(t.hsa_signal_load_relaxed_fn(done) == 0);
        CHILD_CHECK(t.hsa_queue_destroy_fn(q) == HSA_STATUS_SUCCESS);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    EXPECT_FALSE(run.haveAtp);  // a profile writes no trace
    const ProfileFiles files = readProfile(run);
    EXPECT_TRUE(files.others.empty()) << files.others.front();
    ASSERT_FALSE(files.pid.empty());
    const std::string& pid = files.pid;  // the main thread's id is the process id
    const std::string self = fs::read_symlink("/proc/self/exe").string();

    ASSERT_EQ(files.csv.size(), 13u) << run.childErrors;
    EXPECT_EQ(files.csv[0], "#ProfileFileVersion=5.6");
    EXPECT_EQ(files.csv[1], "#ProfilerVersion=" + std::string(atp::profilerVersion()));
    EXPECT_EQ(files.csv[2], "#API=HSA");
    EXPECT_EQ(files.csv[3], "#Application=" + self);
    EXPECT_EQ(files.csv[4].rfind("#ApplicationArgs=", 0), 0u);
    EXPECT_EQ(files.csv[5], "#WorkingDirectory=" + fs::current_path().string());
    EXPECT_EQ(files.csv[6].rfind("#OS Version=", 0), 0u);
    EXPECT_EQ(files.csv[7], "#DisplayName=");
    EXPECT_EQ(files.csv[8], "#ListSeparator=,");
    EXPECT_EQ(files.csv[9],
              "Method, ExecutionOrder, ThreadID, GlobalWorkSize, WorkGroupSize, LocalMemSize, "
              "VGPRs, SGPRs, PrivateMemSize");
    // Kernel 1 is named through its symbol, kernel 2 by its handle; gfx900 is the first agent of
    // its name. Sizes from the packet; registers from the descriptor: (15 + 1) * 4 = 64 VGPRs and
    // (3 / 2 + 1) * 16 = 32 SGPRs, then (5 + 1) * 4 = 24 and (11 / 2 + 1) * 16 = 96.
    const std::string first = "_Z6reducePfS_i__k1_gfx9001, 1, " + pid +
                              ", {1048576       1       1}, {  256     1     1}, 8192, 64, 32, 48";
    EXPECT_EQ(files.csv[10], first);
    EXPECT_EQ(files.csv[11],
              "0x7F8C3A2B2000__k2_gfx9001, 2, " + pid +
                  ", {    256       4       1}, {   16     2     1}, 4096, 24, 96, 0");
    EXPECT_EQ(files.csv[12],
              "_Z6reducePfS_i__k1_gfx9001, 3, " + pid +
                  ", {1048576       1       1}, {  256     1     1}, 8192, 64, 32, 48");

    ASSERT_EQ(files.occupancy.size(), 9u) << run.childErrors;
    EXPECT_EQ(files.occupancy[0], "# ProfilerVersion=" + std::string(atp::profilerVersion()));
    EXPECT_EQ(files.occupancy[1], "# Application=" + self);
    EXPECT_EQ(files.occupancy[2].rfind("# ApplicationArgs=", 0), 0u);
    EXPECT_EQ(files.occupancy[3], "# ListSeparator=,");
    EXPECT_EQ(files.occupancy[4], "# KernelCount=3");
    EXPECT_EQ(files.occupancy[5], kOccupancyColumns);
    // gfx900, 64 CUs x 4 SIMDs, 40 waves per CU. Kernel 1: 256 work-items = 4 waves; VGPRs
    // 256 / 64 = 4 per SIMD -> 16; SGPRs 800 / 32 -> 10 per SIMD -> 40; LDS 65536 / 8192 = 8
    // groups -> 32; groups min(16, 40 / 4) -> 40; 16 / 40 = 40 %.
    const std::string firstOccupancy = pid +
                                       ",_Z6reducePfS_i,gfx900,64,40,16,256,102,65536,64,32,8192,"
                                       "64,256,4,1024,16,1048576,4294967295,16,40,32,40,40,9,4";
    EXPECT_EQ(files.occupancy[6], firstOccupancy);
    // Kernel 2: 32 work-items = 1 wave; VGPRs 256 / 24 -> 10 -> 40; SGPRs 800 / 96 = 8 -> 32;
    // LDS 65536 / 4096 = 16 groups of 1 wave -> 16; one-wave groups -> 40; 16 / 40 = 40 %.
    EXPECT_EQ(files.occupancy[7], pid +
                                      ",0x7F8C3A2B2000,gfx900,64,40,16,256,102,65536,24,96,4096,64,"
                                      "32,1,1024,16,1024,4294967295,40,32,16,40,40,9,4");
    EXPECT_EQ(files.occupancy[8], firstOccupancy);
}

TEST(HsaProfile, DescriptorReadDirectlyWithoutTheLoaderExtension) {
    const TracedRun run = runTraced("profile_direct", [](FakeRuntime& rt, const Agent& agent) {
        setProfileOutput();
        rt.offerLoaderExtension(false);
        CHILD_CHECK(load(rt, agent));
        hsa_queue_t* q = gpuQueue(rt);
        const auto direct = reinterpret_cast<uint64_t>(kHostDescriptor.data());
        rt.submit(q, packet(direct, 64, 1, 64, 1, 0, 16, hsa_signal_t{0}));
        rt.submit(q, packet(0x10, 64, 1, 64, 1, 0, 0, hsa_signal_t{0}));  // nothing readable there
        CHILD_CHECK(rt.execute(q, 100, 200) == 2);
        CHILD_CHECK(rt.core().hsa_queue_destroy_fn(q) == HSA_STATUS_SUCCESS);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const ProfileFiles files = readProfile(run);
    ASSERT_EQ(files.csv.size(), 12u) << run.childErrors;
    const std::string direct = hex(reinterpret_cast<uint64_t>(kHostDescriptor.data()));
    EXPECT_EQ(files.csv[10], direct + "__k1_gfx9001, 1, " + files.pid +
                                 ", {     64       1       1}, {   64     1     1}, 0, 64, 32, 16");
    EXPECT_EQ(files.csv[11], "0x10__k2_gfx9001, 2, " + files.pid +
                                 ", {     64       1       1}, {   64     1     1}, 0, NA, NA, 0");
    // Only the readable kernel has an occupancy row: 64 VGPRs -> 16 waves of 40 = 40 %.
    ASSERT_EQ(files.occupancy.size(), 7u);
    EXPECT_EQ(files.occupancy[4], "# KernelCount=1");
    EXPECT_EQ(files.occupancy[6], files.pid + "," + direct +
                                      ",gfx900,64,40,16,256,102,65536,64,32,0,64,64,1,1024,16,64,"
                                      "4294967295,16,40,40,40,40,9,4");
}

TEST(HsaProfile, WithoutDispatchesBothFilesHaveTheirHeaders) {
    const TracedRun run = runTraced("profile_none", [](FakeRuntime& rt, const Agent& agent) {
        setProfileOutput();
        CHILD_CHECK(load(rt, agent));
        // No OnUnload: the library's destructor at exit writes the files.
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const ProfileFiles files = readProfile(run);
    EXPECT_TRUE(files.others.empty()) << files.others.front();
    ASSERT_EQ(files.csv.size(), 10u);
    EXPECT_EQ(files.csv[9].rfind("Method, ExecutionOrder", 0), 0u);
    ASSERT_EQ(files.occupancy.size(), 6u);
    EXPECT_EQ(files.occupancy[4], "# KernelCount=0");
}

}  // namespace
}  // namespace perfmarker::test
