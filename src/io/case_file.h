// Case files (cases/*.json) and case records: JSON <-> Case.
// The shape is schema/case.schema.json (JSON Schema draft-07, validated with
// valijson); format "failmap-case", format_version 1.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/case.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"

namespace failmap {

/// Newest case-file format this failmap reads and the one it writes.
inline constexpr int k_case_format_version = 1;

/// Validates `j` against the embedded case-file JSON Schema, then converts it
/// and checks it against the compiled registry (validate_case). Every
/// problem goes to `problems` as an Input problem at file `where` ("" when
/// the caller names the place itself), line 0, with its field (described:
/// "WHERE: field 'x': what"); a newer format_version is refused with a
/// message naming both versions. Returns true and fills `out` when there
/// were none.
bool case_from_json(const Json& j, const std::string& where, Case* out, ProblemSink problems);

/// True only when `j` certainly satisfies schema/case.schema.json: the same
/// rules checked directly (byte lengths within the schema's character
/// limits). False means "not sure": case_from_json then runs the JSON Schema
/// validator (valijson), which decides and names every problem. The import
/// fast path; a unit test holds it to refuse every schema violation it is
/// shown.
bool surely_matches_case_schema(const Json& j);

/// The case as a case-file JSON object, keys in schema order. With
/// `include_published` false the page's digests are left out.
Json case_to_json(const Case& c, bool include_published = true);

/// Appends the members of case_to_json(c, include_published) — without the
/// braces — exactly as dump_compact prints them, without building a JSON tree
/// (the export fast path; a unit test holds the two equal). Published runs
/// for which `keep_published` returns false are left out (and "published"
/// with them when nothing is left). `tier_key` names the access tier's
/// member: "tier" in a case file, "case_tier" in a bundle's case record of
/// format version 3 (schema/BUNDLE.md).
void append_case_members(std::string& out, const Case& c, bool include_published,
                         const std::function<bool(const PublishedRun&)>& keep_published = {},
                         const char* tier_key = "tier");

/// Reads, parses (parse_json_strict) and converts one case file, then
/// checks its published runs as a page import checks a page's `Exit N`
/// lines: each strategy once, its exit status the computed one (a case file
/// is written by hand; a bundle record, which case_from_json reads, may
/// carry a page's disagreeing status kept by `import --force`). Problems go
/// to `problems` as Input problems: at file PATH with their field ("PATH:
/// field 'published.runs[I].exit_status': ..."), or, when the file cannot be
/// read or parsed, the reader's message alone, which names PATH (and the
/// line and column). False when there were any, `*out` then unspecified.
bool read_case_file(const std::filesystem::path& path, Case* out, ProblemSink problems);

}  // namespace failmap
