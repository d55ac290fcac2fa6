"""Test-only stand-ins for _rocdsl.default_layout and _rocdsl.wave_size.

Used by conftest.py only while the built extension lacks them: a
transcription of BlockedAttr::getDefault (dialects/RocDSL/IR/RocDSLAttrs.cpp)
so tracing can be tested against rocdsl-opt before the extension is
rebuilt. test_dsl_trace.py checks it against the C++ (through
rocdsl-compile's RMSNorm IR, and against _rocdsl.default_layout when the
extension has it).
"""

WAVE_SIZES = {"host": 64, "hip": 64, "cuda": 32}


def _power_of_2_ceil(n):
    p = 1
    while p < n:
        p *= 2
    return p


def default_layout(shape, element_bits, num_warps, wave_size,
                   min_per_lane=1):
    rank = len(shape)
    spt, tpw, wpc = [1] * rank, [1] * rank, [1] * rank
    order = list(range(rank - 1, -1, -1))
    inner = shape[-1]
    elements = 1
    for d in shape:
        elements *= max(d, 1)
    all_lanes = max(num_warps, 1) * max(wave_size, 1)
    per_thread = max(1, 128 // max(element_bits, 1))
    while per_thread > 1 and (
            inner % per_thread != 0 or inner < per_thread or
            (per_thread > min_per_lane and elements < per_thread * all_lanes)):
        per_thread //= 2
    spt[-1] = per_thread
    lanes = wave_size
    for i in range(rank):
        if lanes <= 1:
            break
        d = rank - 1 - i
        extent = max(1, shape[d] // spt[d])
        take = min(lanes, _power_of_2_ceil(extent))
        if i + 1 == rank:
            take = lanes
        tpw[d] = take
        lanes //= take
    waves = num_warps
    for d in range(rank):
        if waves <= 1:
            break
        extent = max(1, shape[d] // (spt[d] * tpw[d]))
        take = min(waves, _power_of_2_ceil(extent))
        if d + 1 == rank:
            take = waves
        wpc[d] = take
        waves //= take

    def ints(xs):
        return "[" + ", ".join(map(str, xs)) + "]"
    return (f"#rocdsl.blocked<sizePerThread = {ints(spt)}, threadsPerWarp = "
            f"{ints(tpw)}, warpsPerCTA = {ints(wpc)}, order = {ints(order)}>")


def wave_size(device):
    try:
        return WAVE_SIZES[device]
    except KeyError:
        raise ValueError(f"unknown device '{device}'") from None
