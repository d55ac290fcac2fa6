"""Loosens each s_waitcnt of an AMDGCN file by one, one at a time (vmcnt(N)
-> vmcnt(N+1), lgkmcnt(N) -> lgkmcnt(N+1)), and runs
`rocdsl-isa-check --waits` on each variant. LLVM places the loosest waits it
can prove, so every loosened one must be reported; prints the tally and each
variant the checker found clean.

    loosen_waits.py BIN_DIR FILE.s [--chip CHIP --emulate EMU_ARGS...]

With --emulate, each variant is also assembled (llvm-mc, ld.lld from PATH)
and run on the emulator (BIN_DIR/rocdsl-emu FILE.hsaco --chip CHIP
EMU_ARGS...); the tally then says how many the emulator caught as it ran,
and each variant on which the two checks disagree is listed.

The checker reads the variants BATCH at a time in one process (it reports
each file's count on its own line), so the tally does not pay one process
start per wait.
"""
import os
import re
import subprocess
import sys
import tempfile

MAX = {"vmcnt": 63, "lgkmcnt": 15}
BATCH = 64


def loosen(line):
    def bump(m):
        kind, value = m.group(1), int(m.group(2))
        return f"{kind}({min(value + 1, MAX[kind])})"
    return re.sub(r"\b(vmcnt|lgkmcnt)\((\d+)\)", bump, line)


def emulate(bin_dir, variant, chip, emu_args, tmp):
    obj = os.path.join(tmp, "variant.o")
    hsaco = os.path.join(tmp, "variant.hsaco")
    subprocess.run(["llvm-mc", "-triple", "amdgcn-amd-amdhsa",
                    f"-mcpu={chip}", "-filetype=obj", "-o", obj, variant],
                   check=True)
    subprocess.run(["ld.lld", "-shared", "-o", hsaco, obj], check=True)
    r = subprocess.run([os.path.join(bin_dir, "rocdsl-emu"), hsaco, "--chip",
                        chip] + emu_args, capture_output=True, text=True)
    return "wait violation" in r.stdout + r.stderr


def main():
    bin_dir, path = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    chip, emu_args = None, None
    if rest:
        assert rest[0] == "--chip" and rest[2] == "--emulate", __doc__
        chip, emu_args = rest[1], rest[3:]
    checker = os.path.join(bin_dir, "rocdsl-isa-check")
    lines = open(path).read().split("\n")
    waits = [i for i, l in enumerate(lines) if l.strip().startswith("s_waitcnt")]
    loosened = caught = emulated = 0
    with tempfile.TemporaryDirectory() as tmp:
        variants = []  # (line index, loosened text, variant path)
        for i in waits:
            new = loosen(lines[i])
            if new == lines[i]:
                continue
            variant = os.path.join(tmp, f"variant{len(variants)}.s")
            with open(variant, "w") as f:
                f.write("\n".join(lines[:i] + [new] + lines[i + 1:]))
            variants.append((i, new, variant))
        loosened = len(variants)
        counts = {}
        for start in range(0, loosened, BATCH):
            paths = [v[2] for v in variants[start:start + BATCH]]
            r = subprocess.run([checker, "--waits"] + paths,
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                sys.exit(f"rocdsl-isa-check failed (exit {r.returncode}):\n"
                         + r.stderr)
            for m in re.finditer(r"^(\S+): (\d+) wait violations?$",
                                 r.stdout, re.M):
                counts[m.group(1)] = int(m.group(2))
        for i, new, variant in variants:
            if variant not in counts:
                sys.exit(f"rocdsl-isa-check reported nothing for {variant}")
            static = counts[variant] > 0
            caught += static
            if not static:
                print(f"not caught: line {i + 1}: {new.strip()}")
            if chip:
                dynamic = emulate(bin_dir, variant, chip, emu_args, tmp)
                emulated += dynamic
                if dynamic != static:
                    print(f"checks differ: line {i + 1}: {new.strip()}: "
                          f"static {static}, emulator {dynamic}")
    print(f"{len(waits)} waits, {loosened} loosened, {caught} caught")
    if chip:
        print(f"emulator caught {emulated} of {loosened}")


if __name__ == "__main__":
    main()
