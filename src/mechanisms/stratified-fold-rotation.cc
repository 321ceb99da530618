// Stratified folds that stack every class's extras on the first folds
// ===================================================================
//
// The failure. Stratified k-fold gives each fold n_c // k samples of every
// class c and must spread the n_c % k left-over samples so that the folds
// stay within one sample of each other. An implementation that hands each
// class's extras to folds 0, 1, ... every time stacks them: the first folds
// collect one extra per class and grow by up to the number of classes.
// paiml/aprender pull request 2151 reports it for its StratifiedKFold:
// labels [0]*10 + [1]*10 with k = 3 gave folds of [8, 6, 6] where
// scikit-learn gives [7, 7, 6]; the fix carries a cumulative offset across
// classes so the extras rotate. scikit-learn issue 14673 discusses the same
// imbalance ("fold sizes unequal by n_classes").
//
// Why the unsuccessful fix fails. Rotating by the class index (class c's
// extras start at fold c % k) evens out the common case of one extra per
// class, but a class with two or more extras makes the next class start on
// a fold that already has one: remainders 2 and 1 with k = 3 still stack two
// extras on fold 1. (Constructed: the offset must be the running count of
// extras, which the index equals only when every remainder is 1.)
//
// Why the repair holds. Classes are taken in ascending label order with a
// running offset o (0 at the start): class c's r_c extras go to folds
// (o + j) % k for j < r_c, then o grows by r_c. This is what dealing the
// label-sorted samples round-robin over the folds gives. Counts only; the
// C++ gives the Python's integers.
//
// Source: https://github.com/paiml/aprender/pull/2151
#include <map>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Offset { AlwaysZero, ClassIndex, RunningExtras };

Result<Value> per_fold_counts(args::IntListView labels, std::int64_t k, Offset how) {
  if (k <= 0 || k > 100000) return input_error("ValueError: k out of range for this reproducer");
  std::map<std::int64_t, std::int64_t> sizes;
  for (auto y : labels) ++sizes[y];
  const auto classes = static_cast<std::int64_t>(sizes.size());
  if (classes > 100000) return input_error("too many classes for this reproducer");
  std::vector<std::vector<std::int64_t>> folds(static_cast<std::size_t>(k),
                                               std::vector<std::int64_t>(static_cast<std::size_t>(classes), 0));
  std::int64_t running = 0;
  std::int64_t ci = 0;
  for (const auto& [label, n] : sizes) {
    const std::int64_t base = n / k;
    const std::int64_t extra = n % k;
    std::int64_t offset = 0;
    if (how == Offset::ClassIndex) offset = ci % k;
    if (how == Offset::RunningExtras) offset = running % k;
    for (std::int64_t f = 0; f < k; ++f) folds[static_cast<std::size_t>(f)][static_cast<std::size_t>(ci)] = base;
    for (std::int64_t j = 0; j < extra; ++j) ++folds[static_cast<std::size_t>((offset + j) % k)][static_cast<std::size_t>(ci)];
    running += extra;
    ++ci;
  }
  std::vector<Value> out;
  for (const auto& f : folds) out.push_back(args::int_list_value(f));
  return Value::list(std::move(out));
}

Result<Value> broken(args::IntListView labels, std::int64_t k) { return per_fold_counts(labels, k, Offset::AlwaysZero); }

Result<Value> unsuccessful(args::IntListView labels, std::int64_t k) {
  return per_fold_counts(labels, k, Offset::ClassIndex);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView labels, std::int64_t k) {
  return per_fold_counts(labels, k, Offset::RunningExtras);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_stratified_fold_rotation() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "stratified-fold-rotation",
      .title = "Stratified folds that stack every class's extras on the first folds",
      .source = "https://github.com/paiml/aprender/pull/2151",
      .evaluation_group = {"fold-partition"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Stratified k-fold gives every class's left-over samples to the same first folds",
              .summary = "Stratified k-fold gives every class's left-over samples to the same first folds.",
              .root_cause = "Each class's n_c % k extra samples go to folds 0, 1, ... regardless of where the "
                            "previous classes' extras went.",
              .failure = "The broken path makes the first folds larger by up to one sample per class, so fold "
                         "sizes differ by more than one.",
              .unsuccessful_approach = "Starting each class's extras at fold (class index) % k balances classes "
                                       "with one extra each but stacks extras after a class with two or more.",
              .contract = "Return, per fold, the number of samples of each class (classes in ascending label "
                          "order): n_c // k each, and class c's n_c % k extras on folds (o + j) % k for j < n_c % k, "
                          "where o is the total number of extras of the classes before c.",
              .why_it_matters = "Stratified folds are meant to be interchangeable; folds that differ in size by the "
                                "number of classes skew the per-fold scores and their spread.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(labels, k):\n"
               "    classes = sorted(set(labels))\n"
               "    folds = [[0] * len(classes) for _ in range(k)]\n"
               "    for ci, c in enumerate(classes):\n"
               "        n = labels.count(c)\n"
               "        for f in range(k):\n"
               "            folds[f][ci] = n // k\n"
               "        for j in range(n % k):\n"
               "            folds[j][ci] += 1\n"
               "    return folds\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(labels, k):\n"
               "    classes = sorted(set(labels))\n"
               "    folds = [[0] * len(classes) for _ in range(k)]\n"
               "    for ci, c in enumerate(classes):\n"
               "        n = labels.count(c)\n"
               "        for f in range(k):\n"
               "            folds[f][ci] = n // k\n"
               "        for j in range(n % k):\n"
               "            folds[(ci + j) % k][ci] += 1\n"
               "    return folds\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(labels, k):\n"
               "    classes = sorted(set(labels))\n"
               "    folds = [[0] * len(classes) for _ in range(k)]\n"
               "    offset = 0\n"
               "    for ci, c in enumerate(classes):\n"
               "        n = labels.count(c)\n"
               "        for f in range(k):\n"
               "            folds[f][ci] = n // k\n"
               "        for j in range(n % k):\n"
               "            folds[(offset + j) % k][ci] += 1\n"
               "        offset += n % k\n"
               "    return folds\n"),
          }},
      .fixtures =
          {
              {"remainders 2 and 1", "[0]*(3*N+2)+[1]*(3*N+1),3", "[[N+1,N],[N+1,N],[N,N+1]]"},
              {"remainders 1 and 1", "[0]*(6*N+1)+[1]*(6*N+1),3", "[[2*N+1,2*N],[2*N,2*N+1],[2*N,2*N]]"},
              {"the same labels in two folds", "[0]*(6*N+1)+[1]*(6*N+1),2", "[[3*N+1,3*N],[3*N,3*N+1]]"},
              {"remainders 2 and 1, more samples", "[0]*(6*N+2)+[1]*(6*N+1),3",
               "[[2*N+1,2*N],[2*N+1,2*N],[2*N,2*N+1]]"},
              {"three classes, one extra each", "[0]*(3*N+1)+[1]*(3*N+1)+[2]*(3*N+1),3",
               "[[N+1,N,N],[N,N+1,N],[N,N,N+1]]"},
              {"no remainders", "[0]*(3*N)+[1]*(3*N),3", "[[N,N],[N,N],[N,N]]"},
              {"remainders 2 and 2", "[0]*(3*N+2)+[1]*(3*N+2),3", "[[N+1,N+1],[N+1,N],[N,N+1]]"},
          },
  };
  return k_mechanism;
}
