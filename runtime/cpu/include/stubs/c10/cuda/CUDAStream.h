// CPU backend stand-in: everything lives in the kaudit prelude.
#pragma once
#include <kaudit_cpu/prelude.h>
