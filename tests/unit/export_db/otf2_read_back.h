// An OTF2 archive read back with the OTF2 library's reader (OTF2_Reader), as an HPC tool reads
// it: the global definitions, then every location's events through the global event reader
// (merged in time order). The tests assert on what it collects.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perfmarker::exporter::db::test {

struct Otf2Event {
    bool enter = false;
    bool measurement = false;  // a MeasurementOnOff event (`enter`: on)
    uint64_t time = 0;
    uint32_t region = 0;
    std::map<std::string, std::string> attributes;  // by attribute name, values as text
};

struct Otf2LocationInfo {
    std::string name;
    OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
    uint64_t declaredEvents = 0;
    uint32_t group = 0;
    std::vector<Otf2Event> events;
};

struct Otf2GroupInfo {
    std::string name;
    OTF2_LocationGroupType type = OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
    uint32_t creator = OTF2_UNDEFINED_LOCATION_GROUP;
};

struct Otf2RegionInfo {
    std::string name;
    OTF2_RegionRole role = OTF2_REGION_ROLE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
};

struct Otf2Contents {
    bool ok = false;
    std::map<uint32_t, std::string> strings;
    std::map<uint32_t, Otf2RegionInfo> regions;
    std::map<uint32_t, std::string> attributeNames;
    std::map<uint32_t, OTF2_Type> attributeTypes;
    std::map<uint32_t, Otf2GroupInfo> groups;
    std::map<uint64_t, Otf2LocationInfo> locations;
    uint64_t resolution = 0;
    uint64_t globalOffset = 0;
    uint64_t traceLength = 0;
    uint64_t realtime = 0;
    uint64_t eventsRead = 0;

    const std::string& regionName(uint32_t region) const { return regions.at(region).name; }
    // Enter events of regions with this name, over all locations.
    size_t enters(const std::string& region) const {
        size_t count = 0;
        for (const auto& [id, location] : locations) {
            for (const Otf2Event& event : location.events) {
                if (event.measurement) continue;
                count += event.enter && regionName(event.region) == region ? 1 : 0;
            }
        }
        return count;
    }
};

namespace detail {

inline Otf2Contents& contents(void* data) { return *static_cast<Otf2Contents*>(data); }

inline OTF2_CallbackCode onString(void* data, OTF2_StringRef self, const char* text) {
    contents(data).strings[self] = text;
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onRegion(void* data, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef, OTF2_StringRef, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                                  uint32_t) {
    Otf2Contents& c = contents(data);
    c.regions[self] = Otf2RegionInfo{c.strings[name], role, paradigm};
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onAttribute(void* data, OTF2_AttributeRef self, OTF2_StringRef name,
                                     OTF2_StringRef, OTF2_Type type) {
    Otf2Contents& c = contents(data);
    c.attributeNames[self] = c.strings[name];
    c.attributeTypes[self] = type;
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onGroup(void* data, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                 OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                 OTF2_LocationGroupRef creator) {
    Otf2Contents& c = contents(data);
    c.groups[self] = Otf2GroupInfo{c.strings[name], type, creator};
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onLocation(void* data, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t events,
                                    OTF2_LocationGroupRef group) {
    Otf2Contents& c = contents(data);
    Otf2LocationInfo& location = c.locations[self];
    location.name = c.strings[name];
    location.type = type;
    location.declaredEvents = events;
    location.group = group;
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onClock(void* data, uint64_t resolution, uint64_t offset, uint64_t length,
                                 uint64_t realtime) {
    Otf2Contents& c = contents(data);
    c.resolution = resolution;
    c.globalOffset = offset;
    c.traceLength = length;
    c.realtime = realtime;
    return OTF2_CALLBACK_SUCCESS;
}

inline void addEvent(void* data, OTF2_LocationRef location, uint64_t time, OTF2_AttributeList* list,
                     uint32_t region, bool enter) {
    Otf2Contents& c = contents(data);
    Otf2Event event{enter, false, time, region, {}};
    const uint32_t count = list != nullptr ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
    for (uint32_t i = 0; i < count; ++i) {
        OTF2_AttributeRef attribute = 0;
        OTF2_Type type = OTF2_TYPE_NONE;
        OTF2_AttributeValue value;
        OTF2_AttributeList_GetAttributeByIndex(list, i, &attribute, &type, &value);
        std::string text = type == OTF2_TYPE_STRING  ? c.strings[value.stringRef]
                           : type == OTF2_TYPE_UINT8 ? std::to_string(value.uint8)
                                                     : std::to_string(value.uint64);
        event.attributes[c.attributeNames[attribute]] = text;
    }
    c.locations[location].events.push_back(std::move(event));
}

inline OTF2_CallbackCode onEnter(OTF2_LocationRef location, OTF2_TimeStamp time, void* data,
                                 OTF2_AttributeList* list, OTF2_RegionRef region) {
    addEvent(data, location, time, list, region, true);
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onLeave(OTF2_LocationRef location, OTF2_TimeStamp time, void* data,
                                 OTF2_AttributeList* list, OTF2_RegionRef region) {
    addEvent(data, location, time, list, region, false);
    return OTF2_CALLBACK_SUCCESS;
}

inline OTF2_CallbackCode onMeasurement(OTF2_LocationRef location, OTF2_TimeStamp time, void* data,
                                       OTF2_AttributeList*, OTF2_MeasurementMode mode) {
    Otf2Event event{mode == OTF2_MEASUREMENT_ON, true, time, 0, {}};
    contents(data).locations[location].events.push_back(std::move(event));
    return OTF2_CALLBACK_SUCCESS;
}

inline bool readDefinitions(OTF2_Reader* reader, Otf2Contents& c) {
    OTF2_GlobalDefReader* definitions = OTF2_Reader_GetGlobalDefReader(reader);
    if (definitions == nullptr) return false;
    OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, onString);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, onRegion);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(callbacks, onAttribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks, onGroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, onLocation);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, onClock);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, definitions, callbacks, &c);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    uint64_t read = 0;
    const bool ok =
        OTF2_Reader_ReadAllGlobalDefinitions(reader, definitions, &read) == OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalDefReader(reader, definitions);
    return ok;
}

inline bool readEvents(OTF2_Reader* reader, Otf2Contents& c) {
    for (const auto& [id, location] : c.locations) OTF2_Reader_SelectLocation(reader, id);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS) return false;
    OTF2_Reader_OpenEvtFiles(reader);
    for (const auto& [id, location] : c.locations) {
        if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader, id); local != nullptr) {
            uint64_t read = 0;
            OTF2_Reader_ReadAllLocalDefinitions(reader, local, &read);
            OTF2_Reader_CloseDefReader(reader, local);
        }
        OTF2_Reader_GetEvtReader(reader, id);
    }
    OTF2_Reader_CloseDefFiles(reader);
    OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader);
    OTF2_GlobalEvtReaderCallbacks* callbacks = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(callbacks, onEnter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(callbacks, onLeave);
    OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(callbacks, onMeasurement);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, callbacks, &c);
    OTF2_GlobalEvtReaderCallbacks_Delete(callbacks);
    const bool ok = OTF2_Reader_ReadAllGlobalEvents(reader, events, &c.eventsRead) == OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalEvtReader(reader, events);
    OTF2_Reader_CloseEvtFiles(reader);
    return ok;
}

}  // namespace detail

// Reads the archive whose anchor file is `anchor` (<dir>/traces.otf2).
inline Otf2Contents readOtf2(const std::string& anchor) {
    Otf2Contents c;
    OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
    if (reader == nullptr) return c;
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    c.ok = detail::readDefinitions(reader, c) && detail::readEvents(reader, c);
    OTF2_Reader_Close(reader);
    return c;
}

}  // namespace perfmarker::exporter::db::test
