#include "grade/stats.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>

namespace failmap {

ReplicateStream::ReplicateStream(std::string_view label, std::uint64_t seed, std::string_view scope,
                                 std::uint64_t replicate) {
  std::string msg(label);
  msg.push_back('\0');
  msg += std::to_string(seed);
  msg.push_back('\0');
  msg += scope;
  msg.push_back('\0');
  msg += std::to_string(replicate);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(msg.data(), msg.size(), md, &len, EVP_sha256(), nullptr);
  for (int i = 0; i < 8; ++i) m_state = (m_state << 8) | md[i];
}

std::uint64_t ReplicateStream::next() {
  m_state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = m_state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::optional<std::vector<Interval>> unit_bootstrap(const UnitValues& units, std::size_t statistics,
                                                    std::string_view scope, std::uint64_t seed,
                                                    std::uint32_t replicates) {
  const std::size_t m = units.size();
  if (m < 2 || replicates == 0) return std::nullopt;
  // Each unit's sum per statistic, in case order.
  std::vector<std::vector<double>> sums(m, std::vector<double>(statistics, 0.0));
  std::vector<std::uint64_t> sizes(m);
  for (std::size_t u = 0; u < m; ++u) {
    if (units[u].empty()) return std::nullopt;
    sizes[u] = units[u].size();
    for (const auto& values : units[u])
      for (std::size_t s = 0; s < statistics; ++s) sums[u][s] += values.at(s);
  }
  std::vector<std::vector<double>> reps(statistics, std::vector<double>(replicates));
  std::vector<double> total(statistics);
  for (std::uint32_t b = 0; b < replicates; ++b) {
    ReplicateStream stream("failmap-bootstrap-v1", seed, scope, b);
    std::fill(total.begin(), total.end(), 0.0);
    std::uint64_t count = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t u = static_cast<std::size_t>(stream.below(m));
      for (std::size_t s = 0; s < statistics; ++s) total[s] += sums[u][s];
      count += sizes[u];
    }
    for (std::size_t s = 0; s < statistics; ++s) reps[s][b] = total[s] / static_cast<double>(count);
  }
  const std::size_t lo = (25 * std::size_t{replicates} + 999) / 1000 - 1;
  const std::size_t hi = (975 * std::size_t{replicates} + 999) / 1000 - 1;
  std::vector<Interval> out(statistics);
  for (std::size_t s = 0; s < statistics; ++s) {
    std::sort(reps[s].begin(), reps[s].end());
    out[s] = Interval{reps[s][lo], reps[s][hi]};
  }
  return out;
}

Partition case_units(const std::vector<const Case*>& cases, UnitLinks links) {
  UnitBuilder builder(static_cast<std::uint32_t>(cases.size()));
  for (std::uint32_t i = 0; i < cases.size(); ++i) {
    const Case& c = *cases[i];
    if (links == UnitLinks::MechanismAndGroups) {
      link_case(builder, i, c);
    } else {
      builder.link(i, "case:" + c.id);
      for (const std::string& tag : c.evaluation_group) builder.link(i, "group:" + tag);
    }
  }
  // Every case carries a Naming key (its mechanism, or "case:<id>"), so
  // build() cannot fail.
  auto p = std::move(builder).build();
  return p ? std::move(*p) : Partition{};
}

Result<PairedComparison> paired_comparison(const std::vector<PairedCase>& cases, std::size_t unit_count,
                                           std::string_view scope, std::uint64_t seed) {
  if (cases.empty()) return input_error("no case was attempted by both models");
  // Renumber the units that hold a case, in unit order.
  std::vector<std::int64_t> renumber(unit_count, -1);
  std::vector<std::uint32_t> used;
  for (const PairedCase& c : cases) {
    if (c.unit >= unit_count) return input_error("paired_comparison: unit index out of range");
    if (renumber[c.unit] < 0) {
      renumber[c.unit] = 0;
      used.push_back(c.unit);
    }
  }
  std::sort(used.begin(), used.end());
  for (std::size_t k = 0; k < used.size(); ++k) renumber[used[k]] = static_cast<std::int64_t>(k);
  const std::size_t m = used.size();
  UnitValues values(m);
  for (const PairedCase& c : cases) values[static_cast<std::size_t>(renumber[c.unit])].push_back({c.a - c.b});
  std::vector<double> d(m, 0.0);
  for (std::size_t u = 0; u < m; ++u)
    for (const auto& v : values[u]) d[u] += v[0];
  double total = 0.0;
  for (double x : d) total += x;
  PairedComparison out;
  out.cases = cases.size();
  out.units = m;
  out.difference = total / static_cast<double>(cases.size());
  if (auto iv = unit_bootstrap(values, 1, scope, seed)) out.interval = iv->front();
  const double observed = std::fabs(total);
  const double threshold = observed - 1e-9 * (1.0 + observed);
  std::uint64_t count = 0;
  if (m <= k_exact_permutation_units) {
    const std::uint64_t patterns = std::uint64_t{1} << m;
    for (std::uint64_t p = 0; p < patterns; ++p) {
      double t = 0.0;
      for (std::size_t u = 0; u < m; ++u) t += ((p >> u) & 1) ? -d[u] : d[u];
      if (std::fabs(t) >= threshold) ++count;
    }
    out.exact = true;
    out.permutations = patterns;
    out.p_value = static_cast<double>(count) / static_cast<double>(patterns);
  } else {
    for (std::uint32_t r = 0; r < k_permutation_draws; ++r) {
      ReplicateStream stream("failmap-permutation-v1", seed, scope, r);
      double t = 0.0;
      for (std::size_t u = 0; u < m; ++u) t += (stream.next() & 1) ? -d[u] : d[u];
      if (std::fabs(t) >= threshold) ++count;
    }
    out.exact = false;
    out.permutations = k_permutation_draws;
    out.p_value = static_cast<double>(1 + count) / static_cast<double>(1 + k_permutation_draws);
  }
  return out;
}

}  // namespace failmap
