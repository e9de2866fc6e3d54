// No exception crosses relite's API: the public entry points run their work
// through CatchExceptions, which turns what escapes (std::bad_alloc from a
// huge allocation a model asked for, anything a library throws) into an
// error value naming the call.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "relite/status.h"

namespace relite {

template <typename F>
auto CatchExceptions(const char* what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(std::string(what) + ": out of memory (an allocation failed)");
  } catch (const std::exception& e) {
    return InternalError(std::string(what) + ": unexpected exception: " + e.what());
  } catch (...) {
    return InternalError(std::string(what) + ": unexpected exception");
  }
}

}  // namespace relite
