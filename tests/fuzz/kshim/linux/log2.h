/* fuzz_model: see ../kshim.h */
#include "../kshim.h"
