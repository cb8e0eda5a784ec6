# Shared by the bench scripts (sourced after $w, the scratch directory, and
# $REPS are set).

# best-of-REPS "seconds maxrss_kB" of a command (wall time and peak memory
# from /usr/bin/time); the best run's standard output is left in $w/best.out
best() {
    b=""
    i=0
    while [ $i -lt "$REPS" ]; do
        /usr/bin/time -f "%e %M" -o "$w/time" "$@" >"$w/run.out" 2>"$w/err" || {
            cat "$w/err" >&2
            echo "bench: failed: $*" >&2
            exit 1
        }
        r=$(cat "$w/time")
        if [ -z "$b" ] || [ "$(echo "$r $b" | awk '{print ($1 < $3)}')" = 1 ]; then
            b=$r
            cp "$w/run.out" "$w/best.out"
        fi
        i=$((i + 1))
    done
    echo "$b"
}

# the machine the figures come from
machine_line() {
    echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
}
