// failmap help [COMMAND [SUBCOMMAND]]
//
// Prints the page of the reference manual compiled in from docs/
// (cli/manual.h), or the index of the commands the command table built
// (commands.cc) and of the other pages.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/manual.h"

namespace failmap::cli {

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

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

namespace {

/// The page of the manual named `name` ("run" → docs/run.md); empty if none.
std::string_view manual_page(std::string_view name) {
  for (const auto& [file, body] : manual_pages())
    if (file.size() == name.size() + 3 && file.starts_with(name) && file.ends_with(".md")) return body;
  return {};
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

}  // namespace

void setup_help(CLI::App& sub, Context& ctx) {
  auto words = std::make_shared<std::vector<std::string>>();
  sub.add_option("topic", *words,
                 "a command, optionally with its subcommand (`help split check`), or another page (`glossary`); "
                 "none: the list of commands and pages");
  sub.callback([&sub, &ctx, words] { ctx.exit_status = run_help(*sub.get_parent(), *words); });
}

}  // namespace failmap::cli
