// The occupancy model and its generation table (docs/profile.md#occupancy).
#include "profile/format/occupancy_model.h"

#include <algorithm>
#include <array>

namespace perfmarker::profile {
namespace {

// docs/profile.md#the-generation-table: each number is a published limit of the generation.
// Columns: name, SIMDs/CU, waves/SIMD, VGPR file per lane (wave64, wave32), VGPR granule (wave64,
// wave32), max VGPRs/wave, SGPR file per SIMD, SGPR granule, max SGPRs/wave, LDS per CU, max LDS
// per work-group, LDS granule, work-groups per CU.
enum Row : size_t { kGcn, kCdna2, kCdna3, kCdna4, kRdna1, kRdna2, kRdna3Full, kRdna3, kRowCount };

constexpr std::array<GenerationLimits, kRowCount> kTable = {{
    {"GCN (gfx8, gfx9)", 4, 10, 256, 0, 4, 0, 256, 800, 16, 102, 65536, 65536, 512, 16},
    {"CDNA2 (gfx90a)", 4, 8, 512, 0, 8, 0, 512, 800, 16, 102, 65536, 65536, 512, 16},
    {"CDNA3 (gfx94x)", 4, 8, 512, 0, 8, 0, 512, 800, 16, 102, 65536, 65536, 512, 16},
    {"CDNA4 (gfx95x)", 4, 8, 512, 0, 8, 0, 512, 800, 16, 102, 163840, 163840, 512, 16},
    {"RDNA1 (gfx101x)", 2, 20, 512, 1024, 4, 8, 256, 0, 128, 106, 65536, 65536, 512, 16},
    {"RDNA2 (gfx103x)", 2, 16, 512, 1024, 8, 16, 256, 0, 128, 106, 65536, 65536, 512, 16},
    {"RDNA3 (gfx1100, gfx1101, gfx1151)", 2, 16, 768, 1536, 12, 24, 256, 0, 128, 106, 65536, 65536,
     512, 16},
    {"RDNA3 (gfx1102, gfx1103, gfx115x)", 2, 16, 512, 1024, 8, 16, 256, 0, 128, 106, 65536, 65536,
     512, 16},
}};

// The gfx11 parts with the larger (1.5x) VGPR file.
bool hasLargeVgprFile(const GfxIp& ip) {
    return ip.major == 11 &&
           ((ip.minor == 0 && ip.stepping <= 1) || (ip.minor == 5 && ip.stepping == 1));
}

std::optional<Row> rowOf(const GfxIp& ip) {
    switch (ip.major) {
        case 8:
            return kGcn;
        case 9:
            if (ip.minor == 0) return ip.stepping == 0xa ? kCdna2 : kGcn;
            if (ip.minor == 4) return kCdna3;
            if (ip.minor == 5) return kCdna4;
            return std::nullopt;
        case 10:
            if (ip.minor == 1) return kRdna1;
            if (ip.minor == 3) return kRdna2;
            return std::nullopt;
        case 11:
            return hasLargeVgprFile(ip) ? kRdna3Full : kRdna3;
        default:
            return std::nullopt;
    }
}

uint64_t roundUp(uint64_t value, uint64_t granule) {
    return granule == 0 ? value : (value + granule - 1) / granule * granule;
}

uint32_t ceilDiv(uint64_t value, uint64_t by) {
    return static_cast<uint32_t>((value + by - 1) / by);
}

// Waves per SIMD that `used` registers of a file of `file` entries leave room for.
uint32_t wavesPerSimd(uint32_t used, uint32_t file, uint32_t granule, uint32_t maxWaves) {
    if (used == 0 || file == 0) return maxWaves;
    const uint64_t waves = file / roundUp(used, granule);
    return static_cast<uint32_t>(std::min<uint64_t>(waves, maxWaves));
}

struct Shape {
    uint32_t maxWavesPerCu;
    uint32_t wavesPerWorkgroup;
    // Waves of whole work-groups within `waves` and the CU's wave slots.
    uint32_t whole(uint64_t waves) const {
        const uint64_t capped = std::min<uint64_t>(waves, maxWavesPerCu);
        return static_cast<uint32_t>(capped / wavesPerWorkgroup * wavesPerWorkgroup);
    }
};

void fillLimits(const GenerationLimits& g, const AgentProperties& agent, const DispatchUse& use,
                const Shape& shape, OccupancyRow& row) {
    const uint32_t simds = row.simdsPerCu;
    const bool wave32 = row.waveSize == 32;
    const uint32_t vgprFile = wave32 ? g.vgprsPerLaneWave32 : g.vgprsPerLaneWave64;
    const uint32_t vgprGranule = wave32 ? g.vgprGranuleWave32 : g.vgprGranuleWave64;
    row.vgprLimitedWaves = shape.whole(
        uint64_t{wavesPerSimd(use.vgprs, vgprFile, vgprGranule, g.maxWavesPerSimd)} * simds);
    row.sgprLimitedWaves = shape.whole(
        uint64_t{wavesPerSimd(use.sgprs, g.sgprsPerSimd, g.sgprGranule, g.maxWavesPerSimd)} *
        simds);
    const uint64_t ldsPerCu = agent.ldsBytesPerCu != 0 ? agent.ldsBytesPerCu : g.ldsBytesPerCu;
    if (use.ldsBytes == 0) {
        row.ldsLimitedWaves = shape.whole(shape.maxWavesPerCu);
    } else if (use.ldsBytes > g.maxLdsPerWorkgroup) {
        row.ldsLimitedWaves = 0;
    } else {
        const uint64_t groups = ldsPerCu / roundUp(use.ldsBytes, g.ldsGranule);
        row.ldsLimitedWaves = shape.whole(groups * shape.wavesPerWorkgroup);
    }
    // A single-wave work-group needs no barrier, so only the wave slots bound it.
    const uint64_t groups = shape.wavesPerWorkgroup == 1
                                ? shape.maxWavesPerCu
                                : std::min<uint64_t>(g.maxWorkgroupsPerCu,
                                                     shape.maxWavesPerCu / shape.wavesPerWorkgroup);
    row.workgroupLimitedWaves = shape.whole(groups * shape.wavesPerWorkgroup);
}

OccupancyLimiter limiterOf(const OccupancyRow& row, uint32_t least) {
    if (least == row.maxWavesPerCu) return OccupancyLimiter::None;
    // A resource limits only when it allows less than the work-group slots do.
    const std::array<std::pair<uint32_t, OccupancyLimiter>, 3> resources = {{
        {row.vgprLimitedWaves, OccupancyLimiter::Vgpr},
        {row.sgprLimitedWaves, OccupancyLimiter::Sgpr},
        {row.ldsLimitedWaves, OccupancyLimiter::Lds},
    }};
    for (const auto& [waves, limiter] : resources) {
        if (waves == least && waves < row.workgroupLimitedWaves) return limiter;
    }
    return OccupancyLimiter::Workgroup;
}

}  // namespace

const GenerationLimits* generationLimits(const GfxIp& ip) {
    const std::optional<Row> row = rowOf(ip);
    return row ? &kTable[*row] : nullptr;
}

std::string_view limiterName(OccupancyLimiter limiter) {
    switch (limiter) {
        case OccupancyLimiter::Vgpr:
            return "VGPR";
        case OccupancyLimiter::Sgpr:
            return "SGPR";
        case OccupancyLimiter::Lds:
            return "LDS";
        case OccupancyLimiter::Workgroup:
            return "Workgroup";
        case OccupancyLimiter::None:
            break;
    }
    return "None";
}

std::optional<OccupancyRow> computeOccupancy(const AgentProperties& agent, const DispatchUse& use) {
    const GenerationLimits* g = generationLimits(agent.gfxIp);
    if (g == nullptr || use.workgroupSize == 0) return std::nullopt;
    OccupancyRow row;
    row.threadId = use.threadId;
    row.kernelName = use.kernelName;
    row.deviceName = agent.name;
    row.computeUnits = agent.computeUnits;
    row.simdsPerCu = agent.simdsPerCu != 0 ? agent.simdsPerCu : g->simdsPerCu;
    row.waveSize = use.waveSize == 32 && g->vgprsPerLaneWave32 != 0 ? 32 : 64;
    row.maxWavesPerCu = g->maxWavesPerSimd * row.simdsPerCu;
    row.maxWorkgroupsPerCu = g->maxWorkgroupsPerCu;
    row.maxVgprs = g->maxVgprsPerWave;
    row.maxSgprs = g->maxSgprsPerWave;
    row.maxLds = g->maxLdsPerWorkgroup;
    row.vgprsUsed = use.vgprs;
    row.sgprsUsed = use.sgprs;
    row.ldsUsed = use.ldsBytes;
    row.workgroupSize = use.workgroupSize;
    row.wavesPerWorkgroup = ceilDiv(use.workgroupSize, row.waveSize);
    row.maxWorkgroupSize = agent.maxWorkgroupSize;
    row.maxWavesPerWorkgroup = ceilDiv(agent.maxWorkgroupSize, row.waveSize);
    row.globalSize = use.globalSize;
    row.maxGlobalSize = agent.maxGridSize;
    row.gfxIpMajor = agent.gfxIp.major;
    const Shape shape{row.maxWavesPerCu, row.wavesPerWorkgroup};
    fillLimits(*g, agent, use, shape, row);
    const uint32_t least = std::min({row.vgprLimitedWaves, row.sgprLimitedWaves,
                                     row.ldsLimitedWaves, row.workgroupLimitedWaves});
    row.occupancyPercent = 100.0 * least / row.maxWavesPerCu;
    row.limiter = limiterOf(row, least);
    return row;
}

}  // namespace perfmarker::profile
