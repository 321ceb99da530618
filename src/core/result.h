// Result<T>: a value or an error message. The library never prints or exits;
// every fallible function returns one of these and src/cli/ decides what the
// user sees and which exit status follows.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace failmap {

/// An error: one human-readable line naming where (file, line, field) and what
/// was expected. `kind` picks the exit status in the CLI.
struct Error {
  /// What class of failure this is; the CLI maps it to an exit status
  /// (1 mismatch or verification failure, 2 input or usage error).
  enum class Kind { Input, Mismatch };
  std::string message;
  Kind kind = Kind::Input;
};

/// Either a T or an Error. Cheap to move; `ok()` tells which.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_v(std::move(value)) {}             // NOLINT: implicit by design
  Result(Error error) : m_v(std::move(error)) {}         // NOLINT: implicit by design
  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  T* operator->() { return &std::get<0>(m_v); }
  const T* operator->() const { return &std::get<0>(m_v); }
  T& operator*() & { return std::get<0>(m_v); }
  const T& operator*() const& { return std::get<0>(m_v); }
  const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

/// Result of an operation with no value: success or an Error.
struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

/// Shorthand for an input error (exit status 2 at the CLI).
inline Error input_error(std::string message) { return Error{std::move(message), Error::Kind::Input}; }

}  // namespace failmap
