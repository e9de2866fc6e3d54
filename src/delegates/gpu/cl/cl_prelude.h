// The OpenCL spelling of the macros the op templates are written against.
#pragma once

namespace relite::gpu::cl {

// Prepended to every program, after "#define RELITE_FP16 0|1".
inline constexpr const char* kClPrelude = R"CL(
#define KERNEL __kernel
#define GLOBAL __global
#define GLOBAL_ID(i) ((int)get_global_id(i))
#define LOCAL_ID(i) ((int)get_local_id(i))
#define GROUP_ID(i) ((int)get_group_id(i))
#define LOCAL_MEM __local
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define INLINE inline
#define F4(x) ((float4)(x))
#define I4(x) ((int4)(x))
typedef char schar;  // int8 boundary buffers (CUDA spells it signed char)
#if RELITE_FP16
#define STORAGE half
#define LOAD4(p, i) vload_half4((i), (p))
#define STORE4(p, i, v) vstore_half4((v), (i), (p))
#define LOAD1(p, i) vload_half((i), (p))
#define STORE1(p, i, v) vstore_half((v), (i), (p))
#else
#define STORAGE float
#define LOAD4(p, i) vload4((i), (p))
#define STORE4(p, i, v) vstore4((v), (i), (p))
#define LOAD1(p, i) ((p)[(i)])
#define STORE1(p, i, v) ((p)[(i)] = (v))
#endif
#define LOADF4(p, i) vload4((i), (p))
#define STOREF4(p, i, v) vstore4((v), (i), (p))
// Exact 8-bit arithmetic in the convolution-like kernels (op_builder.h,
// IntegerConv): INTEGER_CONV 1 means inputs are read back as their
// codes minus the zero point (exact even from half storage: at most 255
// steps, half's error is under 0.13 of one), weights and the int32 bias are
// codes, and the sum is requantized per channel as the CPU does.
#if defined(INTEGER_CONV) && INTEGER_CONV
#define LOADX(p, i) rint(LOAD4(p, i) * in_inv_scale)
#define LOADX1(p, i) rint(LOAD1(p, i) * in_inv_scale)
#define REQUANT_ARGS , GLOBAL const float* requant, float in_inv_scale, float out_scale
#define REQUANT(v, s) (rint((v) * vload4((s), requant)) * out_scale)
#define REQUANT1(v, o) (rint((v) * requant[(o)]) * out_scale)
#define BIAS_STORAGE float
#define LOAD_BIAS(p, i) vload4((i), (p))
#define LOAD_BIAS1(p, i) ((p)[(i)])
#else
#define LOADX(p, i) LOAD4(p, i)
#define LOADX1(p, i) LOAD1(p, i)
#define REQUANT_ARGS
#define REQUANT(v, s) (v)
#define REQUANT1(v, o) (v)
#define BIAS_STORAGE STORAGE
#define LOAD_BIAS(p, i) LOAD4(p, i)
#define LOAD_BIAS1(p, i) LOAD1(p, i)
#endif
// An 8-bit tensor's quantize-dequantize (gpu_program.h, FakeQuant), rounding
// half to even as the CPU's conv-family, MUL, MEAN and QUANTIZE kernels; a macro
// so it serves float4 epilogues and the scalar ones (fully connected's
// reduction) alike: `v` is evaluated once.
// (a multiply by the reciprocal, as the CPU's QUANTIZE: no division per value).
#define fake_quant(v, inv_scale, scale, zero_point, qmin, qmax) \
  ((clamp(rint((v) * (inv_scale)) + (zero_point), (qmin), (qmax)) - (zero_point)) * (scale))
// Exact 8-bit ADD/SUB (gpu_program.h, IntegerAdd): operands back to their
// codes, XNNPACK's integer sum and arithmetic shift, the result's real value.
// Summed as unsigned (two's-complement wrap, as XNNPACK's int32 lanes; the
// true sum fits).
INLINE float4 qadd(float4 a, float4 b, float a_inv, float b_inv, int a_zp, int b_zp, int a_mul, int b_mul, int bias,
                   int shift, int out_zp, int qmin, int qmax, float out_scale) {
  uint4 qa = as_uint4(convert_int4(rint(a * a_inv)) + a_zp);
  uint4 qb = as_uint4(convert_int4(rint(b * b_inv)) + b_zp);
  int4 acc = as_int4((uint4)((uint)bias) + qa * (uint)a_mul + qb * (uint)b_mul);
  int4 q = clamp((acc >> shift) + out_zp, qmin, qmax);
  return convert_float4(q - out_zp) * out_scale;
}
// Channels past C in a tensor's last slice are stored as zeros: every kernel
// that can make them non-zero masks them before storing.
INLINE float4 mask_tail(float4 v, int s, int C) {
  int left = C - s * 4;
  if (left < 4) {
    v.w = 0.0f;
    if (left < 3) v.z = 0.0f;
    if (left < 2) v.y = 0.0f;
  }
  return v;
}
)CL";

}  // namespace relite::gpu::cl
