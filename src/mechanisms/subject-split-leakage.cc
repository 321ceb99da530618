// Rows of one subject split across train and test
// ===============================================
//
// The failure. When a dataset holds several rows per subject (a patient's
// visits, a speaker's clips), a split by row puts some of a subject's rows in
// training and others in test, and the model is tested on people it has
// already seen. OHDSI/PatientLevelPrediction pull request 153 replaces a
// splitter that "always splits on rowId" with one that keeps each subject's
// rows in one partition, because the row split "biases both cross validation
// and the final evaluation on the test set" (issue 181 of the same project
// shows a patient's near-identical visits on both sides). Subjects [1, 2, 2]
// with one test row give train [1, 2], test [2]: subject 2 on both sides.
//
// Why the unsuccessful fix fails. The maintainer's first version in that
// thread split the unique subject ids by the requested share ("might not get
// exact 75%/25% splits when people are in multiple times"): here the test
// takes ceil(n_test_rows * subjects / rows) whole subjects. No subject is on
// both sides, but the number of test ROWS follows the subjects' sizes: a run
// of small subjects at the end gives too few test rows, a large one too many.
//
// Why the repair holds. It takes whole subjects, from the last one (in order
// of first appearance) backwards, until the test set holds at least
// n_test_rows rows. No subject straddles the split and the test set is the
// smallest run of trailing subjects that reaches the requested size. All
// values are counts, the same in Python and C++.
//
// Source: https://github.com/OHDSI/PatientLevelPrediction/pull/153
#include <algorithm>
#include <map>
#include <set>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Split { ByRow, BySubjectShare, BySubjectRows };

Result<Value> split(args::IntListView subjects, std::int64_t n_test_rows, Split how) {
  const auto n = static_cast<std::int64_t>(subjects.size());
  std::vector<std::int64_t> order;
  std::map<std::int64_t, std::int64_t> rows;
  for (auto s : subjects) {
    if (rows.find(s) == rows.end()) order.push_back(s);
    ++rows[s];
  }
  if (how == Split::ByRow) {
    FAILMAP_TRY_ASSIGN(std::int64_t cut, checked_sub(n, n_test_rows));  // subjects[:cut], subjects[cut:] with Python's slice bounds
    if (cut < 0) cut += n;
    if (cut < 0) cut = 0;
    if (cut > n) cut = n;
    const std::vector<std::int64_t> all(subjects.begin(), subjects.end());
    const std::set<std::int64_t> train(all.begin(), all.begin() + cut);
    const std::set<std::int64_t> test(all.begin() + cut, all.end());
    std::int64_t both = 0;
    for (auto s : test)
      if (train.count(s)) ++both;
    return Value::list({Value::integer(cut), Value::integer(n - cut), Value::integer(both)});
  }
  std::int64_t taken = 0;
  if (how == Split::BySubjectShare) {
    FAILMAP_TRY_ASSIGN(auto num, checked_mul(n_test_rows, static_cast<std::int64_t>(order.size())));
    FAILMAP_TRY_ASSIGN(auto q, checked_floordiv(-num, n));
    const std::int64_t k = -q;
    // order[len(order) - k:] with Python's slice bounds
    std::int64_t start = static_cast<std::int64_t>(order.size()) - k;
    if (start < 0) start += static_cast<std::int64_t>(order.size());
    if (start < 0) start = 0;
    for (std::size_t i = static_cast<std::size_t>(std::min<std::int64_t>(start, order.size())); i < order.size(); ++i)
      taken += rows[order[i]];
  } else {
    for (auto it = order.rbegin(); it != order.rend() && taken < n_test_rows; ++it) taken += rows[*it];
  }
  return Value::list({Value::integer(n - taken), Value::integer(taken), Value::integer(0)});
}

Result<Value> broken(args::IntListView subjects, std::int64_t n_test_rows) {
  return split(subjects, n_test_rows, Split::ByRow);
}

Result<Value> unsuccessful(args::IntListView subjects, std::int64_t n_test_rows) {
  return split(subjects, n_test_rows, Split::BySubjectShare);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView subjects, std::int64_t n_test_rows) {
  return split(subjects, n_test_rows, Split::BySubjectRows);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_subject_split_leakage() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "subject-split-leakage",
      .title = "Rows of one subject split across train and test",
      .source = "https://github.com/OHDSI/PatientLevelPrediction/pull/153",
      .evaluation_group = {"split-leakage"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A split by row puts one subject's rows in both train and test",
              .summary = "A split by row puts one subject's rows in both train and test.",
              .root_cause = "The test set is the last n_test_rows rows, so a subject whose rows cross that cut is on "
                            "both sides of the split.",
              .failure = "The broken path tests the model on subjects it was trained on, and the test score "
                         "measures recognition of known subjects.",
              .unsuccessful_approach = "Splitting the unique subjects by the requested share keeps subjects whole "
                                       "but makes the test size in rows depend on which subjects come last.",
              .contract = "Return [train rows, test rows, subjects on both sides]: taking subjects in order of first "
                          "appearance from the last one backwards, add all rows of each subject to the test set "
                          "until it holds at least n_test_rows rows; every other row is train.",
              .why_it_matters = "Subject leakage is one of the most common reasons published medical and speech "
                                "results fail to replicate on new people.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(subjects, n_test_rows):\n"
               "    cut = len(subjects) - n_test_rows\n"
               "    train = set(subjects[:cut])\n"
               "    test = set(subjects[cut:])\n"
               "    return [len(subjects[:cut]), len(subjects[cut:]), len(train & test)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(subjects, n_test_rows):\n"
               "    order = []\n"
               "    for s in subjects:\n"
               "        if s not in order:\n"
               "            order.append(s)\n"
               "    k = -(-n_test_rows * len(order) // len(subjects))\n"
               "    test = set(order[len(order) - k:])\n"
               "    taken = len([s for s in subjects if s in test])\n"
               "    return [len(subjects) - taken, taken, 0]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(subjects, n_test_rows):\n"
               "    order = []\n"
               "    rows = {}\n"
               "    for s in subjects:\n"
               "        if s not in rows:\n"
               "            order.append(s)\n"
               "            rows[s] = 0\n"
               "        rows[s] += 1\n"
               "    taken = 0\n"
               "    for s in reversed(order):\n"
               "        if taken >= n_test_rows:\n"
               "            break\n"
               "        taken += rows[s]\n"
               "    return [len(subjects) - taken, taken, 0]\n"),
          }},
      .fixtures =
          {
              {"a subject straddling the row cut", "[1]*N+[2]*(N+1),N", "[N,N+1,0]"},
              {"the cut on a subject boundary", "[1]*(N+1)+[2]*N,N", "[N+1,N,0]"},
              {"one large last subject", "[1,2]+[3]*(2*N),1", "[2,2*N,0]"},
              {"one large last subject, more test rows", "[1,2]+[3]*(2*N),2*N+1", "[1,2*N+1,0]"},
              {"small subjects last", "[1]*(3*N+3)+[2]+[3],2", "[3*N+3,2,0]"},
              {"a large subject before a small one", "[1]+[2]*(2*N+2)+[3],2", "[1,2*N+3,0]"},
              {"subjects of equal size", "[1]*N+[2]*N+[3]*N+[4]*N,2*N", "[2*N,2*N,0]"},
          },
  };
  return k_mechanism;
}
