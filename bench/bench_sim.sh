# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/bench_sim.sh: ibsim inside a bench's own network namespace, for the
# `unshare -n sh -c '...'` scripts of routing.sh, reroute_osm.sh and
# ar_program.sh (sourced there through $BENCH_SIM). Plain sh: no bash.
#
# bench_sim_start NET [IBSIM FLAGS...]: in the current directory, ibsim on
# NET with its console on a fifo held open as fd 9 (ibsim quits when its
# console closes; `echo "Unlink ..." >&9` talks to it), back once it says
# it is ready (at most 300 s). $bench_sim is its pid.
bench_sim_start() {
	_net=$1; shift
	mkfifo console
	ibsim "$@" -s "$_net" <console >ibsim.log 2>&1 &
	bench_sim=$!
	exec 9>console
	_i=0
	until grep -q "simulator ready" ibsim.log 2>/dev/null || [ $_i -ge 3000 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
}

# bench_sim_stop: close the console, stop ibsim.
bench_sim_stop() {
	exec 9>&-
	kill "$bench_sim" 2>/dev/null; wait "$bench_sim" 2>/dev/null || :
}
