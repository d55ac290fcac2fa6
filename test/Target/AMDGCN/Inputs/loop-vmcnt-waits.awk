# Prints each loop of an AMDGCN assembly listing (a label that a later
# branch jumps back to) as "loop LABEL", then the s_waitcnt with a vmcnt
# inside it, in order. Loops nest or follow one another; each is printed
# once, at its backward branch.
/^\.LBB[0-9_]+:/ {
  label = substr($1, 1, length($1) - 1)
  start[label] = NR
}
{ text[NR] = $0 }
/s_cbranch_|s_branch / {
  target = $NF
  if (target in start && !(target in printed)) {
    printed[target] = 1
    print "loop " target
    for (i = start[target]; i <= NR; i++)
      if (text[i] ~ /s_waitcnt .*vmcnt/) {
        line = text[i]
        sub(/^[ \t]+/, "", line)
        print line
      }
  }
}
