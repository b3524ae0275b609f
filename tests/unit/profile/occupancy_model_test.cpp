// The occupancy model (src/profile/format/occupancy_model.h, docs/profile.md#occupancy), with
// constructed descriptors and agent properties; each expected value is worked out in a comment
// from the generation's published limits (docs/profile.md#the-generation-table).
#include "profile/format/occupancy_model.h"

#include <gtest/gtest.h>

namespace perfmarker::profile {
namespace {

AgentProperties agent(const char* gfx, uint32_t computeUnits) {
    AgentProperties a;
    a.name = gfx;
    a.gfxIp = parseGfxIp(gfx).value();
    a.computeUnits = computeUnits;
    return a;
}

// A dispatch using what the descriptor says (VGPR budget, SGPRs) and `lds` bytes per group.
DispatchUse use(const char* gfx, uint32_t rsrc1, uint32_t rsrc3, uint16_t properties, uint32_t lds,
                uint32_t workgroupSize, uint64_t globalSize) {
    KernelDescriptor d;
    d.computePgmRsrc1 = rsrc1;
    d.computePgmRsrc3 = rsrc3;
    d.kernelCodeProperties = properties;
    const KernelResources r = decodeKernelResources(d, parseGfxIp(gfx).value()).value();
    DispatchUse u;
    u.threadId = 77;
    u.kernelName = "kernel";
    u.waveSize = r.waveSize;
    u.vgprs = r.vgprBudget;
    u.sgprs = r.sgprs;
    u.ldsBytes = lds;
    u.workgroupSize = workgroupSize;
    u.globalSize = globalSize;
    return u;
}

constexpr uint32_t rsrc1(uint32_t vgprField, uint32_t sgprField) {
    return vgprField | (sgprField << 6);
}
constexpr uint16_t kWave32 = 1u << 10;

TEST(OccupancyModel, TableRowsPerGeneration) {
    EXPECT_EQ(generationLimits(GfxIp{9, 0, 0})->name, "GCN (gfx8, gfx9)");
    EXPECT_EQ(generationLimits(GfxIp{9, 0, 8})->name, "GCN (gfx8, gfx9)");
    EXPECT_EQ(generationLimits(GfxIp{9, 0, 10})->name, "CDNA2 (gfx90a)");
    EXPECT_EQ(generationLimits(GfxIp{9, 4, 2})->name, "CDNA3 (gfx94x)");
    EXPECT_EQ(generationLimits(GfxIp{10, 1, 0})->name, "RDNA1 (gfx101x)");
    EXPECT_EQ(generationLimits(GfxIp{10, 3, 0})->name, "RDNA2 (gfx103x)");
    EXPECT_EQ(generationLimits(GfxIp{11, 0, 0})->name, "RDNA3 (gfx1100, gfx1101, gfx1151)");
    EXPECT_EQ(generationLimits(GfxIp{11, 0, 2})->name, "RDNA3 (gfx1102, gfx1103, gfx115x)");
    EXPECT_EQ(generationLimits(GfxIp{7, 0, 0}), nullptr);
    EXPECT_EQ(generationLimits(GfxIp{10, 2, 0}), nullptr);
}

TEST(OccupancyModel, Gfx900VgprLimited) {
    // gfx900: 4 SIMDs x 10 wave slots = 40 waves per CU; 256 VGPRs per lane, granule 4;
    // 800 SGPRs per SIMD, granule 16; 64 KiB LDS, granule 512; 16 work-groups per CU.
    // Kernel: 64 VGPRs, 32 SGPRs, 8 KiB LDS, 256 work-items = 4 waves of 64.
    const std::optional<OccupancyRow> row = computeOccupancy(
        agent("gfx900", 64), use("gfx900", rsrc1(15, 3), 0, 0, 8192, 256, 1 << 20));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->maxWavesPerCu, 40u);
    EXPECT_EQ(row->maxWorkgroupsPerCu, 16u);
    EXPECT_EQ(row->maxVgprs, 256u);
    EXPECT_EQ(row->maxSgprs, 102u);
    EXPECT_EQ(row->maxLds, 65536u);
    EXPECT_EQ(row->vgprsUsed, 64u);
    EXPECT_EQ(row->sgprsUsed, 32u);
    EXPECT_EQ(row->ldsUsed, 8192u);
    EXPECT_EQ(row->wavesPerWorkgroup, 4u);
    EXPECT_EQ(row->maxWavesPerWorkgroup, 16u);  // 1024 / 64
    // VGPR: 256 / 64 = 4 waves per SIMD x 4 SIMDs = 16 waves = 4 whole work-groups -> 16.
    EXPECT_EQ(row->vgprLimitedWaves, 16u);
    // SGPR: 800 / 32 = 25, capped at 10 per SIMD -> 40.
    EXPECT_EQ(row->sgprLimitedWaves, 40u);
    // LDS: 65536 / 8192 = 8 work-groups x 4 waves = 32.
    EXPECT_EQ(row->ldsLimitedWaves, 32u);
    // Work-groups: min(16, 40 / 4 = 10) = 10 x 4 = 40.
    EXPECT_EQ(row->workgroupLimitedWaves, 40u);
    // min(16, 40, 32, 40) / 40 = 40 %.
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 40.0);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Vgpr);
    EXPECT_EQ(row->computeUnits, 64u);
    EXPECT_EQ(row->simdsPerCu, 4u);
    EXPECT_EQ(row->gfxIpMajor, 9u);
    EXPECT_EQ(row->globalSize, 1u << 20);
    EXPECT_EQ(row->maxGlobalSize, 0xFFFFFFFFull);
}

TEST(OccupancyModel, Gfx90aUnifiedVgprFile) {
    // gfx90a: 4 SIMDs x 8 wave slots = 32 waves per CU; 512 registers per lane (VGPRs and AGPRs
    // together), granule 8. Kernel: 64 VGPRs + 32 AGPRs = 96, 48 SGPRs, 16 KiB LDS from the
    // dispatch, 512 work-items = 8 waves.
    const std::optional<OccupancyRow> row = computeOccupancy(
        agent("gfx90a", 110), use("gfx90a", rsrc1(11, 5), 15, 0, 16384, 512, 512 * 1000));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->maxWavesPerCu, 32u);
    EXPECT_EQ(row->maxVgprs, 512u);
    EXPECT_EQ(row->vgprsUsed, 96u);
    EXPECT_EQ(row->wavesPerWorkgroup, 8u);
    // VGPR: 512 / 96 = 5 per SIMD x 4 = 20 waves = 2 whole work-groups of 8 -> 16.
    EXPECT_EQ(row->vgprLimitedWaves, 16u);
    // SGPR: 800 / 48 = 16, capped at 8 per SIMD -> 32.
    EXPECT_EQ(row->sgprLimitedWaves, 32u);
    // LDS: 65536 / 16384 = 4 work-groups x 8 = 32.
    EXPECT_EQ(row->ldsLimitedWaves, 32u);
    // Work-groups: min(16, 32 / 8 = 4) x 8 = 32.
    EXPECT_EQ(row->workgroupLimitedWaves, 32u);
    // 16 / 32 = 50 %.
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 50.0);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Vgpr);
}

TEST(OccupancyModel, Gfx942LdsLimited) {
    // gfx942: as gfx90a. Kernel: 32 registers, 16 SGPRs, 40 KiB LDS, 256 work-items = 4 waves.
    const std::optional<OccupancyRow> row = computeOccupancy(
        agent("gfx942", 304), use("gfx942", rsrc1(3, 1), 7, 0, 40960, 256, 256 * 304));
    ASSERT_TRUE(row.has_value());
    // VGPR: 512 / 32 = 16, capped at 8 per SIMD -> 32. SGPR: 800 / 16 = 50 -> 8 -> 32.
    EXPECT_EQ(row->vgprLimitedWaves, 32u);
    EXPECT_EQ(row->sgprLimitedWaves, 32u);
    // LDS: 65536 / 40960 = 1 work-group x 4 waves = 4.
    EXPECT_EQ(row->ldsLimitedWaves, 4u);
    // Work-groups: min(16, 32 / 4 = 8) x 4 = 32.
    EXPECT_EQ(row->workgroupLimitedWaves, 32u);
    // 4 / 32 = 12.5 %.
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 12.5);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Lds);
}

TEST(OccupancyModel, Gfx1030Wave32LdsLimited) {
    // gfx1030 per CU (half a WGP): 2 SIMDs x 16 wave slots = 32 waves; wave32 VGPR file 1024
    // per lane, allocation granule 16; SGPRs never limit; 64 KiB LDS.
    // Kernel: 64 VGPRs (wave32), 32 KiB LDS, 256 work-items = 8 waves of 32.
    const std::optional<OccupancyRow> row = computeOccupancy(
        agent("gfx1030", 72), use("gfx1030", rsrc1(7, 0), 0, kWave32, 32768, 256, 1 << 16));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->waveSize, 32u);
    EXPECT_EQ(row->maxWavesPerCu, 32u);
    EXPECT_EQ(row->maxSgprs, 106u);
    EXPECT_EQ(row->sgprsUsed, 128u);
    EXPECT_EQ(row->wavesPerWorkgroup, 8u);
    EXPECT_EQ(row->maxWavesPerWorkgroup, 32u);  // 1024 / 32
    // VGPR: 1024 / 64 = 16 per SIMD x 2 = 32 waves = 4 work-groups -> 32.
    EXPECT_EQ(row->vgprLimitedWaves, 32u);
    // SGPR: no limit -> 16 x 2 = 32.
    EXPECT_EQ(row->sgprLimitedWaves, 32u);
    // LDS: 65536 / 32768 = 2 work-groups x 8 = 16.
    EXPECT_EQ(row->ldsLimitedWaves, 16u);
    // Work-groups: min(16, 32 / 8 = 4) x 8 = 32.
    EXPECT_EQ(row->workgroupLimitedWaves, 32u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 50.0);  // 16 / 32
    EXPECT_EQ(row->limiter, OccupancyLimiter::Lds);
    EXPECT_EQ(row->simdsPerCu, 2u);
    EXPECT_EQ(row->gfxIpMajor, 10u);
}

TEST(OccupancyModel, Gfx1100Wave64LargeVgprFile) {
    // gfx1100: 2 SIMDs x 16 = 32 waves per CU; wave64 VGPR file 768 per lane, granule 12.
    // Kernel: 128 VGPRs (wave64), no LDS, 128 work-items = 2 waves.
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx1100", 96), use("gfx1100", rsrc1(31, 0), 0, 0, 0, 128, 1 << 20));
    ASSERT_TRUE(row.has_value());
    // VGPR: 128 rounds up to 132; 768 / 132 = 5 per SIMD x 2 = 10 waves = 5 work-groups -> 10.
    EXPECT_EQ(row->vgprLimitedWaves, 10u);
    // LDS: none used -> the 32 slots. Work-groups: min(16, 32 / 2 = 16) x 2 = 32.
    EXPECT_EQ(row->ldsLimitedWaves, 32u);
    EXPECT_EQ(row->workgroupLimitedWaves, 32u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 31.25);  // 10 / 32
    EXPECT_EQ(row->limiter, OccupancyLimiter::Vgpr);
}

TEST(OccupancyModel, Gfx1102SmallerVgprFile) {
    // gfx1102: wave64 VGPR file 512 per lane, granule 8. 128 VGPRs: 512 / 128 = 4 per SIMD x 2
    // = 8 waves = 4 work-groups of 2 -> 8; 8 / 32 = 25 %.
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx1102", 32), use("gfx1102", rsrc1(31, 0), 0, 0, 0, 128, 1 << 20));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->vgprLimitedWaves, 8u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 25.0);
}

TEST(OccupancyModel, Gfx1010WorkgroupSlotsLimit) {
    // gfx1010: 2 SIMDs x 20 = 40 waves per CU; wave32 VGPR file 1024, granule 8.
    // Kernel: 32 VGPRs, no LDS, 64 work-items = 2 waves of 32.
    const std::optional<OccupancyRow> row = computeOccupancy(
        agent("gfx1010", 40), use("gfx1010", rsrc1(3, 0), 0, kWave32, 0, 64, 1 << 20));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->maxWavesPerCu, 40u);
    // VGPR: 1024 / 32 = 32, capped at 20 per SIMD x 2 = 40 -> 20 work-groups -> 40.
    EXPECT_EQ(row->vgprLimitedWaves, 40u);
    // Work-groups: min(16 barriers, 40 / 2 = 20) = 16 x 2 = 32.
    EXPECT_EQ(row->workgroupLimitedWaves, 32u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 80.0);  // 32 / 40
    EXPECT_EQ(row->limiter, OccupancyLimiter::Workgroup);
}

TEST(OccupancyModel, Gfx908SingleWaveGroupsNeedNoBarrier) {
    // gfx908 (GCN table row): 40 waves per CU. Kernel: 24 VGPRs, 16 SGPRs, 64 work-items =
    // 1 wave: VGPR 256 / 24 = 10 (capped at 10) -> 40; single-wave groups are bound only by the
    // 40 slots, not by the 16 barriers -> 40. Full occupancy, nothing limits.
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx908", 120), use("gfx908", rsrc1(5, 1), 0, 0, 0, 64, 64 * 120));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->vgprsUsed, 24u);
    EXPECT_EQ(row->vgprLimitedWaves, 40u);
    EXPECT_EQ(row->workgroupLimitedWaves, 40u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 100.0);
    EXPECT_EQ(row->limiter, OccupancyLimiter::None);
}

TEST(OccupancyModel, Gfx906SgprLimited) {
    // gfx906: 96 SGPRs, 24 VGPRs, 64 work-items. SGPR: 800 / 96 = 8 per SIMD x 4 = 32;
    // VGPR: 256 / 24 = 10 -> 40. 32 / 40 = 80 %.
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx906", 60), use("gfx906", rsrc1(5, 11), 0, 0, 0, 64, 1 << 20));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->sgprsUsed, 96u);
    EXPECT_EQ(row->sgprLimitedWaves, 32u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 80.0);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Sgpr);
}

TEST(OccupancyModel, PartialWorkgroupsDoNotCount) {
    // gfx900, 192 work-items = 3 waves: the 40 slots hold 13 whole groups = 39 waves, and the
    // work-group shape is what limits (97.5 %).
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx900", 64), use("gfx900", rsrc1(1, 1), 0, 0, 0, 192, 192 * 64));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->vgprLimitedWaves, 39u);
    EXPECT_EQ(row->workgroupLimitedWaves, 39u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 97.5);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Workgroup);
}

TEST(OccupancyModel, AgentPropertiesOverrideTheTable) {
    // An agent reporting 2 SIMDs per CU and 32 KiB of LDS: 2 x 10 = 20 waves per CU;
    // 16 KiB per group: 32768 / 16384 = 2 groups x 4 waves = 8.
    AgentProperties a = agent("gfx900", 8);
    a.simdsPerCu = 2;
    a.ldsBytesPerCu = 32768;
    a.maxWorkgroupSize = 256;
    const std::optional<OccupancyRow> row =
        computeOccupancy(a, use("gfx900", rsrc1(1, 1), 0, 0, 16384, 256, 4096));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->maxWavesPerCu, 20u);
    EXPECT_EQ(row->ldsLimitedWaves, 8u);
    EXPECT_EQ(row->maxWavesPerWorkgroup, 4u);  // 256 / 64
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 40.0);
}

TEST(OccupancyModel, TooMuchLdsAllowsNoWave) {
    const std::optional<OccupancyRow> row =
        computeOccupancy(agent("gfx90a", 110), use("gfx90a", rsrc1(1, 1), 1, 0, 65537, 64, 64));
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->ldsLimitedWaves, 0u);
    EXPECT_DOUBLE_EQ(row->occupancyPercent, 0.0);
    EXPECT_EQ(row->limiter, OccupancyLimiter::Lds);
}

TEST(OccupancyModel, UnknownGenerationOrNoWorkItems) {
    DispatchUse u;
    u.workgroupSize = 64;
    EXPECT_FALSE(computeOccupancy(agent("gfx700", 8), u).has_value());
    u.workgroupSize = 0;
    EXPECT_FALSE(computeOccupancy(agent("gfx900", 8), u).has_value());
}

TEST(OccupancyModel, LimiterNames) {
    EXPECT_EQ(limiterName(OccupancyLimiter::None), "None");
    EXPECT_EQ(limiterName(OccupancyLimiter::Vgpr), "VGPR");
    EXPECT_EQ(limiterName(OccupancyLimiter::Sgpr), "SGPR");
    EXPECT_EQ(limiterName(OccupancyLimiter::Lds), "LDS");
    EXPECT_EQ(limiterName(OccupancyLimiter::Workgroup), "Workgroup");
}

}  // namespace
}  // namespace perfmarker::profile
