// The API filter file of a session (docs/session.md): the names of the APIs the trace leaves
// out, one per line. Read by both agents (which slots they leave alone) and by the merge (the
// header's excluded APIs), so that they all read the file the same way.
#pragma once

#include <set>
#include <string>

namespace perfmarker::atp {

// Adds the file's API names to `names`: one name per line, white space around it trimmed,
// blank lines ignored; names are not checked against a catalogue. False, with `error` set
// ("cannot read the API filter file <path>"), when the file cannot be opened.
bool readApiFilter(const std::string& path, std::set<std::string>& names, std::string& error);

}  // namespace perfmarker::atp
