// CPU backend stand-in: everything lives in the kaudit prelude.
#pragma once
#ifndef KAUDIT_CPU_PRELUDE_H  // already there when it came precompiled
#include <kaudit_cpu/prelude.h>
#endif
