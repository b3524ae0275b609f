// The pages of kernel profile files (docs/summary.md#kernel-profile-pages): the "Kernel Profile
// Page" of per-dispatch CSVs (per kernel and device: dispatches, Time, each counter's total and
// average) and the "Occupancy Page" of `.occupancy` files (per kernel and device: registers, LDS,
// the limiting resource, the occupancy). Like the trace pages they keep aggregates, not rows, and
// give Tables for the same renderers and the HTML report.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/format.h"
#include "analysis/summary.h"
#include "profile/read/csv_reader.h"
#include "profile/read/occupancy_reader.h"

namespace perfmarker::analysis {

class KernelProfilePage {
public:
    // A file's rows come between beginFile() and endFile(), with the file's info.
    void beginFile(const profile::ProfileCsvInfo& info);
    void addRow(const profile::DispatchRow& row);
    void endFile(const profile::ProfileCsvInfo& info);

    bool empty() const { return m_files == 0; }
    // Kernels by total time, largest first (by dispatches when no file has a Time column); ties
    // in name order.
    Table table() const;

private:
    struct CounterStats {
        uint64_t count = 0;  // dispatches with a value (not NA)
        double total = 0;
        uint64_t wholeTotal = 0;  // exact total of an Integer counter
    };
    struct KernelStats {
        uint64_t dispatches = 0;
        DurationStats time;
        std::map<size_t, CounterStats> counters;  // by index into m_counters
    };
    struct Counter {
        std::string name;
        bool isFloat = false;  // a file wrote a value of it that is no whole number
    };

    std::map<std::pair<std::string, std::string>, KernelStats> m_kernels;  // (kernel, device)
    std::vector<Counter> m_counters;     // every file's counters, first seen first
    std::vector<size_t> m_fileCounters;  // the current file's counter i is m_counters[...]
    std::vector<std::string> m_notes;
    uint64_t m_files = 0;
    bool m_fileHasTime = false;  // the current file has a Time column
    bool m_anyTime = false;      // a file had a Time column
    uint64_t m_timeMissing = 0;  // dispatches of such files whose Time is NA
};

class OccupancyPage {
public:
    // A file's rows, then endFile() with its info.
    void addRow(const profile::OccupancyRow& row);
    void endFile(const profile::OccupancyInfo& info);

    bool empty() const { return m_files == 0; }
    // Kernels by their lowest occupancy, lowest first; ties in name order.
    Table table() const;

private:
    // The smallest and largest of a value over a kernel's dispatches.
    struct Range {
        uint64_t min = 0;
        uint64_t max = 0;
        void add(uint64_t value, bool first);
    };
    struct KernelOccupancy {
        uint64_t dispatches = 0;
        Range vgprs;
        Range sgprs;
        Range ldsBytes;
        Range workgroupSize;
        double minPercent = 0;
        double maxPercent = 0;
        profile::OccupancyRow worst;  // the first dispatch with the lowest occupancy
    };

    std::map<std::pair<std::string, std::string>, KernelOccupancy> m_kernels;
    std::vector<std::string> m_notes;
    uint64_t m_files = 0;
};

// Reads kernel profile files into the two pages.
class ProfilePages {
public:
    // Reads `path` as what its content says (profile/read/profile_lines.h), a `.csv` or an
    // `.occupancy` file; a file that is neither is read as its extension says and refused with
    // the reader's message. False with `error` = "<file>:<line>: <what>" on the first problem.
    bool addFile(const std::string& path, std::string& error);
    // The same from streams; `file` names the input in messages and notes.
    bool addCsv(std::istream& in, const std::string& file, std::string& error);
    bool addOccupancy(std::istream& in, const std::string& file, std::string& error);

    // The Kernel Profile Page when a CSV was read, then the Occupancy Page when an occupancy
    // file was read (each also without rows: a note says the file had no dispatches).
    void appendTables(std::vector<Table>& out) const;
    std::vector<Table> tables() const;

private:
    bool addCsvFile(const std::string& path, std::string& error);
    bool addOccupancyFile(const std::string& path, std::string& error);

    KernelProfilePage m_kernels;
    OccupancyPage m_occupancy;
};

}  // namespace perfmarker::analysis
