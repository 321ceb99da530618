// Uncertainty of a grading's figures (schema/GRADING.md "Intervals"): a
// percentile bootstrap that resamples units — cases linked by mechanism or
// evaluation group (core/split.h), which are correlated, so resampling single
// cases would give intervals too narrow — and the paired comparison of two
// models (`failmap grade compare`): the difference in resolved rate over the
// cases both attempted, its bootstrap interval over units, and a paired
// sign-flip permutation test over units.
//
// Deterministic on every machine: the only pseudo-random input is
// SHA-256 of (rule version, seed, scope, replicate) expanded by splitmix64,
// sums are taken in a written-down order, and the rule is specified in
// schema/GRADING.md precisely enough to reimplement (tests/data/stats_reference.py
// does, in Python).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/split.h"

namespace failmap {

/// Bootstrap replicates of every interval.
inline constexpr std::uint32_t k_bootstrap_replicates = 2000;
/// Units up to which the permutation test enumerates every sign pattern
/// (2^16 = 65536); above, k_permutation_draws random patterns.
inline constexpr std::size_t k_exact_permutation_units = 16;
inline constexpr std::uint32_t k_permutation_draws = 20000;

/// A two-sided 95% interval: the 2.5th and 97.5th percentiles of the
/// bootstrap distribution (sorted replicate values v[0..B-1]: v[ceil(0.025
/// B) - 1] and v[ceil(0.975 B) - 1]; for B = 2000, v[49] and v[1949]).
struct Interval {
  double low = 0;
  double high = 0;
};

/// The seeded stream of a replicate: splitmix64 (Steele, Lea and Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014,
/// https://doi.org/10.1145/2660193.2660195) started at the first 8 bytes,
/// big-endian, of SHA-256(`label` NUL decimal(seed) NUL scope NUL
/// decimal(replicate)).
class ReplicateStream {
 public:
  ReplicateStream(std::string_view label, std::uint64_t seed, std::string_view scope, std::uint64_t replicate);
  /// The next 64-bit output of splitmix64.
  std::uint64_t next();
  /// next() mod n (n >= 1).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t m_state = 0;
};

/// Cases grouped into units, each case with one value per statistic (e.g.
/// pass@1, pass@2, …): units[u][i][s] is statistic s of case i of unit u.
using UnitValues = std::vector<std::vector<std::vector<double>>>;

/// The percentile bootstrap over units of the mean over cases, for each of
/// `statistics` statistics. Replicate b (0 ≤ b < `replicates`) draws m =
/// units.size() units with replacement: draw j is unit
/// ReplicateStream("failmap-bootstrap-v1", seed, scope, b).below(m), the j-th
/// call. Its value is (sum over the draws, in draw order, of the unit's sum
/// of its cases' values in case order) / (the drawn units' case count), in
/// doubles, each sum starting at 0.0. nullopt when there are fewer than 2
/// units (one unit's resampling says nothing) or a unit without cases.
std::optional<std::vector<Interval>> unit_bootstrap(const UnitValues& units, std::size_t statistics,
                                                    std::string_view scope, std::uint64_t seed,
                                                    std::uint32_t replicates = k_bootstrap_replicates);

/// How cases are linked into units.
enum class UnitLinks {
  /// "mechanism:<id>" and "group:<tag>" (link_case, as `failmap split` does).
  MechanismAndGroups,
  /// "group:<tag>" only, each case named "case:<id>": the units within one
  /// mechanism, whose cases all share its mechanism link.
  GroupsOnly,
};

/// The units of `cases` (core/split.h Partition: unit keys in byte order,
/// unit_of per case in the given order).
Partition case_units(const std::vector<const Case*>& cases, UnitLinks links);

/// One case both models attempted: its unit and each model's resolved rate
/// there (resolved samples / samples).
struct PairedCase {
  std::uint32_t unit = 0;
  double a = 0;
  double b = 0;
};

/// What `failmap grade compare` reports of models A and B.
struct PairedComparison {
  std::size_t cases = 0;  ///< cases both attempted
  std::size_t units = 0;  ///< units those cases fall into
  /// Mean over the cases of (a - b): the sum over units in unit order of
  /// each unit's sum of (a - b) over its cases in case order, divided by
  /// `cases`.
  double difference = 0;
  /// unit_bootstrap of the per-case differences (scope as given); nullopt
  /// with fewer than 2 units.
  std::optional<Interval> interval;
  /// Two-sided p-value of the paired sign-flip permutation test over units
  /// (H0: within each unit, A's and B's results are exchangeable). With
  /// unit sums D_u and observed T = |sum_u D_u|, a sign pattern s gives
  /// |sum_u s_u D_u| (sum in unit order; it counts when ≥ T - 1e-9 (1 +
  /// T), absorbing rounding). Up to k_exact_permutation_units units every
  /// pattern is enumerated (pattern p flips unit u when bit u of p is set)
  /// and p = count / 2^m; above, k_permutation_draws patterns r with s_u =
  /// -1 when the u-th ReplicateStream("failmap-permutation-v1", seed, scope,
  /// r).next() is odd, and p = (1 + count) / (1 + draws).
  double p_value = 1;
  bool exact = true;               ///< every pattern enumerated
  std::uint64_t permutations = 0;  ///< patterns counted
};

/// Compares two models on `cases` (in the order their sums are taken: the
/// caller sorts them by unit, then case id). `unit_count` is the number of
/// units the indexes run over; units without a case are left out (renumbered
/// in order). Errors: no case.
Result<PairedComparison> paired_comparison(const std::vector<PairedCase>& cases, std::size_t unit_count,
                                           std::string_view scope, std::uint64_t seed);

}  // namespace failmap
