// Result<T>: a value or an error message. The library never prints or exits;
// every fallible function returns one of these and src/cli/ decides what the
// user sees and which exit status follows. An error is passed up with
// FAILMAP_TRY / FAILMAP_TRY_ASSIGN (below), not by hand.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace failmap {

/// An error: one human-readable line naming where (file, line, field) and what
/// was expected. `kind` picks the exit status in the CLI.
struct Error {
  /// What class of failure this is; the CLI maps it to an exit status
  /// (1 mismatch or verification failure, 2 input or usage error, 3 the
  /// archive stayed locked by another process for the whole wait).
  enum class Kind { Input, Mismatch, Busy };
  std::string message;
  Kind kind = Kind::Input;
};

/// Either a T or an Error. Cheap to move; `ok()` tells which.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_v(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : m_v(std::move(error)) {}  // NOLINT: implicit by design
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

/// Shorthand for "the archive is busy": another process held the lock this
/// one needed for the whole wait (exit status 3 at the CLI). Nothing of the
/// command was written; running it again later is the remedy.
inline Error busy_error(std::string message) { return Error{std::move(message), Error::Kind::Busy}; }

}  // namespace failmap

// FAILMAP_TRY(expr): evaluates `expr` (a Result<T> or Status); when it holds
// an Error, returns that Error from the enclosing function, whose return type
// is a Result<U> or Status. The value, if any, is dropped.
//   FAILMAP_TRY(archive.begin());
#define FAILMAP_TRY(expr)                                         \
  do {                                                            \
    auto&& failmap_try_result_ = (expr);                          \
    if (!failmap_try_result_) return failmap_try_result_.error(); \
  } while (false)

#define FAILMAP_TRY_CONCAT_(a, b) a##b
#define FAILMAP_TRY_NAME_(line) FAILMAP_TRY_CONCAT_(failmap_try_value_, line)

// FAILMAP_TRY_ASSIGN(declaration, expr): evaluates `expr` (a Result<T>); when
// it holds an Error, returns that Error from the enclosing function, else
// moves its value into `declaration` (a new variable, or an existing one):
//   FAILMAP_TRY_ASSIGN(auto st, db.cached("SELECT ..."));   // st is the value, not the Result
//   FAILMAP_TRY_ASSIGN(c.fixtures, instantiate_fixtures(m, c.params));
// One use per line (the hidden Result is named after the line).
#define FAILMAP_TRY_ASSIGN(declaration, expr)                                   \
  auto&& FAILMAP_TRY_NAME_(__LINE__) = (expr);                                  \
  if (!FAILMAP_TRY_NAME_(__LINE__)) return FAILMAP_TRY_NAME_(__LINE__).error(); \
  declaration = std::move(*FAILMAP_TRY_NAME_(__LINE__))
