// The OpenCL spelling of the macros the op templates are written against.
#pragma once

namespace relite::gpu::cl {

// Prepended to every program, after "#define RELITE_FP16 0|1".
inline constexpr const char* kClPrelude = R"CL(
#define KERNEL __kernel
#define GLOBAL __global
#define GLOBAL_ID(i) ((int)get_global_id(i))
#define LOCAL_ID(i) ((int)get_local_id(i))
#define LOCAL_MEM __local
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define INLINE inline
#define F4(x) ((float4)(x))
#define I4 int4
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
