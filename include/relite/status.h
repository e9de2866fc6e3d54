// Errors are values: every fallible relite call returns Status or StatusOr<T>.
#pragma once

#include "relite/export.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace relite {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,    // bad input from the caller or a malformed model
  kNotFound,           // a file, tensor or op registration that does not exist
  kUnimplemented,      // a valid model feature relite does not support (yet)
  kFailedPrecondition, // a call made in the wrong state (Invoke before AllocateTensors)
  kOutOfRange,
  kInternal,
  kUnavailable,        // a backend that cannot be used on this machine
  kIoError,
  kResourceExhausted,  // a resource limit (InterpreterOptions::limits) or memory ran out
};

RELITE_API const char* StatusCodeName(StatusCode code);

// Bytes from a model file (tensor, op and subgraph names, descriptions) made
// safe to print: printable ASCII, well-formed UTF-8 and newlines/tabs (when
// `keep_newlines`) pass; control bytes (terminal escape sequences), DEL and
// invalid UTF-8 become "\xNN". Idempotent (a backslash stays as it is), so a
// message built from other messages is not escaped twice.
RELITE_API std::string EscapeUntrusted(std::string_view bytes, bool keep_newlines = false);

class [[nodiscard]] RELITE_API Status {
 public:
  Status() = default;
  // Messages embed names read from model files; they are escaped here (see
  // EscapeUntrusted, newlines kept), once, so no error relite returns can
  // carry raw control bytes to a terminal or log.
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "context: message" (no-op on OK).
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // An error status; constructing from an OK status is a programming error
  // and is turned into an internal error rather than an empty value.
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = InternalError("StatusOr constructed from an OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, T>>>
  StatusOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace relite

#define RELITE_STATUS_CONCAT_INNER(a, b) a##b
#define RELITE_STATUS_CONCAT(a, b) RELITE_STATUS_CONCAT_INNER(a, b)

#define RELITE_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::relite::Status relite_status_ = (expr);        \
    if (!relite_status_.ok()) return relite_status_; \
  } while (0)

#define RELITE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define RELITE_ASSIGN_OR_RETURN(lhs, expr) \
  RELITE_ASSIGN_OR_RETURN_IMPL(RELITE_STATUS_CONCAT(relite_statusor_, __LINE__), lhs, expr)
