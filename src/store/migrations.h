// The schema versions whose migration converts data in C++ (see
// Archive::migrate, store/migrations.cc), named where the conversion and
// the code that must know the old layout meet.
#pragma once

namespace failmap {

/// Schema version that added repair salts (schema/004_repair_salts.sql);
/// migrating to it gives every existing case a fresh salt.
inline constexpr int k_repair_salts_schema_version = 4;

/// Schema version that made recorded runs compact and moved the case digest
/// to its own table (schema/005_compact_runs.sql); migrating to it converts
/// every stored run losslessly (Archive::compact_v4_runs).
inline constexpr int k_compact_runs_schema_version = 5;

/// Schema version that moved a case's title and prose to the shared
/// case_texts table and made field digests raw bytes
/// (schema/007_case_texts.sql); migrating to it rebuilds the cases table with
/// foreign keys off (Archive::split_case_texts).
inline constexpr int k_case_texts_schema_version = 7;

/// Schema version that stores a repair commitment as its 32 digest bytes
/// instead of 64 hex characters (schema/008_commitment_bytes.sql); migrating
/// to it copies every repair_salts row (Archive::commitments_to_bytes).
inline constexpr int k_commitment_bytes_schema_version = 8;

/// Schema version that added the seal digest of each repair_salts row
/// (schema/009_seal_digests.sql); migrating to it computes every row's
/// (Archive::fill_seal_digests).
inline constexpr int k_seal_digests_schema_version = 9;

/// Schema version that moved each case's fixtures from seven `fixtures` rows
/// into the case row (schema/006_case_fixtures.sql); until it is applied,
/// migrations read fixtures from the old table.
inline constexpr int k_case_fixtures_schema_version = 6;

}  // namespace failmap
