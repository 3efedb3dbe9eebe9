# compare.awk REF OUT: both are sorted psql -A -t outputs.  Prints the largest
# relative difference between numbers in the same place (|out - ref| / |ref|,
# 0 when both are 0), or "mismatch" if the rows differ in count or in any
# non-numeric field.
function isnum(s) { return s ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
FNR == NR { ref[FNR] = $0; nref = FNR; next }
{
    nout = FNR
    a = split(ref[FNR], x, /[|{},]/); b = split($0, y, /[|{},]/)
    if (a != b) { bad = 1; next }
    for (i = 1; i <= a; i++) {
        if (isnum(x[i]) && isnum(y[i])) {
            r = x[i] + 0; o = y[i] + 0
            d = (r == o) ? 0 : (r == 0 ? 1e308 : (o - r) / r)
            if (d < 0) d = -d
            if (d > worst) worst = d
        } else if (x[i] != y[i]) bad = 1
    }
}
END {
    if (bad || nref != nout) print "mismatch"
    else printf "%.6g\n", worst + 0
}
