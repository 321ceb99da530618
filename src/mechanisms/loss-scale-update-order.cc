// Loss scale update order
// =======================
//
// The failure. A gradient norm measured on loss-scaled gradients is divided
// by the loss scale to report (or clip by) the true norm. The scale that
// multiplied this step's gradients is the one in effect during backward();
// the scaler's update for the step (halve on overflow, double after
// growth_interval clean steps) comes after. DeepSpeed issue 2686 found ZeRO
// stage 1/2 updating the scale first and then unscaling the norm with the
// updated value: on every step where the scale grew, the reported norm is
// half the true one, and gradient clipping decisions taken on it are wrong.
// The broken path updates, then unscales.
//
// Why the unsuccessful fix fails. Unscaling with the configured initial
// scale (the static loss_scale or 2**initial_scale_power) sidesteps the
// ordering question; it is constructed here as the unsuccessful fix because
// it is what a static-scale code path does. It is right until the dynamic
// scaler first moves the scale, and wrong on every step after a growth or a
// backoff, including the steps the broken order got right.
//
// Why the repair holds. Each clean step's norm is divided by the scale held
// during that step's backward pass, and only then does the scaler update:
// overflow halves the scale (the step is skipped and reports no norm), and
// the growth tracker doubles it after growth_interval consecutive clean
// steps, as torch.cuda.amp.GradScaler.update does (an overflow resets that
// count: a check has clean steps on both sides of an overflow). Scales are powers of two
// in the fixtures, so every division is exact in Python and in C++.
//
// Source: https://github.com/deepspeedai/DeepSpeed/issues/2686
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Order { UpdateThenUnscale, InitialScale, UnscaleThenUpdate };

Result<Value> unscaled_norms(const std::vector<double>& norms, args::IntListView overflow, double init_scale,
                             std::int64_t growth_interval, Order order) {
  double scale = init_scale;
  std::int64_t tracker = 0;
  std::vector<double> out;
  const std::size_t n = std::min(norms.size(), overflow.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (overflow[i] != 0) {
      scale = scale * 0.5;
      tracker = 0;
      continue;
    }
    const double used = order == Order::InitialScale ? init_scale : scale;
    ++tracker;
    if (tracker == growth_interval) {
      scale = scale * 2.0;
      tracker = 0;
    }
    FAILMAP_TRY_ASSIGN(auto norm, args::divide(norms[i], order == Order::UpdateThenUnscale ? scale : used));
    out.push_back(norm);
  }
  return args::float_list_value(out);
}

Result<Value> broken(const std::vector<double>& norms, args::IntListView overflow, double init_scale,
                     std::int64_t growth_interval) {
  return unscaled_norms(norms, overflow, init_scale, growth_interval, Order::UpdateThenUnscale);
}
Result<Value> unsuccessful(const std::vector<double>& norms, args::IntListView overflow, double init_scale,
                           std::int64_t growth_interval) {
  return unscaled_norms(norms, overflow, init_scale, growth_interval, Order::InitialScale);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& norms, args::IntListView overflow, double init_scale,
                       std::int64_t growth_interval) {
  return unscaled_norms(norms, overflow, init_scale, growth_interval, Order::UnscaleThenUpdate);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_loss_scale_update_order() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "loss-scale-update-order",
      .title = "Loss scale update order",
      .source = "https://github.com/deepspeedai/DeepSpeed/issues/2686",
      .evaluation_group = {"grad-scaler-update"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A gradient norm is unscaled with the loss scale after its update",
              .summary = "A gradient norm is unscaled with the loss scale after its update.",
              .root_cause = "The scaler's update for the step runs before the norm is unscaled, so a step whose "
                            "scale grew is divided by the new, doubled scale.",
              .failure = "The broken path updates the scale first and reports half the true norm on every growth "
                         "step.",
              .unsuccessful_approach = "Unscaling with the configured initial scale is right only until the "
                                       "dynamic scaler first grows or backs off.",
              .contract = "For each step without overflow, return its scaled norm divided by the scale in effect "
                          "during that step; then halve the scale on overflow or double it after growth_interval "
                          "consecutive clean steps (an overflow resets the count of clean steps to zero, and a "
                          "growth starts it again from zero, as GradScaler.update does).",
              .why_it_matters = "Clipping and divergence alarms read this norm; an off-by-a-factor-of-two norm on "
                                "growth steps makes both fire or stay silent at the wrong time.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(norms, overflow, init_scale, growth_interval):\n"
               "    scale = init_scale\n"
               "    tracker = 0\n"
               "    out = []\n"
               "    for norm, found_inf in zip(norms, overflow):\n"
               "        if found_inf:\n"
               "            scale = scale * 0.5\n"
               "            tracker = 0\n"
               "            continue\n"
               "        tracker += 1\n"
               "        if tracker == growth_interval:\n"
               "            scale = scale * 2.0\n"
               "            tracker = 0\n"
               "        out.append(norm / scale)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(norms, overflow, init_scale, growth_interval):\n"
               "    scale = init_scale\n"
               "    tracker = 0\n"
               "    out = []\n"
               "    for norm, found_inf in zip(norms, overflow):\n"
               "        if found_inf:\n"
               "            scale = scale * 0.5\n"
               "            tracker = 0\n"
               "            continue\n"
               "        tracker += 1\n"
               "        if tracker == growth_interval:\n"
               "            scale = scale * 2.0\n"
               "            tracker = 0\n"
               "        out.append(norm / init_scale)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(norms, overflow, init_scale, growth_interval):\n"
               "    scale = init_scale\n"
               "    tracker = 0\n"
               "    out = []\n"
               "    for norm, found_inf in zip(norms, overflow):\n"
               "        if found_inf:\n"
               "            scale = scale * 0.5\n"
               "            tracker = 0\n"
               "            continue\n"
               "        out.append(norm / scale)\n"
               "        tracker += 1\n"
               "        if tracker == growth_interval:\n"
               "            scale = scale * 2.0\n"
               "            tracker = 0\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"growth on the second step", "[4.0*N*1024.0,2.0*1024.0],[0,0],1024.0,2", "[4.0*N,2.0]"},
              {"after a growth", "[1.0*1024.0,3.0*N*2048.0],[0,0],1024.0,1", "[1.0,3.0*N]"},
              {"no growth", "[2.0*N*65536.0],[0],65536.0,1000", "[2.0*N]"},
              {"after a backoff", "[0.0,5.0*N*512.0],[1,0],1024.0,1000", "[5.0*N]"},
              {"no steps", "[],[],1024.0,2", "[]"},
              {"growth on every step", "[1.0*1024.0,1.0*2048.0,1.0*N*4096.0],[0,0,0],1024.0,1", "[1.0,1.0,1.0*N]"},
              {"an overflow restarts the clean-step count", "[4.0*N*1024.0,0.0,2.0*512.0,3.0*N*512.0],[0,1,0,0],1024.0,2",
               "[4.0*N,2.0,3.0*N]"},
      },
  };
  return k_mechanism;
}
