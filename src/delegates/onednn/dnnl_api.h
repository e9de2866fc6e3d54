// The oneDNN C API entry points the delegate uses, loaded at run time with
// dlopen (libdnnl.so.2, Debian's libdnnl2), so that relite builds with the
// headers only and runs where oneDNN is absent: the delegate then declines
// every node, naming the loader's reason.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <string>

#include "relite/status.h"

namespace relite::onednn {

#define RELITE_DNNL_FUNCTIONS(X)                 \
  X(dnnl_version)                                \
  X(dnnl_get_effective_cpu_isa)                  \
  X(dnnl_engine_create)                          \
  X(dnnl_engine_destroy)                         \
  X(dnnl_stream_create)                          \
  X(dnnl_stream_destroy)                         \
  X(dnnl_stream_wait)                            \
  X(dnnl_memory_desc_init_by_tag)                \
  X(dnnl_memory_desc_init_by_strides)            \
  X(dnnl_memory_desc_init_submemory)             \
  X(dnnl_memory_desc_reshape)                    \
  X(dnnl_memory_desc_equal)                      \
  X(dnnl_memory_desc_get_size)                   \
  X(dnnl_memory_create)                          \
  X(dnnl_memory_destroy)                         \
  X(dnnl_memory_set_data_handle)                 \
  X(dnnl_memory_get_data_handle)                 \
  X(dnnl_primitive_desc_create)                  \
  X(dnnl_primitive_desc_destroy)                 \
  X(dnnl_primitive_desc_query)                   \
  X(dnnl_primitive_desc_query_md)                \
  X(dnnl_primitive_create)                       \
  X(dnnl_primitive_destroy)                      \
  X(dnnl_primitive_execute)                      \
  X(dnnl_primitive_attr_create)                  \
  X(dnnl_primitive_attr_destroy)                 \
  X(dnnl_primitive_attr_set_post_ops)            \
  X(dnnl_post_ops_create)                        \
  X(dnnl_post_ops_destroy)                       \
  X(dnnl_post_ops_append_eltwise)                \
  X(dnnl_post_ops_append_binary)                 \
  X(dnnl_post_ops_append_sum)                    \
  X(dnnl_reorder_primitive_desc_create)          \
  X(dnnl_concat_primitive_desc_create)           \
  X(dnnl_dilated_convolution_forward_desc_init)  \
  X(dnnl_dilated_deconvolution_forward_desc_init) \
  X(dnnl_inner_product_forward_desc_init)        \
  X(dnnl_matmul_desc_init)                       \
  X(dnnl_binary_desc_init)                       \
  X(dnnl_eltwise_forward_desc_init)              \
  X(dnnl_softmax_forward_desc_init)              \
  X(dnnl_logsoftmax_forward_desc_init)           \
  X(dnnl_pooling_v2_forward_desc_init)           \
  X(dnnl_prelu_forward_desc_init)                \
  X(dnnl_resampling_forward_desc_init)           \
  X(dnnl_reduction_desc_init)

struct DnnlApi {
#define RELITE_DNNL_DECLARE(name) decltype(&::name) name = nullptr;
  RELITE_DNNL_FUNCTIONS(RELITE_DNNL_DECLARE)
#undef RELITE_DNNL_DECLARE
  // OpenMP's omp_set_num_threads from the library's runtime (Debian builds
  // oneDNN with GNU OpenMP); null when the runtime is not OpenMP.
  void (*omp_set_num_threads)(int) = nullptr;
  std::string library;  // the path or name that loaded
};

// The process-wide table, loaded once (thread-safe). Unavailable names the
// libraries tried and the loader's message, or the missing symbol.
// RELITE_ONEDNN_LIBRARY overrides the search ("/nonexistent": none).
StatusOr<const DnnlApi*> LoadDnnlApi();

// "dnnl_unimplemented (3)".
std::string DnnlStatusName(dnnl_status_t status);

// oneDNN's name of an ISA ("avx512_core_bf16").
std::string CpuIsaName(dnnl_cpu_isa_t isa);

}  // namespace relite::onednn
