/* fuzz_model: see ../kshim.h; __u32 and friends are the uapi header's */
#include_next <linux/types.h>
#include "../kshim.h"
