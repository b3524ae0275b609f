// Graphics IP names and the kernel descriptor (src/profile/format/kernel_descriptor.h,
// docs/profile.md#the-kernel-descriptor): constructed 64-byte descriptors decoded per
// generation, with the arithmetic of each expected value.
#include "profile/format/kernel_descriptor.h"

#include <gtest/gtest.h>

#include <cstring>

namespace perfmarker::profile {
namespace {

constexpr uint32_t rsrc1(uint32_t vgprField, uint32_t sgprField) {
    return vgprField | (sgprField << 6);
}
constexpr uint32_t kWgpModeBit = 1u << 29;
constexpr uint16_t kWave32Bit = 1u << 10;
constexpr uint16_t kDynamicStackBit = 1u << 11;

GfxIp ip(const char* name) { return parseGfxIp(name).value(); }

KernelResources decode(const KernelDescriptor& d, const char* gfx) {
    const auto bytes = writeKernelDescriptor(d);
    return decodeKernelResources(readKernelDescriptor(bytes.data()), ip(gfx)).value();
}

TEST(GfxIp, ParsesMajorMinorAndSteppingInHex) {
    struct Case {
        const char* name;
        GfxIp expected;
    };
    const Case cases[] = {
        {"gfx900", {9, 0, 0}},   {"gfx906", {9, 0, 6}},   {"gfx908", {9, 0, 8}},
        {"gfx90a", {9, 0, 10}},  {"gfx90c", {9, 0, 12}},  {"gfx942", {9, 4, 2}},
        {"gfx1010", {10, 1, 0}}, {"gfx1030", {10, 3, 0}}, {"gfx1100", {11, 0, 0}},
        {"gfx1151", {11, 5, 1}}, {"gfx803", {8, 0, 3}},
    };
    for (const Case& c : cases) {
        const std::optional<GfxIp> parsed = parseGfxIp(c.name);
        ASSERT_TRUE(parsed.has_value()) << c.name;
        EXPECT_EQ(*parsed, c.expected) << c.name;
        EXPECT_EQ(gfxIpName(*parsed), c.name);
    }
}

TEST(GfxIp, AcceptsTargetFeaturesAndIsaNames) {
    EXPECT_EQ(parseGfxIp("gfx90a:sramecc+:xnack-"), (GfxIp{9, 0, 10}));
    EXPECT_EQ(parseGfxIp("amdgcn-amd-amdhsa--gfx942:sramecc+"), (GfxIp{9, 4, 2}));
}

TEST(GfxIp, RejectsWhatIsNotAGfxName) {
    for (const char* name : {"", "gfx", "gfx9", "gfx9-generic", "gfx10-3-generic", "gfx90g",
                             "gfxab0", "AMD Ryzen 7 1800X Eight-Core Processor", "Fiji"}) {
        EXPECT_FALSE(parseGfxIp(name).has_value()) << name;
    }
}

TEST(GfxIp, UnifiedVgprFileParts) {
    EXPECT_FALSE(hasUnifiedVgprFile(ip("gfx900")));
    EXPECT_FALSE(hasUnifiedVgprFile(ip("gfx908")));
    EXPECT_TRUE(hasUnifiedVgprFile(ip("gfx90a")));
    EXPECT_TRUE(hasUnifiedVgprFile(ip("gfx942")));
    EXPECT_FALSE(hasUnifiedVgprFile(ip("gfx1030")));
}

TEST(KernelDescriptor, ReadsEachFieldAtItsByteOffset) {
    unsigned char bytes[kKernelDescriptorSize] = {};
    const uint32_t group = 0x11223344, privateSize = 0x55667788, kernarg = 0x99aabbcc;
    const int64_t entry = -0x1234;
    const uint32_t r3 = 0x0a0b0c0d, r1 = 0x01020304, r2 = 0x05060708;
    const uint16_t properties = 0x0409;
    std::memcpy(bytes + 0, &group, 4);
    std::memcpy(bytes + 4, &privateSize, 4);
    std::memcpy(bytes + 8, &kernarg, 4);
    std::memcpy(bytes + 16, &entry, 8);
    std::memcpy(bytes + 44, &r3, 4);
    std::memcpy(bytes + 48, &r1, 4);
    std::memcpy(bytes + 52, &r2, 4);
    std::memcpy(bytes + 56, &properties, 2);
    const KernelDescriptor d = readKernelDescriptor(bytes);
    EXPECT_EQ(d.groupSegmentFixedSize, group);
    EXPECT_EQ(d.privateSegmentFixedSize, privateSize);
    EXPECT_EQ(d.kernargSize, kernarg);
    EXPECT_EQ(d.kernelCodeEntryByteOffset, entry);
    EXPECT_EQ(d.computePgmRsrc3, r3);
    EXPECT_EQ(d.computePgmRsrc1, r1);
    EXPECT_EQ(d.computePgmRsrc2, r2);
    EXPECT_EQ(d.kernelCodeProperties, properties);
    const auto written = writeKernelDescriptor(d);
    EXPECT_EQ(std::memcmp(written.data(), bytes, kKernelDescriptorSize), 0);
}

TEST(KernelDescriptor, Gfx900GranulesFourVgprsAndSixteenSgprs) {
    KernelDescriptor d;
    // VGPR field 15: (15 + 1) * 4 = 64; SGPR field 3 (blocks of 16, doubled): (3 / 2 + 1) * 16
    // = 32, as the even field 2 = 2 * (32 / 16 - 1) is.
    d.computePgmRsrc1 = rsrc1(15, 3);
    d.groupSegmentFixedSize = 8192;
    d.privateSegmentFixedSize = 48;
    d.kernelCodeProperties = kWave32Bit;  // ignored before gfx10: always wave64
    const KernelResources r = decode(d, "gfx900");
    EXPECT_EQ(r.waveSize, 64u);
    EXPECT_EQ(r.vgprs, 64u);
    EXPECT_EQ(r.agprs, 0u);
    EXPECT_EQ(r.vgprBudget, 64u);
    EXPECT_EQ(r.sgprs, 32u);
    d.computePgmRsrc1 = rsrc1(15, 2);
    EXPECT_EQ(decode(d, "gfx900").sgprs, 32u);
    EXPECT_FALSE(r.sgprsFixed);
    EXPECT_EQ(r.ldsBytes, 8192u);
    EXPECT_EQ(r.privateBytes, 48u);
    EXPECT_FALSE(r.dynamicStack);
}

TEST(KernelDescriptor, Gfx9SmallestAndLargestCounts) {
    KernelDescriptor d;
    d.computePgmRsrc1 = rsrc1(0, 0);  // (0 + 1) * 4 = 4 VGPRs, (0 / 2 + 1) * 16 = 16 SGPRs
    EXPECT_EQ(decode(d, "gfx906").vgprs, 4u);
    EXPECT_EQ(decode(d, "gfx906").sgprs, 16u);
    d.computePgmRsrc1 = rsrc1(63, 14);  // (63 + 1) * 4 = 256, (14 / 2 + 1) * 16 = 128
    EXPECT_EQ(decode(d, "gfx906").vgprs, 256u);
    EXPECT_EQ(decode(d, "gfx906").sgprs, 128u);
}

TEST(KernelDescriptor, Gfx8SgprGranuleEight) {
    KernelDescriptor d;
    d.computePgmRsrc1 = rsrc1(9, 4);  // (9 + 1) * 4 = 40 VGPRs, (4 + 1) * 8 = 40 SGPRs
    const KernelResources r = decode(d, "gfx803");
    EXPECT_EQ(r.vgprs, 40u);
    EXPECT_EQ(r.sgprs, 40u);
}

TEST(KernelDescriptor, Gfx908CountIsTheLargerOfBothFiles) {
    KernelDescriptor d;
    // (31 + 1) * 4 = 128 (max of VGPRs and AGPRs); SGPRs (5 / 2 + 1) * 16 = 48.
    d.computePgmRsrc1 = rsrc1(31, 5);
    d.computePgmRsrc3 = 7;  // no ACCUM_OFFSET before gfx90a: ignored
    const KernelResources r = decode(d, "gfx908");
    EXPECT_EQ(r.vgprs, 128u);
    EXPECT_EQ(r.agprs, 0u);
    EXPECT_EQ(r.vgprBudget, 128u);
    EXPECT_EQ(r.sgprs, 48u);
}

TEST(KernelDescriptor, Gfx90aUnifiedFileSplitsAtTheAccumOffset) {
    KernelDescriptor d;
    // VGPR field 11 with granule 8: (11 + 1) * 8 = 96 registers of the unified file;
    // ACCUM_OFFSET 15: (15 + 1) * 4 = 64 architected VGPRs, so 96 - 64 = 32 AGPRs.
    d.computePgmRsrc1 = rsrc1(11, 5);
    d.computePgmRsrc3 = 15 | (1u << 16);  // TG_SPLIT set: not one of our fields
    d.kernelCodeProperties = kDynamicStackBit;
    const KernelResources r = decode(d, "gfx90a");
    EXPECT_EQ(r.waveSize, 64u);
    EXPECT_EQ(r.vgprs, 64u);
    EXPECT_EQ(r.agprs, 32u);
    EXPECT_EQ(r.vgprBudget, 96u);
    EXPECT_EQ(r.sgprs, 48u);  // (5 / 2 + 1) * 16
    EXPECT_TRUE(r.dynamicStack);
}

TEST(KernelDescriptor, Gfx942WithoutAgprs) {
    KernelDescriptor d;
    // (3 + 1) * 8 = 32 in the file, ACCUM_OFFSET (7 + 1) * 4 = 32: all architected.
    // SGPRs (1 / 2 + 1) * 16 = 16.
    d.computePgmRsrc1 = rsrc1(3, 1);
    d.computePgmRsrc3 = 7;
    const KernelResources r = decode(d, "gfx942");
    EXPECT_EQ(r.vgprs, 32u);
    EXPECT_EQ(r.agprs, 0u);
    EXPECT_EQ(r.vgprBudget, 32u);
    EXPECT_EQ(r.sgprs, 16u);
}

TEST(KernelDescriptor, Gfx1030Wave32GranuleEightAndFixedSgprs) {
    KernelDescriptor d;
    // wave32: VGPR granule 8, field 7: (7 + 1) * 8 = 64. The SGPR field is reserved on gfx10+.
    d.computePgmRsrc1 = rsrc1(7, 0) | kWgpModeBit;
    d.kernelCodeProperties = kWave32Bit;
    d.groupSegmentFixedSize = 32768;
    const KernelResources r = decode(d, "gfx1030");
    EXPECT_EQ(r.waveSize, 32u);
    EXPECT_EQ(r.vgprs, 64u);
    EXPECT_EQ(r.vgprBudget, 64u);
    EXPECT_EQ(r.sgprs, kFixedSgprsGfx10);
    EXPECT_EQ(r.sgprs, 128u);
    EXPECT_TRUE(r.sgprsFixed);
    EXPECT_TRUE(r.wgpMode);
    EXPECT_EQ(r.ldsBytes, 32768u);
}

TEST(KernelDescriptor, Gfx1100Wave64GranuleFour) {
    KernelDescriptor d;
    d.computePgmRsrc1 = rsrc1(31, 0);  // wave64: (31 + 1) * 4 = 128
    const KernelResources r = decode(d, "gfx1100");
    EXPECT_EQ(r.waveSize, 64u);
    EXPECT_EQ(r.vgprs, 128u);
    EXPECT_EQ(r.sgprs, 128u);
    EXPECT_FALSE(r.wgpMode);
}

TEST(KernelDescriptor, NoRulesBeforeGfx6) {
    EXPECT_FALSE(decodeKernelResources(KernelDescriptor{}, GfxIp{5, 0, 0}).has_value());
}

}  // namespace
}  // namespace perfmarker::profile
