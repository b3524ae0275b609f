// Graphics IP names and the kernel descriptor (docs/profile.md#the-kernel-descriptor).
#include "profile/format/kernel_descriptor.h"

#include <cstring>

namespace perfmarker::profile {
namespace {

// Byte offsets of the descriptor fields (docs/profile.md#the-kernel-descriptor).
constexpr size_t kGroupSegmentOffset = 0;
constexpr size_t kPrivateSegmentOffset = 4;
constexpr size_t kKernargSizeOffset = 8;
constexpr size_t kEntryOffsetOffset = 16;
constexpr size_t kRsrc3Offset = 44;
constexpr size_t kRsrc1Offset = 48;
constexpr size_t kRsrc2Offset = 52;
constexpr size_t kCodePropertiesOffset = 56;

// A bit field `[shift, shift + width)` of a register (docs/profile.md#bit-fields).
struct BitField {
    unsigned shift;
    unsigned width;
    uint32_t of(uint32_t value) const { return (value >> shift) & ((1u << width) - 1u); }
};

constexpr BitField kGranulatedVgprCount{0, 6};     // COMPUTE_PGM_RSRC1[5:0]
constexpr BitField kGranulatedSgprCount{6, 4};     // COMPUTE_PGM_RSRC1[9:6], gfx6-gfx9
constexpr BitField kWgpMode{29, 1};                // COMPUTE_PGM_RSRC1[29], gfx10+
constexpr BitField kAccumOffset{0, 6};             // COMPUTE_PGM_RSRC3[5:0], unified VGPR file
constexpr BitField kEnableWavefrontSize32{10, 1};  // kernel_code_properties[10], gfx10+
constexpr BitField kUsesDynamicStack{11, 1};       // kernel_code_properties[11]

template <typename T>
T load(const unsigned char* bytes, size_t offset) {
    T value{};
    std::memcpy(&value, bytes + offset, sizeof value);  // the descriptor is little-endian, as we
    return value;
}

template <typename T>
void store(unsigned char* bytes, size_t offset, T value) {
    std::memcpy(bytes + offset, &value, sizeof value);
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char hexChar(uint32_t digit) { return "0123456789abcdef"[digit & 0xF]; }

// The VGPR granule of GRANULATED_WORKITEM_VGPR_COUNT (docs/profile.md#vgprs): gfx6-gfx9 4,
// unified-file parts 8, gfx10+ 8 in wave32 and 4 in wave64.
uint32_t vgprEncodingGranule(const GfxIp& ip, uint32_t waveSize) {
    if (hasUnifiedVgprFile(ip)) return 8;
    if (ip.major >= 10) return waveSize == 32 ? 8 : 4;
    return 4;
}

void decodeVgprs(const KernelDescriptor& d, const GfxIp& ip, KernelResources& r) {
    const uint32_t total =
        (kGranulatedVgprCount.of(d.computePgmRsrc1) + 1) * vgprEncodingGranule(ip, r.waveSize);
    r.vgprBudget = total;
    if (!hasUnifiedVgprFile(ip)) {
        r.vgprs = total;
        return;
    }
    // The AGPRs start at ACCUM_OFFSET (granule 4) of the unified file; the architected VGPRs
    // are below it (docs/profile.md#vgprs).
    const uint32_t accumOffset = (kAccumOffset.of(d.computePgmRsrc3) + 1) * 4;
    r.vgprs = accumOffset < total ? accumOffset : total;
    r.agprs = total - r.vgprs;
}

}  // namespace

std::optional<GfxIp> parseGfxIp(std::string_view name) {
    if (const size_t dashes = name.rfind("--"); dashes != std::string_view::npos) {
        name.remove_prefix(dashes + 2);
    }
    if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
        name = name.substr(0, colon);
    }
    if (name.size() < 6 || name.substr(0, 3) != "gfx") return std::nullopt;
    const std::string_view major = name.substr(3, name.size() - 5);
    const int minor = hexDigit(name[name.size() - 2]);
    const int stepping = hexDigit(name[name.size() - 1]);
    if (minor < 0 || stepping < 0 || major.size() > 3) return std::nullopt;
    GfxIp ip;
    for (const char c : major) {
        if (c < '0' || c > '9') return std::nullopt;
        ip.major = ip.major * 10 + static_cast<uint32_t>(c - '0');
    }
    ip.minor = static_cast<uint32_t>(minor);
    ip.stepping = static_cast<uint32_t>(stepping);
    return ip;
}

std::string gfxIpName(const GfxIp& ip) {
    return "gfx" + std::to_string(ip.major) + hexChar(ip.minor) + hexChar(ip.stepping);
}

bool hasUnifiedVgprFile(const GfxIp& ip) {
    return ip.major == 9 && ((ip.minor == 0 && ip.stepping == 0xa) || ip.minor >= 4);
}

KernelDescriptor readKernelDescriptor(const void* bytes) {
    const auto* b = static_cast<const unsigned char*>(bytes);
    KernelDescriptor d;
    d.groupSegmentFixedSize = load<uint32_t>(b, kGroupSegmentOffset);
    d.privateSegmentFixedSize = load<uint32_t>(b, kPrivateSegmentOffset);
    d.kernargSize = load<uint32_t>(b, kKernargSizeOffset);
    d.kernelCodeEntryByteOffset = load<int64_t>(b, kEntryOffsetOffset);
    d.computePgmRsrc3 = load<uint32_t>(b, kRsrc3Offset);
    d.computePgmRsrc1 = load<uint32_t>(b, kRsrc1Offset);
    d.computePgmRsrc2 = load<uint32_t>(b, kRsrc2Offset);
    d.kernelCodeProperties = load<uint16_t>(b, kCodePropertiesOffset);
    return d;
}

std::array<unsigned char, kKernelDescriptorSize> writeKernelDescriptor(const KernelDescriptor& d) {
    std::array<unsigned char, kKernelDescriptorSize> bytes{};
    store(bytes.data(), kGroupSegmentOffset, d.groupSegmentFixedSize);
    store(bytes.data(), kPrivateSegmentOffset, d.privateSegmentFixedSize);
    store(bytes.data(), kKernargSizeOffset, d.kernargSize);
    store(bytes.data(), kEntryOffsetOffset, d.kernelCodeEntryByteOffset);
    store(bytes.data(), kRsrc3Offset, d.computePgmRsrc3);
    store(bytes.data(), kRsrc1Offset, d.computePgmRsrc1);
    store(bytes.data(), kRsrc2Offset, d.computePgmRsrc2);
    store(bytes.data(), kCodePropertiesOffset, d.kernelCodeProperties);
    return bytes;
}

std::optional<KernelResources> decodeKernelResources(const KernelDescriptor& d, const GfxIp& ip) {
    if (ip.major < 6) return std::nullopt;
    KernelResources r;
    const bool gfx10Plus = ip.major >= 10;
    r.waveSize = gfx10Plus && kEnableWavefrontSize32.of(d.kernelCodeProperties) != 0 ? 32 : 64;
    decodeVgprs(d, ip, r);
    if (gfx10Plus) {
        r.sgprs = kFixedSgprsGfx10;  // the field is reserved (docs/profile.md#sgprs)
        r.sgprsFixed = true;
        r.wgpMode = kWgpMode.of(d.computePgmRsrc1) != 0;
    } else if (ip.major == 9) {
        // gfx9 counts blocks of 16, written twice over (docs/profile.md#sgprs); an odd field
        // from an older compiler decodes to the same block.
        r.sgprs = (kGranulatedSgprCount.of(d.computePgmRsrc1) / 2 + 1) * 16;
    } else {
        r.sgprs = (kGranulatedSgprCount.of(d.computePgmRsrc1) + 1) * 8;  // gfx6-gfx8
    }
    r.ldsBytes = d.groupSegmentFixedSize;
    r.privateBytes = d.privateSegmentFixedSize;
    r.dynamicStack = kUsesDynamicStack.of(d.kernelCodeProperties) != 0;
    return r;
}

}  // namespace perfmarker::profile
