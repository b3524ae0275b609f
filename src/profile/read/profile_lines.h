// What the two profile readers share (docs/profile.md#reading-profile-files): lines with their
// numbers, the header lines, fields split on the list separator, numbers, and telling a profile
// file from anything else by its content.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfmarker::profile {

// The kind of a file, from its first lines: `#ProfileFileVersion=` or a `Method, ExecutionOrder`
// column line is the per-dispatch CSV; `# ProfilerVersion=` (hash, space) or a `Thread ID, Kernel
// Name` column line is the `.occupancy` file.
enum class ProfileFileKind : uint8_t { NotProfile, Csv, Occupancy };

// Decides from the text of the file's start (a few KiB are enough).
ProfileFileKind detectProfileText(std::string_view head);
// Reads the start of `path`; NotProfile when it cannot be opened (the caller's reader says why).
ProfileFileKind detectProfileFile(const std::string& path);
// ".csv" or ".occupancy": a file that should be a profile, refused as one when it is not.
bool hasProfileExtension(std::string_view path);
// What the tools read as a profile file rather than a trace: its content says so, or its
// extension does (then the profile reader says what is wrong with it).
bool isProfileInput(const std::string& path);

// Lines of a stream, numbered from 1, without the line end ("\n" or "\r\n") and, on the first
// line, without a UTF-8 byte order mark.
class LineReader {
public:
    explicit LineReader(std::istream& in) : m_in(in) {}
    bool next(std::string& line);
    uint64_t lineNumber() const { return m_line; }
    // True when the stream failed for another reason than its end (a read error).
    bool failed() const { return m_in.bad(); }

private:
    std::istream& m_in;
    uint64_t m_line = 0;
};

// Feeds every line of `in` to `parser` (bool line(text, number, error)), then calls its
// finish(error): what both profile readers do with a stream. A read error names `file` and the
// last line read.
template <typename Parser>
bool feedLines(std::istream& in, const std::string& file, Parser& parser, std::string& error) {
    LineReader lines(in);
    std::string line;
    while (lines.next(line)) {
        if (!parser.line(line, lines.lineNumber(), error)) return false;
    }
    if (lines.failed()) {
        error = file + ": read error after line " + std::to_string(lines.lineNumber());
        return false;
    }
    return parser.finish(error);
}

// Opens `path` for reading; false with "<path>: cannot open: <why>" in `error`.
bool openProfileInput(const std::string& path, std::ifstream& in, std::string& error);

// `text` without spaces and tabs around it.
std::string_view trimBlanks(std::string_view text);

// The fields of a line split on `separator`, blanks around each trimmed.
std::vector<std::string_view> splitFields(std::string_view line, char separator);

// The list separator of a column line that starts with `firstColumn`: the first character after
// it that is no blank. No value when the line does not start so or has nothing after it.
std::optional<char> separatorAfter(std::string_view line, std::string_view firstColumn);

// The value of a `#ListSeparator=` / `# ListSeparator=` key: one character, or `\t` written out.
std::optional<char> parseListSeparator(std::string_view value);

// A header line `#Key=Value` (`# Key=Value` when `spaceAfterHash`): the key and the value, the
// value as written. No value when the line is no such line.
std::optional<std::pair<std::string, std::string>> parseHeaderLine(std::string_view line,
                                                                   bool spaceAfterHash);

// Decimal numbers of a whole field (already trimmed): no sign, no blanks inside.
std::optional<uint64_t> parseCount(std::string_view text);
std::optional<double> parseReal(std::string_view text);

// `'text'` for messages, cut at 40 characters.
std::string quoted(std::string_view text);

}  // namespace perfmarker::profile
