// The CUDA spelling of the macros and OpenCL C built-ins the op templates are
// written against (cl/cl_prelude.h is the OpenCL one): CUDA C++ has the
// vector types but none of their arithmetic, so the operators and the
// per-lane built-ins (clamp, fmax, rint, exp, convert_int4, select, ...) are
// defined here with OpenCL's semantics. Half storage is 16-bit words
// converted with PTX's cvt (round to nearest even), as vstore_half does; no
// header is needed, so NVRTC compiles the programs on any machine.
#pragma once

namespace relite::gpu::cuda {

// Prepended to every program, after "#define RELITE_FP16 0|1" and the
// launch's defines.
inline constexpr const char* kCudaPrelude = R"CU(
#define RELITE_GPU_DEVICE 1
#define KERNEL extern "C" __global__
#define GLOBAL
#define INLINE __device__ __forceinline__
#define LOCAL_MEM __shared__
#define BARRIER() __syncthreads()
#define GLOBAL_ID(i) relite_global_id(i)
#define LOCAL_ID(i) relite_local_id(i)
#define GROUP_ID(i) relite_group_id(i)
#define F4(x) relite_f4(x)
#define I4(x) make_int4((x), (x), (x), (x))
#define INFINITY __int_as_float(0x7f800000)
typedef unsigned char uchar;
typedef signed char schar;
typedef unsigned int uint;

INLINE int relite_global_id(int d) {
  return d == 0 ? (int)(blockIdx.x * blockDim.x + threadIdx.x)
                : d == 1 ? (int)(blockIdx.y * blockDim.y + threadIdx.y) : (int)(blockIdx.z * blockDim.z + threadIdx.z);
}
INLINE int relite_local_id(int d) { return d == 0 ? (int)threadIdx.x : d == 1 ? (int)threadIdx.y : (int)threadIdx.z; }
INLINE int relite_group_id(int d) { return d == 0 ? (int)blockIdx.x : d == 1 ? (int)blockIdx.y : (int)blockIdx.z; }

INLINE float4 relite_f4(float x) { return make_float4(x, x, x, x); }
INLINE float4 relite_f4(float4 v) { return v; }

#define RELITE_F4_BINARY(OP)                                                                                          \
  INLINE float4 operator OP(float4 a, float4 b) { return make_float4(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); } \
  INLINE float4 operator OP(float4 a, float b) { return make_float4(a.x OP b, a.y OP b, a.z OP b, a.w OP b); }         \
  INLINE float4 operator OP(float a, float4 b) { return make_float4(a OP b.x, a OP b.y, a OP b.z, a OP b.w); }         \
  INLINE float4& operator OP##=(float4& a, float4 b) { return a = a OP b; }                                           \
  INLINE float4& operator OP##=(float4& a, float b) { return a = a OP b; }
RELITE_F4_BINARY(+)
RELITE_F4_BINARY(-)
RELITE_F4_BINARY(*)
RELITE_F4_BINARY(/)
INLINE float4 operator-(float4 a) { return make_float4(-a.x, -a.y, -a.z, -a.w); }

#define RELITE_I4_BINARY(T, OP)                                                                          \
  INLINE T operator OP(T a, T b) { T r; r.x = a.x OP b.x; r.y = a.y OP b.y; r.z = a.z OP b.z; r.w = a.w OP b.w; return r; } \
  INLINE T operator OP(T a, decltype(T().x) b) { T r; r.x = a.x OP b; r.y = a.y OP b; r.z = a.z OP b; r.w = a.w OP b; return r; }
RELITE_I4_BINARY(int4, +)
RELITE_I4_BINARY(int4, -)
RELITE_I4_BINARY(int4, *)
RELITE_I4_BINARY(int4, /)
RELITE_I4_BINARY(int4, >>)
RELITE_I4_BINARY(uint4, +)
RELITE_I4_BINARY(uint4, *)
// OpenCL's vector comparisons: -1 (all bits) where true, 0 where false.
INLINE int4 operator>(int4 a, int b) { return make_int4(a.x > b ? -1 : 0, a.y > b ? -1 : 0, a.z > b ? -1 : 0, a.w > b ? -1 : 0); }
// select(a, b, c): b where c's sign bit is set, else a.
INLINE int4 select(int4 a, int4 b, int4 c) {
  return make_int4(c.x < 0 ? b.x : a.x, c.y < 0 ? b.y : a.y, c.z < 0 ? b.z : a.z, c.w < 0 ? b.w : a.w);
}
INLINE int4 convert_int4(float4 v) { return make_int4((int)v.x, (int)v.y, (int)v.z, (int)v.w); }  // toward zero
INLINE float4 convert_float4(int4 v) { return make_float4((float)v.x, (float)v.y, (float)v.z, (float)v.w); }
INLINE uint4 as_uint4(int4 v) { return make_uint4((uint)v.x, (uint)v.y, (uint)v.z, (uint)v.w); }
INLINE int4 as_int4(uint4 v) { return make_int4((int)v.x, (int)v.y, (int)v.z, (int)v.w); }

INLINE float clamp(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }
INLINE int clamp(int v, int lo, int hi) { return min(max(v, lo), hi); }
INLINE int4 clamp(int4 v, int lo, int hi) { return make_int4(clamp(v.x, lo, hi), clamp(v.y, lo, hi), clamp(v.z, lo, hi), clamp(v.w, lo, hi)); }
INLINE float4 clamp(float4 v, float lo, float hi) {
  return make_float4(clamp(v.x, lo, hi), clamp(v.y, lo, hi), clamp(v.z, lo, hi), clamp(v.w, lo, hi));
}
INLINE float4 fmax(float4 a, float4 b) { return make_float4(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z), fmaxf(a.w, b.w)); }
INLINE float4 fmax(float4 a, float b) { return fmax(a, relite_f4(b)); }
INLINE float4 fmin(float4 a, float4 b) { return make_float4(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z), fminf(a.w, b.w)); }
INLINE float4 fmin(float4 a, float b) { return fmin(a, relite_f4(b)); }
#define RELITE_F4_UNARY(NAME, F) \
  INLINE float4 NAME(float4 v) { return make_float4(F(v.x), F(v.y), F(v.z), F(v.w)); }
RELITE_F4_UNARY(rint, rintf)
RELITE_F4_UNARY(exp, expf)
RELITE_F4_UNARY(tanh, tanhf)
RELITE_F4_UNARY(floor, floorf)
RELITE_F4_UNARY(ceil, ceilf)
RELITE_F4_UNARY(sqrt, sqrtf)
RELITE_F4_UNARY(fabs, fabsf)

// Tensor cores for the kernels that use them (conv_2d_tiled): sm_80 and
// later, unless the launch defines RELITE_CUDA_MMA 0 (RELITE_CUDA_MMA=0 in
// the environment: the FMA path, for A/B runs).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !(defined(RELITE_CUDA_MMA) && !RELITE_CUDA_MMA)
#define RELITE_TENSOR_CORES 1
// Round to TF32 (10 explicit mantissa bits), to nearest, ties away from zero.
INLINE uint relite_tf32(float x) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
// c += a * b for a 16x8 fragment of C, a 16x8 of A and an 8x8 of B.
INLINE void relite_mma_tf32(float* c, const uint* a, const uint* b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#else
#define RELITE_TENSOR_CORES 0
#endif

INLINE float relite_half_to_float(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
INLINE unsigned short relite_float_to_half(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
INLINE float4 relite_load_half4(const unsigned short* p, int i) {
  ushort4 h = ((const ushort4*)p)[i];
  return make_float4(relite_half_to_float(h.x), relite_half_to_float(h.y), relite_half_to_float(h.z), relite_half_to_float(h.w));
}
INLINE void relite_store_half4(unsigned short* p, int i, float4 v) {
  ((ushort4*)p)[i] = make_ushort4(relite_float_to_half(v.x), relite_float_to_half(v.y), relite_float_to_half(v.z),
                                  relite_float_to_half(v.w));
}
#if RELITE_FP16
#define STORAGE unsigned short
#define LOAD4(p, i) relite_load_half4((p), (i))
#define STORE4(p, i, v) relite_store_half4((p), (i), (v))
#define LOAD1(p, i) relite_half_to_float((p)[(i)])
#define STORE1(p, i, v) ((p)[(i)] = relite_float_to_half(v))
#else
#define STORAGE float
#define LOAD4(p, i) (((const float4*)(p))[(i)])
#define STORE4(p, i, v) (((float4*)(p))[(i)] = (v))
#define LOAD1(p, i) ((p)[(i)])
#define STORE1(p, i, v) ((p)[(i)] = (v))
#endif
#define LOADF4(p, i) (((const float4*)(p))[(i)])
#define STOREF4(p, i, v) (((float4*)(p))[(i)] = (v))
// Exact 8-bit arithmetic in the convolution-like kernels: as cl_prelude.h.
#if defined(INTEGER_CONV) && INTEGER_CONV
#define LOADX(p, i) rint(LOAD4(p, i) * in_inv_scale)
#define LOADX1(p, i) rintf(LOAD1(p, i) * in_inv_scale)
#define REQUANT_ARGS , GLOBAL const float* requant, float in_inv_scale, float out_scale
#define REQUANT(v, s) (rint((v) * LOADF4(requant, (s))) * out_scale)
#define REQUANT1(v, o) (rintf((v) * requant[(o)]) * out_scale)
#define BIAS_STORAGE float
#define LOAD_BIAS(p, i) LOADF4(p, i)
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
// An 8-bit tensor's quantize-dequantize, rounding half to even (as cl_prelude.h).
INLINE float fake_quant(float v, float inv_scale, float scale, float zero_point, float qmin, float qmax) {
  return (clamp(rintf(v * inv_scale) + zero_point, qmin, qmax) - zero_point) * scale;
}
INLINE float4 fake_quant(float4 v, float inv_scale, float scale, float zero_point, float qmin, float qmax) {
  return make_float4(fake_quant(v.x, inv_scale, scale, zero_point, qmin, qmax), fake_quant(v.y, inv_scale, scale, zero_point, qmin, qmax),
                     fake_quant(v.z, inv_scale, scale, zero_point, qmin, qmax), fake_quant(v.w, inv_scale, scale, zero_point, qmin, qmax));
}
// Exact 8-bit ADD/SUB (gpu_program.h, IntegerAdd), as cl_prelude.h: summed as
// unsigned (two's-complement wrap), then an arithmetic shift.
INLINE float4 qadd(float4 a, float4 b, float a_inv, float b_inv, int a_zp, int b_zp, int a_mul, int b_mul, int bias,
                   int shift, int out_zp, int qmin, int qmax, float out_scale) {
  uint4 qa = as_uint4(convert_int4(rint(a * a_inv)) + a_zp);
  uint4 qb = as_uint4(convert_int4(rint(b * b_inv)) + b_zp);
  int4 acc = as_int4(make_uint4((uint)bias, (uint)bias, (uint)bias, (uint)bias) + qa * (uint)a_mul + qb * (uint)b_mul);
  int4 q = clamp((acc >> shift) + out_zp, qmin, qmax);
  return convert_float4(q - out_zp) * out_scale;
}
// Channels past C in a tensor's last slice are stored as zeros.
INLINE float4 mask_tail(float4 v, int s, int C) {
  int left = C - s * 4;
  if (left < 4) {
    v.w = 0.0f;
    if (left < 3) v.z = 0.0f;
    if (left < 2) v.y = 0.0f;
  }
  return v;
}
)CU";

}  // namespace relite::gpu::cuda
