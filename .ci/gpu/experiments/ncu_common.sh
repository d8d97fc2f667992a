# Sourced by the *_profile.sh experiments (on the GPU machine): where Nsight
# Compute is, and the metrics every profile here reports beside its own, so
# that their tables read alike: issue-slot use, and why warps stalled, as
# warps stalled per issued instruction.
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | sort -V | tail -1)
[ -n "$ncu" ] || { echo "no ncu here"; exit 1; }
stall_metrics=smsp__issue_active.avg.pct_of_peak_sustained_active
for reason in barrier long_scoreboard short_scoreboard math_pipe_throttle mio_throttle wait not_selected dispatch_stall; do
    stall_metrics+=,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio
done
