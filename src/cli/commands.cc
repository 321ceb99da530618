// The command table: one row per subcommand (name, summary, setup function);
// `--help` and the completions are generated from it, and each setup function
// lives in its own cmd_*.cc file.
#include "cli/cli.h"

namespace failmap::cli {

void setup_import(CLI::App& sub, Context& ctx);
void setup_list(CLI::App& sub, Context& ctx);
void setup_show(CLI::App& sub, Context& ctx);
void setup_run(CLI::App& sub, Context& ctx);
void setup_reference(CLI::App& sub, Context& ctx);
void setup_digest(CLI::App& sub, Context& ctx);
void setup_verify(CLI::App& sub, Context& ctx);
void setup_split(CLI::App& sub, Context& ctx);
void setup_export(CLI::App& sub, Context& ctx);
void setup_instantiate(CLI::App& sub, Context& ctx);
void setup_history(CLI::App& sub, Context& ctx);
void setup_migrate(CLI::App& sub, Context& ctx);
void setup_verify_bundle(CLI::App& sub, Context& ctx);
void setup_grade(CLI::App& sub, Context& ctx);
void setup_serve(CLI::App& sub, Context& ctx);
void setup_remove(CLI::App& sub, Context& ctx);
void setup_mechanisms(CLI::App& sub, Context& ctx);
void setup_stats(CLI::App& sub, Context& ctx);
void setup_help(CLI::App& sub, Context& ctx);
void setup_completion(CLI::App& sub, Context& ctx);

const std::vector<Command>& commands() {
  static const std::vector<Command> k_commands = {
      {"import", "Import case files, folders of them, published pages or JSONL bundles (one transaction)",
       setup_import},
      {"list", "List the archive's cases (filters: --mechanism, --tier, --group)", setup_list},
      {"stats", "What the archive holds: cases, mechanisms, split units, runs recorded and missing, duplicates",
       setup_stats},
      {"mechanisms", "List the compiled mechanisms: evaluation groups, parameters, cases in the archive",
       setup_mechanisms},
      {"show", "Show one case: prose, binding, fixtures, recorded runs", setup_show},
      {"run", "Run strategies over a case's fixtures; print observation JSON or the page's table", setup_run},
      {"reference", "Print the runnable Python reference implementation of a case and strategy", setup_reference},
      {"digest", "digest regenerate [CASE...]: recompute the stored digests and write the changed ones", setup_digest},
      {"verify", "Recompute digests and replay every recorded run without writing; exit 1 on any mismatch",
       setup_verify},
      {"split", "Group-safe train/test splits or K folds (balanced by case count); `split check DIR` audits leakage",
       setup_split},
      {"export", "Export cases as a JSONL bundle, published pages or a static web site, at the open or member tier",
       setup_export},
      {"instantiate", "Create variant cases of a compiled mechanism by binding its parameter to a range",
       setup_instantiate},
      {"remove", "Remove cases and their runs (one transaction; each removed version kept in history)", setup_remove},
      {"history", "Show the versions of a case kept by import --replace and remove", setup_history},
      {"migrate", "Bring an archive written by an older failmap to the current schema version", setup_migrate},
      {"verify-bundle", "Check a bundle folder: SHA256SUMS, manifest, record digests, signature, repair commitments",
       setup_verify_bundle},
      {"grade", "Grade a model's candidate fixes against their cases in a sandbox: results per check, pass@k",
       setup_grade},
      {"serve", "Serve the archive and its grader over HTTP: cases, tasks, and grading with warm sandbox workers",
       setup_serve},
      {"help", "Print the manual's page of a command (the text of docs/COMMAND.md and of man failmap)", setup_help},
      {"completion", "Print the bash or zsh completion script, generated from this command table", setup_completion},
  };
  return k_commands;
}

}  // namespace failmap::cli
