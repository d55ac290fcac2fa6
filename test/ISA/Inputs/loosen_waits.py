"""Loosens each s_waitcnt of an AMDGCN file by one, one at a time (vmcnt(N)
-> vmcnt(N+1), lgkmcnt(N) -> lgkmcnt(N+1)), and runs
`rocdsl-isa-check --waits` on each variant. LLVM places the loosest waits it
can prove, so every loosened one must be reported; prints the tally and each
variant the checker found clean.

    loosen_waits.py ROCDSL_ISA_CHECK FILE.s
"""
import os
import re
import subprocess
import sys
import tempfile

MAX = {"vmcnt": 63, "lgkmcnt": 15}


def loosen(line):
    def bump(m):
        kind, value = m.group(1), int(m.group(2))
        return f"{kind}({min(value + 1, MAX[kind])})"
    return re.sub(r"\b(vmcnt|lgkmcnt)\((\d+)\)", bump, line)


def main():
    checker, path = sys.argv[1], sys.argv[2]
    lines = open(path).read().split("\n")
    waits = [i for i, l in enumerate(lines) if l.strip().startswith("s_waitcnt")]
    loosened = caught = 0
    with tempfile.TemporaryDirectory() as tmp:
        variant = os.path.join(tmp, "variant.s")
        for i in waits:
            new = loosen(lines[i])
            if new == lines[i]:
                continue
            loosened += 1
            with open(variant, "w") as f:
                f.write("\n".join(lines[:i] + [new] + lines[i + 1:]))
            r = subprocess.run([checker, "--waits", "--quiet", variant],
                               capture_output=True, text=True)
            if r.returncode == 1 and "wait violation" in r.stdout:
                caught += 1
            else:
                print(f"not caught: line {i + 1}: {new.strip()} "
                      f"(exit {r.returncode})")
    print(f"{len(waits)} waits, {loosened} loosened, {caught} caught")


if __name__ == "__main__":
    main()
