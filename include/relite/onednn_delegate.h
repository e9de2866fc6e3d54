// The oneDNN delegate: hands the float ops of a model to Intel's oneDNN
// (Debian's libdnnl2, primitives API), which JIT-compiles kernels for the
// exact CPU, including the matrix hardware relite's own kernels do not use
// (AVX-512 BF16; AMX tiles on Intel Sapphire Rapids and later).
//
//   relite::OnednnDelegateOptions options;                 // fp32
//   options.precision = relite::OnednnPrecision::kBf16;    // allow precision loss
//   auto onednn = relite::CreateOnednnDelegate(options);
//   auto interp = relite::InterpreterBuilder(*model, resolver).AddDelegate(onednn->get()).Build();
//
// It checks the CPU first. Where it would bring no gain (oneDNN's best ISA
// here is below AVX-512), where libdnnl cannot be loaded, or where bf16 is
// asked for on a CPU without AVX-512 BF16 or AMX, applying it still succeeds
// and every node stays on relite's CPU kernels, with the reason in the
// delegation report; `force` delegates below AVX-512 anyway. 8-bit nodes
// always stay on relite's CPU kernels, which are bit-exact with TFLite.
//
// libdnnl.so.2 is loaded at run time (dlopen); RELITE_ONEDNN_LIBRARY
// overrides the name, and oneDNN's own ONEDNN_MAX_CPU_ISA caps its ISA. A
// partition's tensors stay in the blocked layouts oneDNN chooses and are
// reordered only at its boundaries; weights are reordered once, when the
// delegate is applied, where every primitive is also created (JIT), so that
// errors reach the caller then and never mid-Invoke.
// The delegate must outlive the interpreters it was applied to.
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <memory>
#include <string>

#include "relite/delegate.h"
#include "relite/status.h"

namespace relite {

enum class OnednnPrecision : uint8_t {
  kFp32,  // float tensors and arithmetic
  kBf16,  // bfloat16 tensors and weights inside partitions, float accumulation (precision loss: opt-in)
};

struct OnednnDelegateOptions {
  OnednnPrecision precision = OnednnPrecision::kFp32;
  // Delegate even where the CPU check expects no gain (below AVX-512).
  bool force = false;
  // oneDNN's threads inside a partition; 0: the interpreter's thread count.
  int threads = 0;
  int max_delegated_partitions = 0;  // largest first; 0: all
  int min_nodes_per_partition = 1;
};

// The delegate; an error only for invalid options (threads < 0, ...). When
// oneDNN is unusable here, the delegate declines every node with the reason
// (OnednnDelegateAvailability says which).
RELITE_API StatusOr<std::unique_ptr<Delegate>> CreateOnednnDelegate(const OnednnDelegateOptions& options = {});

// Ok when the delegate takes nodes; otherwise Unavailable (no libdnnl) or
// FailedPrecondition ("no gain on this CPU: ...", "bf16 needs ...").
RELITE_API Status OnednnDelegateAvailability(const Delegate& delegate);

// What a oneDNN delegate built, summed over the interpreters it was applied to.
struct OnednnDelegateStats {
  std::string library;   // "libdnnl.so.2 (oneDNN 2.6.3)"; empty when not loaded
  std::string isa;       // oneDNN's effective ISA: "avx512_core_bf16"
  std::string precision; // "fp32" or "bf16"
  int partitions = 0;
  int nodes = 0;           // model nodes in those partitions
  int primitives = 0;      // primitives executed per Invoke, reorders included
  int boundary_reorders = 0;  // of which converting at partition inputs/outputs
  int fused_nodes = 0;     // nodes folded into their producer as post-ops
  // Initialisation (ms): building the partitions in all (wall time). Its
  // last phase creates the primitives (JIT) and reorders the weights side by
  // side on the interpreter's threads: those two are thread time, summed
  // over the threads, and together can exceed build_ms.
  double build_ms = 0, primitive_create_ms = 0, weight_reorder_ms = 0;
  uint64_t weight_bytes = 0;  // weights held in oneDNN's layouts
};
// Zeros for any other delegate.
RELITE_API OnednnDelegateStats GetOnednnDelegateStats(const Delegate& delegate);

}  // namespace relite
