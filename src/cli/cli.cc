#include "cli/cli.h"

#include <algorithm>
#include <charconv>

#include <openssl/opensslv.h>
#include <sqlite3.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <vector>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>
#include <string_view>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/mechanism.h"
#include "encoding/control_chars.h"
#include "encoding/signature.h"

namespace failmap::cli {

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  return escape_control_characters(text, keep_newlines);
}

int report(const Error& e) {
  if (!interrupt_took_effect()) std::cerr << "failmap: error: " << terminal_safe(e.message) << "\n";
  if (e.kind == Error::Kind::Busy) return k_exit_busy;
  return e.kind == Error::Kind::Mismatch ? k_exit_mismatch : k_exit_input;
}

int report_all(const std::vector<std::string>& messages) {
  if (interrupt_took_effect()) return k_exit_input;
  const std::size_t shown = std::min(messages.size(), k_max_reported_problems);
  for (std::size_t i = 0; i < shown; ++i) std::cerr << "failmap: error: " << terminal_safe(messages[i]) << "\n";
  if (shown < messages.size())
    std::cerr << "failmap: error: ... and " << messages.size() - shown << " more problem(s), not shown (the first "
              << shown << " are above)\n";
  return k_exit_input;
}

int report_refused_import(const std::vector<std::string>& problems, const Error& summary) {
  if (problems.size() == 1 && !interrupt_took_effect()) {  // one problem, one line
    std::cerr << "failmap: error: " << terminal_safe(problems.front()) << " (nothing was imported)\n";
    return k_exit_input;
  }
  report_all(problems);
  return report(summary);
}

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_interrupt_signal(int signo) {
  g_signal = signo;
  request_interrupt();
}

}  // namespace

int run_interruptible(const std::function<int()>& command, const std::string& unchanged) {
  struct sigaction action {
  }, old_int{}, old_term{};
  action.sa_handler = on_interrupt_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: a second signal ends the process. No SA_RESTART: a read
  // blocked on a pipe or terminal returns (EINTR) and the command unwinds.
  action.sa_flags = SA_RESETHAND;
  // A signal ignored when failmap started (`nohup`, `cmd &` in a script)
  // stays ignored, as POSIX shells expect.
  sigaction(SIGINT, nullptr, &old_int);
  sigaction(SIGTERM, nullptr, &old_term);
  if (old_int.sa_handler != SIG_IGN) sigaction(SIGINT, &action, nullptr);
  if (old_term.sa_handler != SIG_IGN) sigaction(SIGTERM, &action, nullptr);
  int status = command();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (!interrupt_took_effect() || status == k_exit_ok) return status;
  int signo = g_signal;
  std::cerr << "failmap: interrupted (" << (signo == SIGTERM ? "SIGTERM" : "SIGINT") << "): " << unchanged << "\n";
  return 128 + signo;
}

Result<Archive> open_archive(const Context& ctx, Archive::Mode mode) { return Archive::open(ctx.db_path, mode); }

Result<Case> require_case(Archive& archive, const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto c, archive.load_case(id));
  if (!c) return input_error("unknown case '" + id + "' in " + archive.db().path() + " (see `failmap list`)");
  return std::move(*c);
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }
bool stdout_is_tty() { return isatty(STDOUT_FILENO) == 1; }

CLI::Validator integer_validator(std::uint64_t min, std::uint64_t max, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
          return "expected " + what + " from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" + text +
                 "'";
        return "";
      },
      std::to_string(min) + ".." + std::to_string(max));
}

CLI::Validator sandbox_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text == "bwrap" || text == "none" ? "" : "expected bwrap or none, got '" + text + "'";
      },
      "bwrap|none");
}

CLI::Validator positive_decimal_validator(double max, const std::string& what) {
  std::ostringstream bound;
  bound << max;
  return CLI::Validator(
      [what, max_text = bound.str(), max](std::string& text) -> std::string {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(v > 0 && v <= max))
          return "expected " + what + " greater than 0 and at most " + max_text + ", got '" + text + "'";
        return "";
      },
      "(0," + bound.str() + "]");
}

CLI::Validator jobs_validator() { return integer_validator(1, k_max_jobs, "a whole number of threads"); }

CLI::Validator nonempty_validator(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        return text.empty() ? "expected " + what + ", got an empty value" : "";
      },
      "");  // no word added to the option's TEXT in --help and errors
}

namespace {

// CLI11's words for the usual mistakes, in failmap's: an option given twice
// ("--timeout: At Most 1 required but received 2"), arguments a command does
// not take ("The following arguments were not expected: json --format", in
// reverse order; an unknown option first is named alone), a missing positional by its internal name ("dirs is
// required"). Anything else keeps CLI11's text.
std::string parse_error_text(const CLI::ParseError& e, const CLI::App& command,
                             const std::vector<std::string>& extras) {
  std::string what = e.what();
  static const std::regex at_most(R"(^(-[^:]+): At Most 1 required but received (\d+)$)");
  static const std::regex required(R"(^([A-Za-z_][A-Za-z_0-9-]*) is required$)");
  std::smatch m;
  if (std::regex_match(what, m, at_most)) return m[1].str() + ": given " + m[2].str() + " times; it takes one value";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !extras.empty()) {
    // An unknown option: the words after it are likely its value.
    if (extras.front().size() > 1 && extras.front()[0] == '-')
      return "'" + command.get_name() + "' has no option '" + extras.front() + "'";
    std::string list;
    for (const std::string& x : extras) list += (list.empty() ? "'" : " '") + x + "'";
    return "'" + command.get_name() + "' does not take " + (extras.size() == 1 ? "the argument " : "the arguments ") +
           list;
  }
  if (std::regex_match(what, m, required))
    if (const CLI::Option* o = command.get_option_no_throw(m[1].str());
        o && o->get_lnames().empty() && o->get_snames().empty())
      return "missing argument <" + m[1].str() + ">: " + o->get_description();
  return what;
}

std::string version_text() {
  std::string out = "failmap " FAILMAP_VERSION "\n";
  out += k_build_has_repairs ? "build full (repaired strategies compiled in)\n"
                             : "build open (no repaired strategies: -DFAILMAP_REPAIRS=OFF)\n";
  out += "archive schema version " + std::to_string(Archive::current_schema_version()) + "\n";
  out += std::string("SQLite ") + sqlite3_libversion() + " (built with " SQLITE_VERSION ")\n";
  out += std::string("OpenSSL ") + OPENSSL_VERSION_STR + "\n";
  out += "nlohmann_json " + std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH) + "\n";
  out += std::string("CLI11 ") + CLI11_VERSION + "\n";
  out += "allocator " FAILMAP_ALLOCATOR;  // CLI11 ends the version text with the newline
  return out;
}

// CLI11's help text without the blank line it ends with (`failmap list
// --help | tail -1` is the last option, as with other tools).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    std::string text = CLI::Formatter::make_help(app, std::move(name), mode);
    while (text.ends_with("\n\n")) text.pop_back();
    return text;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Context ctx;
  if (const char* env = std::getenv("FAILMAP_DB"); env && *env) ctx.db_path = env;
  else ctx.db_path = "failmap.db";
  try {
    CLI::App app{
        "failmap: keep a failure-map case archive — cases, strategies, observation runs, digests and "
        "group-safe evaluation splits.\nExit status: 0 success, 1 checks failed / mismatch / leakage, "
        "2 usage or input error, 3 the archive is busy (another writer held its lock past FAILMAP_BUSY_TIMEOUT)."};
    app.name("failmap");
    app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands, which copy it
    app.require_subcommand(1);
    app.set_version_flag("--version", version_text());
    app.add_option("--db", ctx.db_path, "archive file (default: $FAILMAP_DB, else ./failmap.db)");
    app.add_flag("-q,--quiet", ctx.quiet, "no progress or chatter on stderr");
    // --db and --quiet also after the command (`failmap list --db x.db`):
    // every subcommand added below inherits this and hands them up.
    app.fallthrough();
    for (const Command& cmd : commands()) {
      CLI::App* sub = app.add_subcommand(cmd.name, cmd.summary);
      cmd.setup(*sub, ctx);
    }
    if (argc <= 1) {  // a bare `failmap` is a request for usage, not an error message to decode
      std::cerr << app.help();
      return k_exit_input;
    }
    // The first word that is no option nor --db's value: a misspelt command
    // when CLI11 found none (it says "A subcommand is required", and prints
    // the top-level help, exit 0, for `failmap nosuch --help`).
    auto unknown_command = [&]() -> std::optional<std::string_view> {
      if (!app.get_subcommands().empty()) return std::nullopt;
      for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--db") ++i;
        else if (!arg.empty() && arg[0] != '-') return arg;
      }
      return std::nullopt;
    };
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (auto word = unknown_command()) {
        std::cerr << "failmap: error: unknown command '" << terminal_safe(*word)
                  << "'\nRun 'failmap --help' for the list of commands.\n";
        return k_exit_input;
      }
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
      // One line in the house format, then where to look: the deepest subcommand that was named.
      std::string where = "failmap";
      const CLI::App* deepest = &app;
      while (!deepest->get_subcommands().empty()) {
        deepest = deepest->get_subcommands().front();
        where += " " + deepest->get_name();
      }
      // A misspelt subcommand of a command that has them ("digest regenerat",
      // "split chek"): CLI11 says "A subcommand is required" or lists extras.
      auto choices = deepest->get_subcommands([](const CLI::App*) { return true; });
      std::vector<std::string> extras = deepest->remaining();
      if (extras.empty()) extras = app.remaining();  // handed up by fallthrough()
      std::string names;
      for (const CLI::App* c : choices) names += (names.empty() ? "" : ", ") + c->get_name();
      if (!choices.empty() && extras.empty() &&
          std::string_view(e.what()).find("subcommand is required") != std::string_view::npos) {
        std::cerr << "failmap: error: '" << where << "' needs a subcommand (one of: " << names << ")\nRun '" << where
                  << " --help' for usage.\n";
        return k_exit_input;
      }
      // A second argument where the command took its one (`grade a.jsonl b.jsonl`): not a subcommand's name.
      const CLI::Option* given = nullptr;
      for (const CLI::Option* opt : deepest->get_options())
        if (opt->get_positional() && opt->count() > 0 && opt->get_items_expected_max() == 1) given = opt;
      if (given && !choices.empty() && !extras.empty() && !extras.front().empty() && extras.front()[0] != '-') {
        std::cerr << "failmap: error: '" << where << "' takes one " << given->get_name() << " argument: '"
                  << terminal_safe(extras.front()) << "' is one too many (nor is it a subcommand: " << names
                  << ")\nRun '" << where << " --help' for usage.\n";
        return k_exit_input;
      }
      if (!choices.empty() && !extras.empty() && !extras.front().empty() && extras.front()[0] != '-') {
        std::cerr << "failmap: error: unknown subcommand '" << terminal_safe(extras.front()) << "' of '" << where
                  << "' (expected one of: " << names << ")\nRun '" << where << " --help' for usage.\n";
        return k_exit_input;
      }
      std::cerr << "failmap: error: " << terminal_safe(parse_error_text(e, *deepest, extras)) << "\nRun '" << where
                << " --help' for usage.\n";
      return k_exit_input;
    }
    return ctx.exit_status;
  } catch (const std::exception& e) {
    std::cerr << "failmap: error: " << terminal_safe(e.what()) << "\n";
    return k_exit_input;
  }
}

std::string shell_word(const std::string& word) {
  bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char ch) {
    return std::isalnum(ch) || std::string_view("_./-+:=,@%").find(static_cast<char>(ch)) != std::string_view::npos;
  });
  if (plain) return word;
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

namespace {

// The *.pem file beside the private key `key` that holds its public key (the
// first in name order of at most 100 small files; none when there is no such
// file), so that the advice after a signed output can be run as printed.
std::optional<std::string> public_key_beside(const std::string& key) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(key).parent_path();
  std::error_code ec;
  std::vector<fs::path> pems;
  for (const auto& e : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
    std::error_code type_ec;
    if (e.path().extension() != ".pem" || !e.is_regular_file(type_ec) || e.file_size(type_ec) > 16384 ||
        fs::equivalent(e.path(), key, type_ec))
      continue;
    pems.push_back(dir / e.path().filename());
    if (pems.size() == 100) break;
  }
  std::sort(pems.begin(), pems.end());
  constexpr std::string_view probe = "failmap export: which file holds the public key";
  auto signature = ed25519_sign(key, probe);
  if (!signature) return std::nullopt;
  for (const fs::path& p : pems)
    if (ed25519_verify(p, probe, *signature)) return p.string();
  return std::nullopt;
}

}  // namespace

std::string pubkey_argument(const std::string& key) {
  if (auto pub = public_key_beside(key)) return shell_word(*pub);
  return "<(openssl pkey -in " + shell_word(key) + " -pubout)";
}

std::string verify_advice(const std::string& dir, const std::string& sign_key) {
  std::string out = "check: failmap verify-bundle " + shell_word(dir);
  if (!sign_key.empty()) out += " --pubkey " + pubkey_argument(sign_key);
  return terminal_safe(out);
}

}  // namespace failmap::cli
