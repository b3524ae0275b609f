#include "export/db/otf2_archive.h"

#include <otf2/otf2.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

namespace perfmarker::exporter::db {
namespace {

static_assert(static_cast<int>(Otf2Role::Function) == OTF2_REGION_ROLE_FUNCTION);
static_assert(static_cast<int>(Otf2Role::Code) == OTF2_REGION_ROLE_CODE);
static_assert(static_cast<int>(Otf2Role::DataTransfer) == OTF2_REGION_ROLE_DATA_TRANSFER);
static_assert(static_cast<int>(Otf2Paradigm::User) == OTF2_PARADIGM_USER);
static_assert(static_cast<int>(Otf2Paradigm::OpenCl) == OTF2_PARADIGM_OPENCL);
static_assert(static_cast<int>(Otf2GroupType::Process) == OTF2_LOCATION_GROUP_TYPE_PROCESS);
static_assert(static_cast<int>(Otf2GroupType::Accelerator) == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR);
static_assert(static_cast<int>(Otf2LocationType::CpuThread) == OTF2_LOCATION_TYPE_CPU_THREAD);
static_assert(static_cast<int>(Otf2LocationType::AcceleratorStream) ==
              OTF2_LOCATION_TYPE_ACCELERATOR_STREAM);
static_assert(static_cast<int>(Otf2Type::Uint8) == OTF2_TYPE_UINT8);
static_assert(static_cast<int>(Otf2Type::Uint64) == OTF2_TYPE_UINT64);
static_assert(static_cast<int>(Otf2Type::String) == OTF2_TYPE_STRING);
static_assert(kOtf2Undefined32 == OTF2_UNDEFINED_STRING);
static_assert(kOtf2UndefinedTime == OTF2_UNDEFINED_TIMESTAMP);

// Chunks of the event and definition buffers, and how many of them a writer's buffer may hold
// before it is written out. The library's own pool is 128 MiB per writer: a long location held
// that much until it filled (docs/otf2.md#memory). One location is written at a time, so this is
// about all the memory the library holds.
constexpr uint64_t kEventChunkBytes = uint64_t{1} << 20;
constexpr uint64_t kDefinitionChunkBytes = uint64_t{4} << 20;
constexpr size_t kChunksPerBuffer = 4;

// The pool of one writer's buffer: its chunks, until the library frees them all (after it wrote
// them out). A request past kChunksPerBuffer is refused, and the library then writes the buffer
// out (the flush callback says so) and frees its chunks.
struct ChunkPool {
    std::vector<void*> chunks;
};

void* allocateChunk(void*, OTF2_FileType, OTF2_LocationRef, void** perBuffer, uint64_t size) {
    auto* pool = static_cast<ChunkPool*>(*perBuffer);
    if (pool == nullptr) *perBuffer = pool = new (std::nothrow) ChunkPool;
    if (pool == nullptr || pool->chunks.size() >= kChunksPerBuffer) return nullptr;
    void* chunk = std::malloc(size);
    if (chunk != nullptr) pool->chunks.push_back(chunk);
    return chunk;
}

void freeChunks(void*, OTF2_FileType, OTF2_LocationRef, void** perBuffer, bool final) {
    auto* pool = static_cast<ChunkPool*>(*perBuffer);
    if (pool == nullptr) return;
    for (void* chunk : pool->chunks) std::free(chunk);
    pool->chunks.clear();
    if (final) {
        delete pool;
        *perBuffer = nullptr;
    }
}
const OTF2_MemoryCallbacks kMemoryCallbacks = {allocateChunk, freeChunks};

// A full buffer is written out. No post-flush callback: with one, the library would record a
// BufferFlush event stamped with that callback's clock in the middle of our times.
OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlushCallbacks = {preFlush, nullptr};

// The library reports errors through this handler instead of printing them; the archive being
// written keeps the text for its error message. Exports run one at a time per process (the
// handler is global), on the thread that writes.
thread_local Otf2Archive* t_reporting = nullptr;

OTF2_ErrorCode keepMessage(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                           const char* format, va_list arguments) {
    if (t_reporting != nullptr) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, arguments);
        t_reporting->libraryMessage(text);
    }
    return code;
}

}  // namespace

Otf2Archive::Otf2Archive() { m_attributes = OTF2_AttributeList_New(); }

Otf2Archive::~Otf2Archive() {
    closeArchive();
    restoreErrorHandler();
    if (m_attributes != nullptr) OTF2_AttributeList_Delete(m_attributes);
}

void Otf2Archive::restoreErrorHandler() {
    if (!m_handlerSet) return;
    OTF2_Error_RegisterCallback(reinterpret_cast<OTF2_ErrorCallback>(m_previousHandler), nullptr);
    t_reporting = nullptr;
    m_handlerSet = false;
}

void Otf2Archive::closeArchive() {
    if (m_archive == nullptr) return;
    OTF2_Archive_Close(m_archive);  // also closes any writer still open
    m_archive = nullptr;
    m_events = nullptr;
}

bool Otf2Archive::check(int code, const char* what) {
    if (code == OTF2_SUCCESS || failed()) return code == OTF2_SUCCESS;
    m_error = std::string("cannot ") + what + ": " +
              OTF2_Error_GetDescription(static_cast<OTF2_ErrorCode>(code));
    if (!m_libraryMessage.empty()) m_error += " (" + m_libraryMessage + ")";
    return false;
}

bool Otf2Archive::open(const std::string& dir, const std::string& name,
                       const std::string& creator) {
    t_reporting = this;
    m_handlerSet = true;
    m_previousHandler =
        reinterpret_cast<void (*)()>(OTF2_Error_RegisterCallback(keepMessage, nullptr));
    m_archive =
        OTF2_Archive_Open(dir.c_str(), name.c_str(), OTF2_FILEMODE_WRITE, kEventChunkBytes,
                          kDefinitionChunkBytes, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (m_archive == nullptr) return check(OTF2_ERROR_FILE_INTERACTION, "create the archive");
    return check(OTF2_Archive_SetFlushCallbacks(m_archive, &kFlushCallbacks, nullptr),
                 "set up the archive") &&
           check(OTF2_Archive_SetMemoryCallbacks(m_archive, &kMemoryCallbacks, nullptr),
                 "set up the archive") &&
           check(OTF2_Archive_SetSerialCollectiveCallbacks(m_archive), "set up the archive") &&
           check(OTF2_Archive_SetCreator(m_archive, creator.c_str()), "set up the archive") &&
           check(OTF2_Archive_OpenEvtFiles(m_archive), "open the event files");
}

uint32_t Otf2Archive::string(std::string_view text) {
    auto [it, inserted] =
        m_stringIds.try_emplace(std::string(text), static_cast<uint32_t>(m_strings.size()));
    if (inserted) m_strings.push_back(&it->first);
    return it->second;
}

uint32_t Otf2Archive::addRegion(const Otf2Region& region) {
    m_regions.push_back(region);
    return static_cast<uint32_t>(m_regions.size() - 1);
}

uint32_t Otf2Archive::addAttribute(const Otf2Attribute& attribute) {
    m_attributeDefs.push_back(attribute);
    return static_cast<uint32_t>(m_attributeDefs.size() - 1);
}

uint32_t Otf2Archive::addSystemTreeNode(const Otf2SystemTreeNode& node) {
    m_nodes.push_back(node);
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

uint32_t Otf2Archive::addLocationGroup(const Otf2LocationGroup& group) {
    m_groups.push_back(group);
    return static_cast<uint32_t>(m_groups.size() - 1);
}

void Otf2Archive::beginLocation(uint64_t id, uint32_t name, Otf2LocationType type, uint32_t group) {
    m_current = Otf2Location{id, name, type, 0, group};
    if (m_archive == nullptr || failed()) return;
    m_events = OTF2_Archive_GetEvtWriter(m_archive, id);
    if (m_events == nullptr) check(OTF2_ERROR_FILE_INTERACTION, "write the events");
}

void Otf2Archive::addUint64(uint32_t attribute, uint64_t value) {
    OTF2_AttributeList_AddUint64(m_attributes, attribute, value);
}

void Otf2Archive::addUint8(uint32_t attribute, uint8_t value) {
    OTF2_AttributeList_AddUint8(m_attributes, attribute, value);
}

void Otf2Archive::addString(uint32_t attribute, uint32_t stringRef) {
    OTF2_AttributeList_AddStringRef(m_attributes, attribute, stringRef);
}

// The writer empties the attribute list once the event is written; it is emptied here too for
// an event that was not written (after an error).
void Otf2Archive::enter(uint64_t time, uint32_t region) {
    ++m_current.events;
    if (m_events != nullptr) {
        check(OTF2_EvtWriter_Enter(m_events, m_attributes, time, region), "write the events");
    }
    OTF2_AttributeList_RemoveAllAttributes(m_attributes);
}

void Otf2Archive::leave(uint64_t time, uint32_t region) {
    ++m_current.events;
    if (m_events != nullptr) {
        check(OTF2_EvtWriter_Leave(m_events, nullptr, time, region), "write the events");
    }
}

void Otf2Archive::measurement(uint64_t time, bool on) {
    ++m_current.events;
    if (m_events != nullptr) {
        check(OTF2_EvtWriter_MeasurementOnOff(m_events, nullptr, time,
                                              on ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF),
              "write the events");
    }
}

void Otf2Archive::endLocation() {
    m_locations.push_back(m_current);
    if (m_events == nullptr) return;
    check(OTF2_Archive_CloseEvtWriter(m_archive, m_events), "write the events");
    m_events = nullptr;
}

void Otf2Archive::writeGlobalDefinitions(OTF2_GlobalDefWriter* writer, const Otf2Clock& clock) {
    const char* what = "write the definitions";
    check(OTF2_GlobalDefWriter_WriteClockProperties(writer, clock.resolution, clock.globalOffset,
                                                    clock.traceLength, clock.realtime),
          what);
    for (uint32_t i = 0; i < m_strings.size() && !failed(); ++i) {
        check(OTF2_GlobalDefWriter_WriteString(writer, i, m_strings[i]->c_str()), what);
    }
    for (uint32_t i = 0; i < m_attributeDefs.size() && !failed(); ++i) {
        const Otf2Attribute& a = m_attributeDefs[i];
        check(OTF2_GlobalDefWriter_WriteAttribute(writer, i, a.name, a.description,
                                                  static_cast<OTF2_Type>(a.type)),
              what);
    }
    for (uint32_t i = 0; i < m_regions.size() && !failed(); ++i) {
        const Otf2Region& r = m_regions[i];
        check(OTF2_GlobalDefWriter_WriteRegion(writer, i, r.name, r.name, r.description,
                                               static_cast<OTF2_RegionRole>(r.role),
                                               static_cast<OTF2_Paradigm>(r.paradigm),
                                               OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0),
              what);
    }
    for (uint32_t i = 0; i < m_nodes.size() && !failed(); ++i) {
        const Otf2SystemTreeNode& n = m_nodes[i];
        check(OTF2_GlobalDefWriter_WriteSystemTreeNode(writer, i, n.name, n.className, n.parent),
              what);
    }
    for (uint32_t i = 0; i < m_groups.size() && !failed(); ++i) {
        const Otf2LocationGroup& g = m_groups[i];
        check(OTF2_GlobalDefWriter_WriteLocationGroup(writer, i, g.name,
                                                      static_cast<OTF2_LocationGroupType>(g.type),
                                                      g.systemTreeParent, g.creatingGroup),
              what);
    }
    for (const Otf2Location& l : m_locations) {
        if (failed()) break;
        check(OTF2_GlobalDefWriter_WriteLocation(
                  writer, l.id, l.name, static_cast<OTF2_LocationType>(l.type), l.events, l.group),
              what);
    }
}

bool Otf2Archive::close(const Otf2Clock& clock) {
    if (m_archive == nullptr) return check(OTF2_ERROR_FILE_INTERACTION, "create the archive");
    check(OTF2_Archive_CloseEvtFiles(m_archive), "write the events");
    // Every location gets its (empty) local definition file: readers open one per location.
    if (check(OTF2_Archive_OpenDefFiles(m_archive), "write the definitions")) {
        for (const Otf2Location& location : m_locations) {
            OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(m_archive, location.id);
            if (writer == nullptr) {
                check(OTF2_ERROR_FILE_INTERACTION, "write the definitions");
                break;
            }
            check(OTF2_Archive_CloseDefWriter(m_archive, writer), "write the definitions");
        }
        check(OTF2_Archive_CloseDefFiles(m_archive), "write the definitions");
    }
    OTF2_GlobalDefWriter* global = failed() ? nullptr : OTF2_Archive_GetGlobalDefWriter(m_archive);
    if (global != nullptr) {
        writeGlobalDefinitions(global, clock);
    } else {
        check(OTF2_ERROR_FILE_INTERACTION, "write the definitions");
    }
    const OTF2_ErrorCode closed = OTF2_Archive_Close(m_archive);
    m_archive = nullptr;
    check(closed, "write the archive");
    restoreErrorHandler();
    return !failed();
}

}  // namespace perfmarker::exporter::db
