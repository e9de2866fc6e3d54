#include "src/core/interpreter/graph_table.h"

#include <algorithm>
#include <cstring>

#include "fmt/format.h"
#include "src/core/interpreter/subgraph.h"
#include "tflite_generated.h"

namespace relite {

GraphTable::GraphTable(const Model& model, const OpResolver& resolver, ThreadPool* pool, const InterpreterOptions& options)
    : model_(model), resolver_(resolver), pool_(pool), options_(options) {
  const size_t n = model.fb() && model.fb()->subgraphs() ? model.fb()->subgraphs()->size() : 0;
  subgraphs_.resize(std::max<size_t>(n, 1));
  building_.assign(subgraphs_.size(), 0);
}

GraphTable::~GraphTable() = default;

Status GraphTable::BuildMain() { return Get(0, "the interpreter").status(); }

StatusOr<Subgraph*> GraphTable::Get(int index, const std::string& caller) {
  if (index < 0 || index >= num_subgraphs()) {
    return InvalidArgumentError(fmt::format("{}: {}: subgraph index {} is out of range (the model has {} subgraphs)",
                                            model_.name(), caller, index, num_subgraphs()));
  }
  const auto i = static_cast<size_t>(index);
  if (building_[i]) {
    return InvalidArgumentError(fmt::format("{}: {}: calls subgraph {}, which is still being built: subgraphs call each "
                                            "other in a cycle (recursion is not allowed)",
                                            model_.name(), caller, index));
  }
  if (subgraphs_[i]) return subgraphs_[i].get();
  auto sg = std::make_unique<Subgraph>(model_, index, pool_, options_.preserve_all_tensors, options_.limits, this);
  building_[i] = 1;
  Status s = sg->Build(resolver_);
  building_[i] = 0;
  RELITE_RETURN_IF_ERROR(s);
  subgraphs_[i] = std::move(sg);
  return subgraphs_[i].get();
}

int32_t GraphTable::HandleFor(const std::string& container, const std::string& shared_name) {
  auto [it, inserted] = handles_.try_emplace({container, shared_name}, static_cast<int32_t>(variables_.size()));
  if (inserted) {
    ResourceVariable v;
    v.name = container.empty() ? shared_name : container + "/" + shared_name;
    variables_.push_back(std::move(v));
  }
  return it->second;
}

ResourceVariable* GraphTable::Variable(int32_t handle) {
  if (handle < 0 || static_cast<size_t>(handle) >= variables_.size()) return nullptr;
  return &variables_[static_cast<size_t>(handle)];
}

bool GraphTable::InitializerRan(int subgraph) const {
  return std::find(initializers_.begin(), initializers_.end(), subgraph) != initializers_.end();
}

Status GraphTable::ResetResources() {
  for (ResourceVariable& v : variables_) std::fill(v.bytes.begin(), v.bytes.end(), 0);
  for (int index : initializers_) {
    Subgraph* sg = subgraphs_[static_cast<size_t>(index)].get();
    if (sg == nullptr) continue;
    RELITE_RETURN_IF_ERROR(sg->Invoke().WithContext(fmt::format("re-running initializer subgraph {}", index)));
  }
  return Status::Ok();
}

}  // namespace relite
