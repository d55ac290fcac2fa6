"""The RMSNorm test matrix, read from test/support/rmsnorm-cases.json: the
file the C++ tests read too (test/support/RMSNormCases.h), so both cover
exactly the same cases."""
import json
import pathlib

_FILE = (pathlib.Path(__file__).resolve().parents[2] / "test" / "support" /
         "rmsnorm-cases.json")


def _matrix():
    return json.loads(_FILE.read_text())


def cases():
    """(N, dtype, weight dtype or 'same') for every case, in the C++
    order: each row length in each dtype, then the mixed-weight cases."""
    m = _matrix()
    out = [(n, dtype, "same") for dtype in m["dtypes"]
           for n in m["row_lengths"]]
    out += [(c["n"], c["dtype"], c["weight_dtype"])
            for c in m.get("mixed_weight_cases", [])]
    return out


def row_counts():
    """The row counts each case runs with."""
    return list(_matrix()["row_counts"])
