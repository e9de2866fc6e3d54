// Loading: mmap (or copy) the bytes, then hand them to the verifier.
#include "relite/model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "src/core/base/exception_guard.h"
#include "src/core/model/model_facts.h"
#include "src/core/model/verifier.h"
#include "tflite_generated.h"

namespace relite {

Model::~Model() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
}

StatusOr<std::unique_ptr<Model>> Model::FromFile(const std::string& path) {
  return CatchExceptions("Model::FromFile", [&] { return Load(path); });
}

StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return IoError(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgumentError(path + ": not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    return InvalidArgumentError(path + ": file is empty (0 bytes), not a .tflite model");
  }
  void* base = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  close(fd);
  if (base == MAP_FAILED) return IoError(path + ": cannot map: " + std::strerror(err));
  std::unique_ptr<Model> model(new Model());
  model->name_ = path;
  model->mapping_ = base;
  model->mapping_size_ = size;
  model->data_ = static_cast<const uint8_t*>(base);
  model->size_ = size;
  return Verify(std::move(model));
}

StatusOr<std::unique_ptr<Model>> Model::FromBuffer(const void* data, size_t size, const std::string& name) {
  return CatchExceptions("Model::FromBuffer", [&] { return Copy(data, size, name); });
}

StatusOr<std::unique_ptr<Model>> Model::Copy(const void* data, size_t size, const std::string& name) {
  if (data == nullptr || size == 0) return InvalidArgumentError(name + ": empty model buffer");
  // 64-byte alignment keeps every 16-aligned flatbuffer vector aligned in memory.
  const size_t padded = (size + 63) / 64 * 64;
  auto* copy = static_cast<uint8_t*>(std::aligned_alloc(64, padded));
  if (copy == nullptr) return InternalError(name + ": out of memory copying the model");
  std::memcpy(copy, data, size);
  std::unique_ptr<Model> model(new Model());
  model->name_ = name;
  model->copy_ = std::unique_ptr<uint8_t[], void (*)(void*)>(copy, std::free);
  model->data_ = copy;
  model->size_ = size;
  return Verify(std::move(model));
}

StatusOr<std::unique_ptr<Model>> Model::Verify(std::unique_ptr<Model> model) {
  auto facts = std::make_shared<ModelFacts>();
  RELITE_ASSIGN_OR_RETURN(model->fb_, VerifyModel(model->data_, model->size_, model->name_, facts.get()));
  model->facts_ = std::move(facts);
  return model;
}

const std::vector<Signature>& Model::signatures() const { return facts_->signatures; }

std::pair<const uint8_t*, size_t> Model::buffer(uint32_t index) const {
  const auto* buffers = fb_->buffers();
  if (buffers == nullptr || index >= buffers->size()) return {nullptr, 0};
  const tflite::Buffer* b = buffers->Get(index);
  if (b == nullptr) return {nullptr, 0};
  if (b->offset() > 1) return {data_ + b->offset(), static_cast<size_t>(b->size())};
  if (b->data() == nullptr || b->data()->size() == 0) return {nullptr, 0};
  return {b->data()->data(), b->data()->size()};
}

}  // namespace relite
