// relite zoo: writes one of the sample architectures (tools/relite/zoo_nets.cc)
// with deterministic pseudo-random weights.
#include <fmt/format.h>

#include "tools/relite/common.h"
#include "tools/relite/convert.h"
#include "tools/relite/zoo_nets.h"

namespace relite::cli {

int ZooCommand(const ZooOptions& options) {
  if (options.list) {
    for (const auto& e : zoo::ZooModels()) fmt::print("{:<18} {}\n", e.name, e.description);
    return 0;
  }
  if (options.name.empty()) return ReportError("zoo: no model name given (see 'relite zoo --list')");
  if (options.out.empty()) return ReportError("zoo: --out FILE is required");
  if (options.weights != "float32" && options.weights != "float16") {
    return ReportError(fmt::format("zoo: --weights must be float32 or float16, not '{}'", options.weights));
  }
  ModelWriter w(fmt::format("relite zoo {} --seed {} --weights {}", options.name, options.seed, options.weights));
  if (Status s = zoo::BuildZooModel(options.name, options.seed, options.weights == "float16", &w); !s.ok()) {
    return ReportError(s);
  }
  if (Status s = w.WriteFile(options.out); !s.ok()) return ReportError(s);
  fmt::print("wrote {} ({}, seed {}, {} weights)\n", options.out, options.name, options.seed, options.weights);
  return 0;
}

}  // namespace relite::cli
