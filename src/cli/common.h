// Helpers shared by the command files in src/cli/.
#pragma once

#include <cstdint>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cli/cli.h"
#include "encoding/json.h"
#include "store/archive.h"
#include "store/archive_digests.h"
#include "store/importer.h"

namespace failmap::cli {

/// Opens the archive named by --db / $FAILMAP_DB / ./failmap.db.
Result<Archive> open_archive(const Context& ctx, Archive::Mode mode);

/// Loads a case by id; an Error names the id and the archive when absent.
Result<Case> require_case(Archive& archive, const std::string& id);

/// True when stderr is a terminal and progress may be drawn.
bool stderr_is_tty();
/// True when stdout is a terminal.
bool stdout_is_tty();

/// Checks the text of an integer option before CLI11 converts it (CLI11's own
/// words would be "Could not convert: --memory = 1e3", and it wraps "-1" into
/// an unsigned): decimal digits only, from `min` to `max`, else "expected WHAT
/// from MIN to MAX, got 'TEXT'", to which CLI11 prefixes "--OPTION: " (exit 2).
/// `what` names the unit: "a whole number of threads", "an integer". The one
/// check of every integer option of every command (tests/e2e/numeric_options.sh).
CLI::Validator integer_validator(std::uint64_t min, std::uint64_t max, const std::string& what);
/// The same for a decimal option greater than 0 and at most `max` (`what`:
/// "seconds"): "expected WHAT greater than 0 and at most MAX, got 'TEXT'";
/// "nan", "inf" and hexadecimal are refused too.
CLI::Validator positive_decimal_validator(double max, const std::string& what);

/// Checks a `--sandbox` value: "bwrap" or "none", else "expected bwrap or
/// none, got 'TEXT'" (CLI11 prefixes "--sandbox: " and adds the usage hint;
/// exit 2). The same for grade and serve.
CLI::Validator sandbox_validator();

/// The most threads any --jobs accepts (each holds batches in flight).
inline constexpr unsigned k_max_jobs = 256;
/// Checks a `--jobs` value before it is converted (integer_validator): a whole
/// number of threads from 1 to k_max_jobs, else "expected a whole number of
/// threads from 1 to 256, got 'TEXT'" (the same words for every command).
CLI::Validator jobs_validator();

/// Refuses an empty value of an option or argument that names a file, a
/// folder or a split: "expected WHAT, got an empty value". An empty path
/// would be read as no option at all (`--pubkey ""` skipping the signature
/// check that a script with an unset variable meant to ask for) or fail
/// later without a name (": no such folder"). `what` is the noun phrase,
/// e.g. "the path of a bundle folder".
CLI::Validator nonempty_validator(const std::string& what);

/// While alive, what is written to std::cout is kept; on destruction it goes
/// to stdout through terminal_safe (newlines kept). For the text reports of
/// list, show and history, which print ids, prose and file names from the
/// archive: a title holding an escape sequence must not drive the terminal.
/// (--json output escapes control characters as JSON does.)
class TerminalSafeStdout {
 public:
  TerminalSafeStdout() : m_saved(std::cout.rdbuf(m_text.rdbuf())) {}
  ~TerminalSafeStdout() {
    std::cout.rdbuf(m_saved);
    std::cout << terminal_safe(m_text.str(), /*keep_newlines=*/true);
  }
  TerminalSafeStdout(const TerminalSafeStdout&) = delete;
  TerminalSafeStdout& operator=(const TerminalSafeStdout&) = delete;

 private:
  std::ostringstream m_text;
  std::streambuf* m_saved;
};

/// `word` as one shell word: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a ' as '\'').
std::string shell_word(const std::string& word);

/// How to name the public key of the Ed25519 private key in PEM file `key`
/// on a command line: the *.pem file beside it that holds its public key (the
/// first in name order of at most 100 small files), as a shell word; else
/// its public key derived on the spot, "<(openssl pkey -in KEY -pubout)"
/// (bash and zsh process substitution).
std::string pubkey_argument(const std::string& key);

/// The advice printed after a command wrote a hashed folder `dir` (a bundle,
/// page, task or site export, a split folder, a grading):
/// "check: failmap verify-bundle DIR[ --pubkey PUB]", with --pubkey (which
/// makes a missing or invalid signature a mismatch) when `sign_key` is not
/// empty. Terminal-safe, and
/// runnable as printed from the folder failmap ran in.
std::string verify_advice(const std::string& dir, const std::string& sign_key);

/// The line an import or instantiate with --replace prints when replacing
/// dropped recorded runs: "dropped N recorded run(s) of the replaced
/// version(s): …" with what to do next; empty when `runs` is 0.
std::string dropped_runs_note(std::uint64_t runs);

/// Notes on stderr, as instantiate words them, the added cases whose checks
/// equal those of cases already in the archive: "failmap: note: ID has the
/// same content (the same checks) as OTHER, already in the archive (…)",
/// for at most 10 cases naming at most 3 others each, then one line
/// counting the rest (`--json` lists them all under same_content).
void note_same_content(const std::vector<ImportReport::SameContent>& same);

/// Prints one digest difference as "CASE  STRATEGY  FIELD: STORED_WORD S, RECOMPUTED_WORD R"
/// (strategy "-" for fields of the case itself); verify says stored/recomputed, digest regenerate was/now.
/// A case verify could not read prints as "CASE  -  unreadable: WHY". Control
/// characters are shown escaped (terminal_safe).
void print_digest_difference(const DigestMismatch& m, const char* stored_word, const char* recomputed_word);
/// The same differences as a JSON array of {case, strategy (null for the case's own fields), field,
/// STORED_KEY, RECOMPUTED_KEY}: the `--json` form of verify and digest regenerate.
Json digest_differences_json(const std::vector<DigestMismatch>& list, const char* stored_key,
                             const char* recomputed_key);

}  // namespace failmap::cli
