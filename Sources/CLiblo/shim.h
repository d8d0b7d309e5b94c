#include <lo/lo_lowlevel.h>
#include <lo/lo_osc_types.h>
#include <lo/lo.h>
