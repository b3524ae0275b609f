// The AMD GPU's graphics IP name and the kernel descriptor of a code object (v3 and later):
// the 64 bytes a kernel object points at, decoded into the registers, LDS and scratch a kernel
// uses (docs/profile.md#the-kernel-descriptor). The bit fields and the granules per generation
// are listed there; each one used here names its row.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfmarker::profile {

// A graphics IP version: `gfx<major><minor><stepping>`, where minor and stepping are the last two
// characters, each one hexadecimal digit (gfx90a = 9.0.10, gfx1030 = 10.3.0).
struct GfxIp {
    uint32_t major = 0;
    uint32_t minor = 0;
    uint32_t stepping = 0;
    bool operator==(const GfxIp& o) const {
        return major == o.major && minor == o.minor && stepping == o.stepping;
    }
};

// Parses `gfx900`, `gfx90a`, `gfx1100`, ... Target features after a colon
// (`gfx90a:sramecc+:xnack-`) and an ISA-name prefix (`amdgcn-amd-amdhsa--gfx90a`) are accepted;
// anything else (an empty name, a generic target `gfx9-generic`, a CPU's name) is nullopt.
std::optional<GfxIp> parseGfxIp(std::string_view name);

// `gfx<major><minor hex><stepping hex>`, e.g. "gfx90a".
std::string gfxIpName(const GfxIp& ip);

// gfx90a and the gfx94x/gfx95x parts: architected and accumulation VGPRs share one register
// file per lane (docs/profile.md#vgprs).
bool hasUnifiedVgprFile(const GfxIp& ip);

inline constexpr size_t kKernelDescriptorSize = 64;

// The fields of the descriptor we read, as stored (little-endian) at their byte offsets
// (docs/profile.md#the-kernel-descriptor).
struct KernelDescriptor {
    uint32_t groupSegmentFixedSize = 0;     // byte 0
    uint32_t privateSegmentFixedSize = 0;   // byte 4
    uint32_t kernargSize = 0;               // byte 8
    int64_t kernelCodeEntryByteOffset = 0;  // byte 16
    uint32_t computePgmRsrc3 = 0;           // byte 44
    uint32_t computePgmRsrc1 = 0;           // byte 48
    uint32_t computePgmRsrc2 = 0;           // byte 52
    uint16_t kernelCodeProperties = 0;      // byte 56
};

// Reads the fields from the descriptor's 64 bytes.
KernelDescriptor readKernelDescriptor(const void* bytes);

// The 64 bytes of a descriptor with these fields (everything else zero): for tests and for
// constructed runtimes.
std::array<unsigned char, kKernelDescriptorSize> writeKernelDescriptor(const KernelDescriptor& d);

// What a kernel uses, decoded for one generation (docs/profile.md#decoding). Register counts are
// the allocated (granulated) counts, i.e. upper bounds of what the compiler used.
struct KernelResources {
    uint32_t waveSize = 64;
    uint32_t vgprs = 0;  // architected VGPRs per work-item (gfx908: the larger of both files)
    uint32_t agprs = 0;  // accumulation VGPRs per work-item (gfx90a/gfx94x/gfx95x only)
    // Per-lane entries of the VGPR file counted against the occupancy budget: vgprs + agprs on
    // a unified file, vgprs elsewhere.
    uint32_t vgprBudget = 0;
    uint32_t sgprs = 0;         // per wave
    bool sgprsFixed = false;    // gfx10+: not in the descriptor; sgprs is the fixed allocation
    uint32_t ldsBytes = 0;      // group_segment_fixed_size (static LDS per work-group)
    uint32_t privateBytes = 0;  // private_segment_fixed_size (scratch per work-item)
    bool dynamicStack = false;  // the scratch size is a lower bound
    bool wgpMode = false;       // gfx10+: the work-group's waves span a whole WGP
};

// gfx10+ allocates this many SGPRs to every wave, whatever the kernel uses
// (docs/profile.md#sgprs).
inline constexpr uint32_t kFixedSgprsGfx10 = 128;

// Decodes `d` with the rules of `ip`'s generation; nullopt for a major version before 6.
std::optional<KernelResources> decodeKernelResources(const KernelDescriptor& d, const GfxIp& ip);

}  // namespace perfmarker::profile
