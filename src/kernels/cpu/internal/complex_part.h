// The complex-to-real elementwise ops (REAL, IMAG, COMPLEX_ABS): complex64
// to float32 and complex128 to float64, output shaped like the input, as
// TFLite's complex_support kernels.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {

// `Part` maps std::complex<T> to T (a generic lambda type).
template <typename Part>
class ComplexPartKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const DataType in = ctx.input(0).type;
    if (in != DataType::kComplex64 && in != DataType::kComplex128) {
      return ctx.Error("input type " + DataTypeName(in) + " is not supported (complex64 or complex128)");
    }
    RELITE_RETURN_IF_ERROR(
        CheckOutputType(ctx, 0, in == DataType::kComplex64 ? DataType::kFloat32 : DataType::kFloat64));
    return ctx.ResizeOutput(0, ctx.input(0).shape);
  }

  Status Eval(KernelContext& ctx) override {
    const int64_t n = ctx.input(0).num_elements();
    if (ctx.input(0).type == DataType::kComplex64) {
      Run(ctx, ctx.input(0).data_as<std::complex<float>>(), ctx.output(0).data_as<float>(), n);
    } else {
      Run(ctx, ctx.input(0).data_as<std::complex<double>>(), ctx.output(0).data_as<double>(), n);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(KernelContext& ctx, const std::complex<T>* in, T* out, int64_t n) {
    ParallelChunks(ctx, n, 1 << 14, [&](int64_t begin, int64_t end) {
      const Part part;
      for (int64_t i = begin; i < end; ++i) out[i] = part(in[i]);
    });
  }
};

template <typename Part>
std::unique_ptr<Kernel> MakeComplexPartKernel() {
  return std::make_unique<ComplexPartKernel<Part>>();
}

}  // namespace relite::cpu
