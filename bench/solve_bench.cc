// Speed of the strategy calls alone (build/failmap_solve_bench): every compiled-in
// mechanism at N = 1..CASES (the default binding's parameter swept, as
// `failmap instantiate --param N=1..CASES` would), every strategy of the build
// run over each case's seven checks with run_strategy, ROUNDS times, in one
// thread. No archive, no documents, no digests: what is timed is the argument
// checks, the solve bodies and the comparison with the expected values.
//
//   failmap_solve_bench [CASES [ROUNDS]]     (defaults 20 and 200)
//
// Prints one line per mechanism, "ID CALLS CPU_SECONDS CALLS_PER_CPU_SECOND",
// then "all CALLS CPU_SECONDS CALLS_PER_CPU_SECOND" (a call is one solve() of
// one check; CPU time of this process, so a busy machine skews it less), and
// exits 1 if any strategy returned an Error (a bench of refusals would time
// the error path instead).
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "core/mechanism.h"

namespace {

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main(int argc, char** argv) {
  using namespace failmap;
  const long cases = argc > 1 ? std::stol(argv[1]) : 20;
  const long rounds = argc > 2 ? std::stol(argv[2]) : 200;
  long all_calls = 0;
  double all_cpu = 0.0;
  int status = 0;
  RunOutcome out;
  for (const Mechanism* m : all_mechanisms()) {
    std::vector<Case> built;
    for (long n = 1; n <= cases; ++n) {
      const long maximum = m->parameter_maximum.empty() ? n : m->parameter_maximum[0];
      if (n < m->parameter_minimum[0] || n > maximum) continue;
      auto c = make_case(*m, "FA-" + std::to_string(n), 1, {{std::string(m->parameters[0]), Value::integer(n)}});
      if (!c) {
        std::fprintf(stderr, "%s: %s\n", std::string(m->id).c_str(), c.error().message.c_str());
        return 2;
      }
      built.push_back(std::move(*c));
    }
    long calls = 0;
    const double start = cpu_seconds();
    for (long r = 0; r < rounds; ++r) {
      for (const Case& c : built) {
        for (StrategyKind kind : k_all_strategies) {
          if (!m->strategy(kind).solve) continue;
          if (auto s = run_strategy(c, *m, kind, &out); !s) {
            std::fprintf(stderr, "%s\n", s.error().message.c_str());
            status = 1;
          }
          calls += static_cast<long>(c.fixtures.size());
        }
      }
    }
    const double cpu = cpu_seconds() - start;
    std::printf("%-36s %10ld %8.3f %14.0f\n", std::string(m->id).c_str(), calls, cpu, calls / cpu);
    all_calls += calls;
    all_cpu += cpu;
  }
  std::printf("%-36s %10ld %8.3f %14.0f\n", "all", all_calls, all_cpu, all_calls / all_cpu);
  return status;
}
