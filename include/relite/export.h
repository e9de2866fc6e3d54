// What librelite.so exports: the public C++ API (marked RELITE_API) and the
// C API; everything else is built with hidden visibility.
#pragma once

#if defined(_WIN32)
#define RELITE_API
#else
#define RELITE_API [[gnu::visibility("default")]]
#endif
