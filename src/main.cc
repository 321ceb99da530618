// failmap: the executable is the library plus main(); all logic lives in
// failmap_lib, which the tests link too.
#include "cli/cli.h"

int main(int argc, char** argv) { return failmap::cli::main(argc, argv); }
