// kaudit rules [--json]: the mutation rule catalog.
#include <cstdio>
#include <iostream>

#include "mutators/mutators.h"
#include "tools/cli.h"

namespace kaudit::cli {
int rules_command(const std::vector<std::string>& args) {
  bool json_out = false;
  for (const auto& a : args) {
    if (a == "--json") {
      json_out = true;
    } else if (a == "--help" || a == "-h") {
      std::puts("usage: kaudit rules [--json]\n\nLists the mutation rules: id, family, description, scope\n"
                "(device code, launch arithmetic, host wrapper). --json prints a list of objects with those keys.");
      return 0;
    } else {
      std::fprintf(stderr, "kaudit rules: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (json_out) std::cout << mutators::rules_json().dump(2) << "\n";
  else std::cout << mutators::rules_table();
  return 0;
}
}  // namespace kaudit::cli
