// drop_last on a small training set
// =================================
//
// The failure. A training loader is built with drop_last=True so that no
// optimizer step sees a tiny final batch (BatchNorm cannot normalise one
// sample, and a few samples get an outsized share of a step). When the
// dataset holds fewer samples than one batch, that drops the only batch:
// dreamquark-ai/tabnet issue 537 reports a small dataset under the default
// batch size of 1024 training for a hundred epochs with "loss: 0.0" and
// unchanged weights, and no error. The broken path here is drop_last=True as
// is: the batch sizes of an epoch are [batch_size] * (n // batch_size), empty
// when n < batch_size.
//
// Why the unsuccessful fix fails. Turning drop_last off, the issue's
// suggestion, trains the small dataset again but brings back the tiny final
// batch on every larger dataset that drop_last was there to avoid: 2N + 1
// samples in batches of 2 end in a batch of one. It is right only when the
// batch size divides the dataset or the dataset is a single batch.
//
// Why the repair holds. It keeps drop_last where there are more samples than
// one batch and turns it off otherwise, the rule vamb PR 425 adopted ("only
// set drop_last if there are more observations than one mini batch size"):
// a dataset of at most one batch is one batch of all its samples, a larger
// one is its full batches. Integer arithmetic only, checked in C++.
//
// Source: https://github.com/dreamquark-ai/tabnet/issues/537
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Policy { DropLast, KeepLast, DropLastIfMoreThanOneBatch };

Result<Value> batch_sizes(std::int64_t n_samples, std::int64_t batch_size, Policy policy) {
  if (policy == Policy::DropLastIfMoreThanOneBatch && n_samples <= batch_size) {
    return args::int_list_value({n_samples});
  }
  FAILMAP_TRY_ASSIGN(auto full, checked_floordiv(n_samples, batch_size));
  if (full > 1000000) return input_error("more than 1,000,000 batches are outside this reproducer");
  std::vector<std::int64_t> out(static_cast<std::size_t>(full < 0 ? 0 : full), batch_size);
  if (policy == Policy::KeepLast) {
    FAILMAP_TRY_ASSIGN(auto rest, checked_mod(n_samples, batch_size));
    if (rest != 0) out.push_back(rest);
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::int64_t n_samples, std::int64_t batch_size) {
  return batch_sizes(n_samples, batch_size, Policy::DropLast);
}

Result<Value> unsuccessful(std::int64_t n_samples, std::int64_t batch_size) {
  return batch_sizes(n_samples, batch_size, Policy::KeepLast);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t n_samples, std::int64_t batch_size) {
  return batch_sizes(n_samples, batch_size, Policy::DropLastIfMoreThanOneBatch);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_train_drop_last_small_dataset() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "train-drop-last-small-dataset",
      .title = "drop_last on a small training set",
      .source = "https://github.com/dreamquark-ai/tabnet/issues/537",
      .evaluation_group = {"train-drop-last"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "drop_last drops the only batch of a dataset smaller than one batch",
              .summary = "drop_last drops the only batch of a dataset smaller than one batch.",
              .root_cause = "The training loader always drops an incomplete final batch, and a dataset smaller than "
                            "the batch size has nothing but an incomplete batch.",
              .failure = "The broken path returns [batch_size] * (n // batch_size): no batch at all when n < "
                         "batch_size, so training silently does nothing.",
              .unsuccessful_approach = "Turning drop_last off trains small datasets but brings back the tiny final "
                                       "batch on every larger one.",
              .contract = "Return the batch sizes of one training epoch: one batch of all samples when n_samples <= "
                          "batch_size, otherwise the full batches only (the incomplete last batch dropped).",
              .why_it_matters = "A run that trains on nothing reports a finished model with unchanged weights; a "
                                "one-sample batch breaks BatchNorm or gives a few samples an outsized step.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(n_samples, batch_size):\n"
               "    return [batch_size] * (n_samples // batch_size)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(n_samples, batch_size):\n"
               "    sizes = [batch_size] * (n_samples // batch_size)\n"
               "    if n_samples % batch_size:\n"
               "        sizes.append(n_samples % batch_size)\n"
               "    return sizes\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(n_samples, batch_size):\n"
               "    if n_samples <= batch_size:\n"
               "        return [n_samples]\n"
               "    return [batch_size] * (n_samples // batch_size)\n"),
          }},
      .fixtures =
          {
              {"fewer samples than a batch", "N,N+1", "[N]"},
              {"exactly one batch", "N,N", "[N]"},
              {"a final batch of one", "2*N+1,2", "[2]*N"},
              {"a final batch of two", "3*N+2,3", "[3]*N"},
              {"a single sample", "1,N+1", "[1]"},
              {"just under two batches", "2*N+1,2*N+2", "[2*N+1]"},
              {"batches that divide", "4*N,2", "[2]*(2*N)"},
          },
  };
  return k_mechanism;
}
