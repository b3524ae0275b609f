// The OTF2 archive being written (docs/otf2.md), over the OTF2 library's C interface: the calls
// in the order the library wants them (each location's events, then the local definition files,
// then the global definitions at close), the string table, and the first error kept with its
// text instead of the library printing it. The exporter (otf2_exporter.h) decides what goes in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct OTF2_Archive_struct;
struct OTF2_EvtWriter_struct;
struct OTF2_AttributeList_struct;
struct OTF2_GlobalDefWriter_struct;

namespace perfmarker::exporter::db {

// The OTF2 library's enumerations, as the exporter uses them, with the library's values
// (otf2_archive.cpp checks each against the library's own constant).
enum class Otf2Role : uint8_t { Unknown = 0, Function = 1, Code = 4, DataTransfer = 30 };
enum class Otf2Paradigm : uint8_t { Unknown = 0, User = 1, OpenCl = 19 };
enum class Otf2GroupType : uint8_t { Process = 1, Accelerator = 2 };
enum class Otf2LocationType : uint8_t { CpuThread = 1, AcceleratorStream = 2 };
enum class Otf2Type : uint8_t { Uint8 = 1, Uint64 = 4, String = 11 };

inline constexpr uint32_t kOtf2Undefined32 = UINT32_MAX;  // OTF2_UNDEFINED_* of 32-bit refs
inline constexpr uint64_t kOtf2UndefinedTime = UINT64_MAX;

struct Otf2Region {
    uint32_t name = 0;  // string refs
    uint32_t description = 0;
    Otf2Role role = Otf2Role::Unknown;
    Otf2Paradigm paradigm = Otf2Paradigm::Unknown;
};

struct Otf2SystemTreeNode {
    uint32_t name = 0;
    uint32_t className = 0;
    uint32_t parent = kOtf2Undefined32;
};

struct Otf2LocationGroup {
    uint32_t name = 0;
    Otf2GroupType type = Otf2GroupType::Process;
    uint32_t systemTreeParent = 0;
    uint32_t creatingGroup = kOtf2Undefined32;
};

struct Otf2Location {
    uint64_t id = 0;
    uint32_t name = 0;
    Otf2LocationType type = Otf2LocationType::CpuThread;
    uint64_t events = 0;
    uint32_t group = 0;
};

struct Otf2Attribute {
    uint32_t name = 0;
    uint32_t description = 0;
    Otf2Type type = Otf2Type::Uint64;
};

struct Otf2Clock {
    uint64_t resolution = 1000000000;  // ticks per second: our times are ns
    uint64_t globalOffset = 0;
    uint64_t traceLength = 0;
    uint64_t realtime = kOtf2UndefinedTime;  // ns since the epoch at globalOffset, if known
};

class Otf2Archive {
public:
    Otf2Archive();
    ~Otf2Archive();  // closes an archive still open; its files are the owner's to remove
    Otf2Archive(const Otf2Archive&) = delete;
    Otf2Archive& operator=(const Otf2Archive&) = delete;

    // Opens "<dir>/<name>.otf2" with its definition file and "<dir>/<name>/" for the events.
    bool open(const std::string& dir, const std::string& name, const std::string& creator);

    // The reference of `text` in the string table (each text is defined once).
    uint32_t string(std::string_view text);
    uint32_t addRegion(const Otf2Region& region);
    uint32_t addAttribute(const Otf2Attribute& attribute);
    uint32_t addSystemTreeNode(const Otf2SystemTreeNode& node);
    uint32_t addLocationGroup(const Otf2LocationGroup& group);

    // The events of one location, in time order: beginLocation(), then enter()/leave() (an
    // enter carries the attributes added since the previous event), then endLocation(), which
    // defines the location with its event count. One location at a time.
    void beginLocation(uint64_t id, uint32_t name, Otf2LocationType type, uint32_t group);
    void addUint64(uint32_t attribute, uint64_t value);
    void addUint8(uint32_t attribute, uint8_t value);
    void addString(uint32_t attribute, uint32_t stringRef);
    void enter(uint64_t time, uint32_t region);
    void leave(uint64_t time, uint32_t region);
    // A MeasurementOnOff event: the measurement was on (off) from `time`.
    void measurement(uint64_t time, bool on);
    void endLocation();

    // Writes the local and global definitions and closes the archive. False with error().
    bool close(const Otf2Clock& clock);
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }

    // For OTF2's error handler (otf2_archive.cpp): the library's own text of its last error.
    void libraryMessage(std::string text) { m_libraryMessage = std::move(text); }

private:
    bool check(int code, const char* what);
    void writeGlobalDefinitions(OTF2_GlobalDefWriter_struct* writer, const Otf2Clock& clock);
    void closeArchive();
    void restoreErrorHandler();

    OTF2_Archive_struct* m_archive = nullptr;
    OTF2_EvtWriter_struct* m_events = nullptr;
    OTF2_AttributeList_struct* m_attributes = nullptr;
    Otf2Location m_current;
    std::unordered_map<std::string, uint32_t> m_stringIds;
    std::vector<const std::string*> m_strings;  // by reference, keys of m_stringIds
    std::vector<Otf2Region> m_regions;
    std::vector<Otf2Attribute> m_attributeDefs;
    std::vector<Otf2SystemTreeNode> m_nodes;
    std::vector<Otf2LocationGroup> m_groups;
    std::vector<Otf2Location> m_locations;
    std::string m_error;
    std::string m_libraryMessage;
    void (*m_previousHandler)() = nullptr;  // OTF2's error handler before open()
    bool m_handlerSet = false;
};

}  // namespace perfmarker::exporter::db
