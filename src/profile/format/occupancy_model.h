// The occupancy model (docs/profile.md#occupancy): how many waves of a dispatch fit on one
// compute unit at once, limited by the VGPRs, SGPRs and LDS it uses and by the work-group slots,
// from one table of per-generation limits. Its result is one row of the `.occupancy` file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "profile/format/kernel_descriptor.h"

namespace perfmarker::profile {

// One generation's published limits (docs/profile.md#the-generation-table). Per compute unit;
// on gfx10+ a compute unit is half a work-group processor (2 of its 4 SIMDs, half its LDS).
struct GenerationLimits {
    std::string_view name;        // e.g. "CDNA2 (gfx90a)"
    uint32_t simdsPerCu;          // SIMDs per compute unit
    uint32_t maxWavesPerSimd;     // wave slots per SIMD
    uint32_t vgprsPerLaneWave64;  // VGPR file per SIMD lane, in registers, for wave64
    uint32_t vgprsPerLaneWave32;  // the same for wave32 (0: no wave32)
    uint32_t vgprGranuleWave64;   // VGPR allocation granule, wave64
    uint32_t vgprGranuleWave32;   // VGPR allocation granule, wave32
    uint32_t maxVgprsPerWave;     // addressable VGPRs of one work-item
    uint32_t sgprsPerSimd;        // SGPR file per SIMD (0: SGPRs never limit)
    uint32_t sgprGranule;         // SGPR allocation granule
    uint32_t maxSgprsPerWave;     // addressable SGPRs of one wave
    uint32_t ldsBytesPerCu;       // LDS one compute unit's work-groups share
    uint32_t maxLdsPerWorkgroup;  // LDS one work-group may use
    uint32_t ldsGranule;          // LDS allocation granule, bytes
    uint32_t maxWorkgroupsPerCu;  // work-groups of more than one wave (barrier slots)
};

// The row of the table for `ip`, or null for a generation the model does not know.
const GenerationLimits* generationLimits(const GfxIp& ip);

// What the runtime says about the agent. Zero means "use the table's value".
struct AgentProperties {
    std::string name;  // the device name written to the file (HSA_AGENT_INFO_NAME)
    GfxIp gfxIp;
    uint32_t computeUnits = 0;
    uint32_t simdsPerCu = 0;
    uint32_t ldsBytesPerCu = 0;
    uint32_t maxWorkgroupSize = 1024;
    uint64_t maxGridSize = 0xFFFFFFFFull;
};

// What one dispatch uses.
struct DispatchUse {
    uint64_t threadId = 0;
    std::string kernelName;
    uint32_t waveSize = 64;
    uint32_t vgprs = 0;     // per work-item, against the VGPR budget (KernelResources::vgprBudget)
    uint32_t sgprs = 0;     // per wave
    uint32_t ldsBytes = 0;  // per work-group: static plus dynamic (the dispatch packet's)
    uint32_t workgroupSize = 0;  // work-items of one work-group (flattened)
    uint64_t globalSize = 0;     // work-items of the grid (flattened)
};

enum class OccupancyLimiter : uint8_t { None, Vgpr, Sgpr, Lds, Workgroup };

// "None", "VGPR", "SGPR", "LDS", "Workgroup".
std::string_view limiterName(OccupancyLimiter limiter);

// The 26 values of an `.occupancy` row (in column order) and what limits the occupancy.
struct OccupancyRow {
    uint64_t threadId = 0;
    std::string kernelName;
    std::string deviceName;
    uint32_t computeUnits = 0;
    uint32_t maxWavesPerCu = 0;
    uint32_t maxWorkgroupsPerCu = 0;
    uint32_t maxVgprs = 0;
    uint32_t maxSgprs = 0;
    uint32_t maxLds = 0;
    uint32_t vgprsUsed = 0;
    uint32_t sgprsUsed = 0;
    uint32_t ldsUsed = 0;
    uint32_t waveSize = 0;
    uint32_t workgroupSize = 0;
    uint32_t wavesPerWorkgroup = 0;
    uint32_t maxWorkgroupSize = 0;
    uint32_t maxWavesPerWorkgroup = 0;
    uint64_t globalSize = 0;
    uint64_t maxGlobalSize = 0;
    uint32_t vgprLimitedWaves = 0;  // waves per CU, whole work-groups
    uint32_t sgprLimitedWaves = 0;
    uint32_t ldsLimitedWaves = 0;
    uint32_t workgroupLimitedWaves = 0;
    double occupancyPercent = 0;  // min of the four / maxWavesPerCu * 100
    uint32_t gfxIpMajor = 0;      // the "Graphics IP Version" column
    uint32_t simdsPerCu = 0;
    OccupancyLimiter limiter = OccupancyLimiter::None;  // not a column
};

// The model (docs/profile.md#occupancy); nullopt when the agent's generation is not in the
// table or the dispatch has no work-items.
std::optional<OccupancyRow> computeOccupancy(const AgentProperties& agent, const DispatchUse& use);

}  // namespace perfmarker::profile
