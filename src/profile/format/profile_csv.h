// The kernel profile file (docs/profile.md#the-csv-file): the original profiler's per-dispatch
// performance-counter CSV. Header lines `#Key=Value` in their order, one column line, one row per
// kernel dispatch. Written by the OpenCL profile layer and the HSA agent, read by the tools
// (profile/read), formatted in this one place.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfmarker::profile {

enum class ProfileApi : uint8_t { OpenCL, Hsa };

inline constexpr std::string_view kProfileFileVersion = "5.6";

// One `#Device <name> ...` group of an OpenCL profile: `#Device <name> Platform Vendor=...`,
// `#Device <name> Platform Name=...` and so on, one line per property, in the order given
// (Platform Vendor, Platform Name, Platform Version, CLDriver Version, CLRuntime Version,
// NumberAppAddressBits, then Board Name and PCIE device id where known).
struct DeviceDescription {
    std::string name;
    std::vector<std::pair<std::string, std::string>> properties;
};

// What the header says about the run.
struct ProfileHeader {
    ProfileApi api = ProfileApi::OpenCL;
    std::string application;  // absolute path of the profiled executable
    std::vector<std::string> applicationArgs;
    std::string workingDirectory;
    std::optional<bool> fullEnvironment;  // #FullEnvironment= and #EnvVar= lines when set
    std::vector<std::pair<std::string, std::string>> envVars;
    std::vector<DeviceDescription> devices;  // OpenCL only
    std::string osVersion;                   // empty: atp::osVersionString()
    std::string displayName;
    char listSeparator = ',';
};

// A counter column: its name and whether its values are whole numbers (`%lu`) or not
// (`%12.2f`).
enum class CounterKind : uint8_t { Integer, Float };
struct CounterColumn {
    std::string name;
    CounterKind kind = CounterKind::Integer;
};

// One kernel dispatch. Unknown values are empty optionals and are written as `NA`.
struct DispatchRow {
    std::string method;  // methodName()
    uint64_t executionOrder = 0;  // 1-based, per file
    uint64_t threadId = 0;
    uint64_t callIndex = 0;  // OpenCL only
    std::array<uint64_t, 3> globalSize{};  // work-items per dimension (unused dimensions 1)
    std::array<uint64_t, 3> groupSize{};   // all zero: the application passed none (`NULL`)
    std::optional<double> timeMs;          // OpenCL only
    std::optional<uint64_t> localMemBytes;
    std::optional<uint64_t> vgprs;
    std::optional<uint64_t> sgprs;
    std::optional<uint64_t> scratchRegs;      // OpenCL only
    std::optional<uint64_t> privateMemBytes;  // ours: private memory per work-item
    std::vector<double> counters;  // one per counter column, in order (Integer ones whole)
};

// The column names in file order: the original's fixed columns of the API, our
// `PrivateMemSize`, then the counters.
//   OpenCL: Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize, Time,
//           LocalMemSize, VGPRs, SGPRs, ScratchRegs, PrivateMemSize, <counters>
//   HSA:    Method, ExecutionOrder, ThreadID, GlobalWorkSize, WorkGroupSize, LocalMemSize,
//           VGPRs, SGPRs, PrivateMemSize, <counters>
std::vector<std::string> columnNames(ProfileApi api, const std::vector<CounterColumn>& counters);

// The header lines (each `#Key=Value\n`, §9.1 order) and the column line (names joined by
// `<separator><space>`), ending in '\n'.
std::string formatProfileHeader(const ProfileHeader& header,
                                const std::vector<CounterColumn>& counters);

// One row, values joined by `<separator><space>`, ending in '\n': sizes as `{%7lu %7lu %7lu}`
// and `{%5lu %5lu %5lu}` (`NULL` for an all-zero OpenCL group size), Time as `%15.5f`, unknown
// values `NA`, Integer counters `%lu`, Float counters `%12.2f`.
std::string formatDispatchRow(ProfileApi api, char listSeparator, const DispatchRow& row,
                              const std::vector<CounterColumn>& counters);

// `<kernel>__k<kernelId>_<deviceName><deviceNumber>` for a GPU (deviceNumber 1-based), and
// `<kernel>__k<kernelId>_CPU` for a CPU device.
std::string methodName(std::string_view kernel, uint64_t kernelId, std::string_view deviceName,
                       unsigned deviceNumber, bool isGpu);

}  // namespace perfmarker::profile
