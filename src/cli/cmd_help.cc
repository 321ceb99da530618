// failmap help [COMMAND [SUBCOMMAND]] and failmap completion bash|zsh [--out FILE]
//
// Both read what they print from one source each: `help` prints the page of
// the reference manual compiled in from docs/ (cli/manual.h), and
// `completion` walks the CLI11 app the command table built (commands.cc), so
// a new command or option is completed without editing a script.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "cli/manual.h"

namespace failmap::cli {
namespace {

/// The page of the manual named `name` ("run" → docs/run.md); empty if none.
std::string_view manual_page(std::string_view name) {
  for (const auto& [file, body] : manual_pages())
    if (file.size() == name.size() + 3 && file.starts_with(name) && file.ends_with(".md")) return body;
  return {};
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

/// Pages of docs/ that are not a command's page ("glossary").
std::vector<std::string> other_pages(const CLI::App& root) {
  std::vector<std::string> out;
  for (const auto& [file, body] : manual_pages()) {
    std::string name(file.substr(0, file.size() - 3));
    bool is_command = false;
    for (const CLI::App* c : subcommands_of(root)) is_command = is_command || c->get_name() == name;
    if (!is_command && name != "README") out.push_back(name);
  }
  return out;
}

int run_help(const CLI::App& root, const std::vector<std::string>& words) {
  if (words.empty()) {  // the index: every command of the table, then the other pages
    std::string description = root.get_description();
    std::cout
        << description.substr(0, description.find('\n')) << "\n\n"
        << "Commands (`failmap help COMMAND` prints its page of the manual, `failmap COMMAND --help` its options):\n";
    for (const CLI::App* c : subcommands_of(root)) {
      std::string name = c->get_name();
      std::cout << "  " << name << std::string(name.size() < 15 ? 15 - name.size() : 1, ' ') << c->get_description()
                << "\n";
    }
    std::cout << "Other pages:";
    for (const std::string& p : other_pages(root)) std::cout << " " << p;
    std::cout << "\n";
    return k_exit_ok;
  }
  const std::string& topic = words.front();
  std::string_view page = manual_page(topic);
  const CLI::App* command = nullptr;
  for (const CLI::App* c : subcommands_of(root))
    if (c->get_name() == topic) command = c;
  if (page.empty() || (!command && words.size() > 1)) {
    std::string names;
    for (const CLI::App* c : subcommands_of(root)) names += (names.empty() ? "" : ", ") + c->get_name();
    for (const std::string& p : other_pages(root)) names += ", " + p;
    return report(input_error("no page of the manual for '" + topic + "' (pages: " + names + ")"));
  }
  if (words.size() > 2) return report(input_error("help takes a command and at most one of its subcommands"));
  if (words.size() == 2) {  // `help split check`: the subcommand's page is its command's
    bool known = false;
    for (const CLI::App* s : subcommands_of(*command)) known = known || s->get_name() == words[1];
    if (!known) return report(input_error("'" + topic + "' has no subcommand '" + words[1] + "'"));
  }
  std::cout << page;
  return k_exit_ok;
}

// --- completion ---------------------------------------------------------

/// An option as the completion scripts need it.
struct OptionSpec {
  std::vector<std::string> names;  ///< "-j", "--jobs"
  bool takes_value = false;
  std::string description;
};

/// A command (or subcommand) with what can follow its name.
struct CommandSpec {
  std::string path;  ///< "split", "split check"
  std::string description;
  std::vector<OptionSpec> options;  ///< its own, then the global ones
  std::vector<std::string> subcommands;
  std::vector<std::string> words;  ///< values of its positional argument, if fixed
};

std::vector<OptionSpec> options_of(const CLI::App& app) {
  std::vector<OptionSpec> out;
  for (const CLI::Option* o : app.get_options()) {
    if (!o->nonpositional()) continue;
    OptionSpec spec;
    for (const std::string& s : o->get_snames()) spec.names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) spec.names.push_back("--" + l);
    spec.takes_value = o->get_type_size_max() > 0 && o->get_expected_max() > 0;  // a flag expects none
    spec.description = o->get_description();
    out.push_back(std::move(spec));
  }
  return out;
}

/// The first sentence of `text`, at most 72 characters: a completion menu's line.
std::string short_description(std::string_view text) {
  std::size_t end = std::min({text.find(". "), text.find("; "), text.find(" ("), text.find('\n'), text.size()});
  std::string out(text.substr(0, end));
  if (out.size() > 72) out = out.substr(0, 69) + "...";
  return out;
}

std::vector<CommandSpec> command_specs(const CLI::App& root) {
  std::vector<OptionSpec> global = options_of(root);
  global.erase(
      std::remove_if(global.begin(), global.end(),
                     [](const OptionSpec& o) { return o.names.back() == "--help" || o.names.back() == "--version"; }),
      global.end());
  std::vector<CommandSpec> out;
  CommandSpec top{"", "", options_of(root), {}, {}};
  std::vector<std::string> topics;
  for (const CLI::App* c : subcommands_of(root)) {
    top.subcommands.push_back(c->get_name());
    topics.push_back(c->get_name());
  }
  for (const std::string& p : other_pages(root)) topics.push_back(p);
  out.push_back(top);
  for (const CLI::App* c : subcommands_of(root)) {
    auto add = [&](const CLI::App& app, const std::string& path) {
      CommandSpec spec{path, app.get_description(), options_of(app), {}, {}};
      spec.options.insert(spec.options.end(), global.begin(), global.end());
      for (const CLI::App* s : subcommands_of(app)) spec.subcommands.push_back(s->get_name());
      if (path == "help") spec.words = topics;
      if (path == "completion") spec.words = {"bash", "zsh"};
      out.push_back(std::move(spec));
    };
    add(*c, c->get_name());
    for (const CLI::App* s : subcommands_of(*c)) add(*s, c->get_name() + " " + s->get_name());
  }
  return out;
}

std::string space_joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string bash_script(const CLI::App& root) {
  std::vector<CommandSpec> specs = command_specs(root);
  std::ostringstream s;
  s << "# bash completion for failmap, generated by `failmap completion bash` from its command table.\n"
       "# Install: make install (PREFIX/share/bash-completion/completions/failmap), or source this file.\n"
       "_failmap() {\n"
       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
       "  local path='' i w subs opts values words\n"
       "  # The command and subcommand named so far (the value of --db is neither).\n"
       "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
       "    w=${COMP_WORDS[i]}\n"
       "    case $w in\n"
       "      --db) ((i++)) ;;\n"
       "      -*) ;;\n"
       "      *) if [[ -z $path ]]; then path=$w\n"
       "         elif [[ $path != *' '* ]] && [[ \" $(_failmap_subcommands \"$path\") \" == *\" $w \"* ]]; then "
       "path=\"$path $w\"\n"
       "         fi ;;\n"
       "    esac\n"
       "  done\n"
       "  case $path in\n";
  for (const CommandSpec& c : specs) {
    std::vector<std::string> all, values;
    for (const OptionSpec& o : c.options) {
      all.insert(all.end(), o.names.begin(), o.names.end());
      if (o.takes_value) values.insert(values.end(), o.names.begin(), o.names.end());
    }
    s << "    " << (c.path.empty() ? "''" : "'" + c.path + "'") << ") opts='" << space_joined(all) << "' values='"
      << space_joined(values) << "' words='" << space_joined(c.words) << "' ;;\n";
  }
  s << "    *) opts='' values='' words='' ;;\n"
       "  esac\n"
       "  subs=$(_failmap_subcommands \"$path\")\n"
       "  if [[ -n $prev && \" $values \" == *\" $prev \"* ]]; then\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  elif [[ $cur == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  elif [[ -n $subs || -n $words ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$subs $words\" -- \"$cur\"))\n"
       "    [[ -n $path ]] && COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  fi\n"
       "}\n"
       "_failmap_subcommands() {\n"
       "  case $1 in\n";
  for (const CommandSpec& c : specs)
    if (!c.subcommands.empty())
      s << "    " << (c.path.empty() ? "''" : "'" + c.path + "'") << ") echo '" << space_joined(c.subcommands)
        << "' ;;\n";
  s << "  esac\n"
       "}\n"
       "complete -o filenames -F _failmap failmap\n";
  return s.str();
}

/// `text` inside a zsh single-quoted word, with _arguments' brackets escaped.
std::string zsh_quoted(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\'') out += "'\\''";
    else if (ch == '[' || ch == ']' || ch == ':' || ch == '\\') out += std::string("\\") + ch;
    else out += ch;
  }
  return out;
}

/// _arguments' specs of `options`: "'--db[archive file]:value:_files'", a group for several names.
std::string zsh_option_specs(const std::vector<OptionSpec>& options) {
  std::string out;
  for (const OptionSpec& o : options) {
    std::string desc =
        "[" + zsh_quoted(short_description(o.description)) + "]" + (o.takes_value ? ":value:_files" : "");
    bool exclusive = o.names.back() == "--help" || o.names.back() == "--version";  // nothing else after these
    std::string group = exclusive ? "(- *)" : o.names.size() > 1 ? "(" + space_joined(o.names) + ")" : "";
    for (const std::string& n : o.names) out += " '" + group + n + desc + "'";
  }
  return out;
}

std::string zsh_arguments(const CommandSpec& c) {
  std::string out = "_arguments -s" + zsh_option_specs(c.options);
  if (!c.subcommands.empty() || !c.words.empty()) {
    out += " '1:: :((";
    for (const std::string& w : c.subcommands) out += w + " ";
    for (const std::string& w : c.words) out += w + " ";
    out += "))'";
  }
  out += " '*:file:_files'";
  return out;
}

std::string zsh_script(const CLI::App& root) {
  std::vector<CommandSpec> specs = command_specs(root);
  std::ostringstream s;
  s << "#compdef failmap\n"
       "# zsh completion for failmap, generated by `failmap completion zsh` from its command table.\n"
       "# Install: make install (PREFIX/share/zsh/site-functions/_failmap), a folder of $fpath.\n"
       "_failmap() {\n"
       "  local curcontext=$curcontext state line\n"
       "  local -a commands\n"
       "  commands=(\n";
  for (const CommandSpec& c : specs)
    if (!c.path.empty() && c.path.find(' ') == std::string::npos)
      s << "    '" << c.path << ":" << zsh_quoted(short_description(c.description)) << "'\n";
  s << "  )\n"
       "  _arguments -C"
    << zsh_option_specs(specs.front().options)
    << " \\\n"
       "    '1:command:->command' '*::argument:->argument'\n"
       "  case $state in\n"
       "    command) _describe -t commands 'failmap command' commands ;;\n"
       "    argument)\n"
       "      local cmdpath=$words[1]\n"
       "      (( CURRENT > 2 )) && case \"$words[1] $words[2]\" in\n";
  for (const CommandSpec& c : specs)
    if (c.path.find(' ') != std::string::npos) s << "        '" << c.path << "') cmdpath=\"$words[1] $words[2]\" ;;\n";
  s << "      esac\n"
       "      case $cmdpath in\n";
  for (const CommandSpec& c : specs)
    if (!c.path.empty()) s << "        '" << c.path << "') " << zsh_arguments(c) << " ;;\n";
  s << "      esac ;;\n"
       "  esac\n"
       "}\n"
       "_failmap \"$@\"\n";
  return s.str();
}

}  // namespace

void setup_help(CLI::App& sub, Context& ctx) {
  auto words = std::make_shared<std::vector<std::string>>();
  sub.add_option("topic", *words,
                 "a command, optionally with its subcommand (`help split check`), or another page (`glossary`); "
                 "none: the list of commands and pages");
  sub.callback([&sub, &ctx, words] { ctx.exit_status = run_help(*sub.get_parent(), *words); });
}

void setup_completion(CLI::App& sub, Context& ctx) {
  auto shell = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  sub.add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  sub.add_option("-o,--out", *out, "write the script to FILE instead of stdout")
      ->check(nonempty_validator("the path of a file"));
  sub.callback([&sub, &ctx, shell, out] {
    const CLI::App& root = *sub.get_parent();
    std::string script = *shell == "bash" ? bash_script(root) : zsh_script(root);
    if (out->empty()) {
      std::cout << script;
      return;
    }
    std::ofstream file(*out, std::ios::binary | std::ios::trunc);
    int open_errno = file ? 0 : errno;
    file << script;
    file.close();
    if (!file)
      ctx.exit_status =
          report(input_error("--out: cannot write '" + *out + "'" +
                             (open_errno ? std::string(": ") + std::strerror(open_errno) : std::string())));
  });
}

}  // namespace failmap::cli
