// External item listings for `failmap split --input` (schema/SPLITS.md
// "Listings"): JSON Lines (RFC 8259 per line, UTF-8, '\n'-separated), one
// object per line with an `id` (string or integer) and one or more group
// fields. A group field holds a string, an integer, an array of those, or
// null (no value). Items sharing any value of any group field are linked.
//
// The reader is a strict streaming SAX pass (RapidJSON) with no per-item DOM,
// because listings run to millions of lines: each line must be exactly one
// JSON object; invalid UTF-8, NUL bytes, blank lines (but an empty last
// line, which is ignored), a BOM anywhere but at the very start of the file
// (schema/BUNDLE.md "Byte-order marks"), duplicate top-level keys, duplicate
// ids, floats/booleans/objects as ids or group values, and integers beyond
// int64 there are refused with "PATH:LINE: what" (syntax errors also with
// the column and what was found there). A folder is refused as one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/split.h"

namespace failmap {

/// A listing read into memory, grouped into units.
struct Listing {
  std::string text;                     ///< the file's bytes
  std::vector<std::string_view> lines;  ///< per item: its line in `text`, without '\n'
  /// The ids' JSON spellings (a JSON string literal as Python's json.dumps
  /// writes it, or a decimal integer), back to back; item i's ends at
  /// id_end[i]. One arena instead of a million small strings.
  std::string id_text;
  std::vector<std::size_t> id_end;
  /// Item i's id in JSON spelling.
  std::string_view id(std::size_t i) const {
    std::size_t begin = i == 0 ? 0 : id_end[i - 1];
    return std::string_view(id_text).substr(begin, id_end[i] - begin);
  }
  /// Units over the items. Link keys are "FIELD=VALUE" with VALUE in JSON
  /// spelling, e.g. `group="g17"` or `author=42`.
  Partition partition;
};

/// Reads and groups a listing. `group_fields` are the --group-field names
/// (at least one, distinct, not "id").
Result<Listing> read_listing(const std::filesystem::path& path, const std::vector<std::string>& group_fields);

}  // namespace failmap
