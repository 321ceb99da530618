// A case row's texts: what a new row stores besides the case's own strings
// (computed off the archive's thread by import), what a read row leaves to
// parse, and the decoding functions for stored columns that other readers
// share. Implemented in store/case_rows.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "io/digest.h"

namespace failmap {

/// The columns of a case row that need parsing, as stored (JSON text, the
/// tier's name): what Archive::Scan::decode reads.
struct CaseRowTexts {
  std::string tier, params, evaluation_group, fixture_labels, fixture_values;
  /// The packed field digests the archive stores for the case
  /// (schema/007_case_texts.sql): cases.field_digests (empty with
  /// `row_field_digests_null` when NULL) and case_texts.field_digests. Read
  /// by read_case_rows with CaseFields::Record only.
  std::string row_field_digests, text_field_digests;
  bool row_field_digests_null = false;
};

/// The texts a new case row stores besides the case's own strings: the JSON of
/// its binding, tags, fixture labels and fixture values (schema/006) and its
/// field digests. They need no archive, so import computes them on its
/// worker threads and hands them to Archive::insert_case.
struct CaseInsertTexts {
  std::string params;              ///< e.g. {"N": 1}
  std::string evaluation_group;    ///< JSON array of the sorted tags
  std::string fixture_labels;      ///< JSON array of labels
  std::string fixture_values;      ///< JSON array of [args, expected] pairs
  std::string row_field_digests;   ///< cases.field_digests (schema/007): digests of k_row_digest_fields; "" without
                                   ///< digests (NULL)
  std::string text_field_digests;  ///< case_texts.field_digests: digests of k_text_digest_fields; "" without digests
};

/// The row texts of `c`; field_digests from `digests` when given.
CaseInsertTexts case_insert_texts(const Case& c, const CaseDigests* digests);

/// One stored fixture as texts: its label and the JSON texts of its
/// arguments and expected value, as a case row keeps them (schema/006).
struct StoredFixtureText {
  std::string label;
  std::string_view args;      ///< JSON array text, e.g. "[[1, 1, 1], 2]"
  std::string_view expected;  ///< JSON value text, e.g. "3"
};

/// Splits a case row's fixture_labels and fixture_values columns (schema/006:
/// a JSON array of labels; a JSON array of [args, expected] pairs, in the
/// same order) into per-fixture texts viewing `values`. An Error names
/// `where` and the column: not arrays, a label that is not a string, a pair
/// that is not two elements, or counts that differ.
Result<std::vector<StoredFixtureText>> split_stored_fixtures(std::string_view labels, std::string_view values,
                                                             const std::string& where);

/// The binding rule of import (binding_problem, src/core/case.h) applied to
/// a case read back from the archive, so that a binding edited outside
/// failmap (a float such as 1.0000000000000000001, which a double would
/// round to 1.0) is refused alike by every command that reads it, never
/// used rounded. An Error "WHERE, field params.N: what", WHERE naming the
/// archive and the case; ok for a case of an unknown mechanism (named where
/// its mechanism is looked up).
Status check_stored_binding(const Case& c, const std::string& where);

/// Decodes a stored params column (Python JSON, `{"N": 7}` as params_json
/// writes it; schema/001) into c.params, replacing them, then applies
/// check_stored_binding. c.mechanism must be set. Errors name `where` (the
/// archive and the case) and the field: "WHERE, field params: ..." for text
/// that is not a JSON object, "WHERE, field params.N: ..." for a value or a
/// binding the rule refuses.
Status decode_stored_params(std::string_view text, Case& c, const std::string& where);

}  // namespace failmap
