// libFuzzer target: the PREDICTIONS.jsonl reader of `failmap grade`
// (src/io/predictions.h). The input is written to a scratch file because
// read_predictions reads files. Invariant: a prediction passed on has a
// valid case id, a model of 1-200 bytes that is its own NFC and passes the
// model-name rule again (io/model_name.h), and a sample in range.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "core/case.h"
#include "encoding/input_problem.h"
#include "io/model_name.h"
#include "io/predictions.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/dev/shm/failmap-fuzz-predictions-" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::vector<failmap::InputProblem> problems;
  failmap::read_predictions(
      path,
      [](failmap::Prediction&& p) {
        if (!failmap::valid_case_id(p.case_id) || p.model.empty() || p.model.size() > 200 || p.sample < 0)
          __builtin_trap();
        auto again = failmap::normalize_model_name(p.model);
        if (!again || *again != p.model) __builtin_trap();
      },
      &problems);
  return 0;
}
