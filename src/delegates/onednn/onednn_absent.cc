// Built where oneDNN's headers are absent (or on a CPU architecture the
// delegate is not built for): the delegate exists and declines every node.
#include "relite/onednn_delegate.h"

namespace relite {
namespace {

constexpr const char* kAbsent =
    "oneDNN delegate unavailable: this build of relite has no oneDNN support (libdnnl-dev was not found at configure "
    "time, or the CPU architecture is not x86-64)";

class AbsentOnednnDelegate final : public Delegate {
 public:
  std::string name() const override { return "onednn"; }
  std::string display_name() const override { return "oneDNN"; }
  NodeSupport CheckNode(const DelegateGraph&, int) override { return NodeSupport::Unsupported(kAbsent); }
  StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph&, DelegatePartition&) override {
    return UnavailableError(kAbsent);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Delegate>> CreateOnednnDelegate(const OnednnDelegateOptions& options) {
  if (options.threads < 0) return InvalidArgumentError("oneDNN delegate: threads must be >= 0");
  return std::unique_ptr<Delegate>(std::make_unique<AbsentOnednnDelegate>());
}

Status OnednnDelegateAvailability(const Delegate& delegate) {
  if (dynamic_cast<const AbsentOnednnDelegate*>(&delegate) == nullptr) return InvalidArgumentError("not a oneDNN delegate");
  return UnavailableError(kAbsent);
}

OnednnDelegateStats GetOnednnDelegateStats(const Delegate&) { return OnednnDelegateStats(); }

}  // namespace relite
