"""Paddle's monitor statistics (platform/monitor.cc at 2967624b): named int64 counters that
core.get_int_stats() reports. Paddle 2.0 defines STAT_total_feasign_num_in_mem, the integer
(uint64-slot) feasigns the in-memory datasets hold (added as a dataset loads, taken off as it
releases its memory), and STAT_gpu0_mem_size to STAT_gpu15_mem_size, which refimpl does not
count (always 0). No float statistics are defined."""

TOTAL_FEASIGN_NUM_IN_MEM = "STAT_total_feasign_num_in_mem"

_INT_STATS = dict.fromkeys([TOTAL_FEASIGN_NUM_IN_MEM]
                           + ["STAT_gpu%d_mem_size" % i for i in range(16)], 0)


def stat_add(name, value):
    """Add value (negative to take off) to the counter `name`."""
    _INT_STATS[name] += int(value)


def get_int_stats():
    """{name: value} of every int statistic."""
    return dict(_INT_STATS)


def get_float_stats():
    """{name: value} of every float statistic: none are defined."""
    return {}
