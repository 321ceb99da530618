// failmap: the executable is the library plus main() (STYLE.md rule 1).
#include "cli/cli.h"

int main(int argc, char** argv) { return failmap::cli::main(argc, argv); }
