# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/sonic_lib.sh: simulated SONiC switches for the
# integration tests (sourced after lib.sh, not run): one real redis-server
# per switch on a unix socket in $work, holding what SONiC keeps there, in
# SONiC's own schema (CONFIG_DB = db 4, APPL_DB = db 0).
#
#   sonic_start NAME MAC          # redis-server $work/NAME.sock, DEVICE_METADATA
#   sonic_port NAME PORT ALIAS    # a 100G port, admin and oper up
#   sonic_lldp NAME PORT SYSNAME PORTID CHASSIS   # an LLDP neighbour on PORT
#   sonic_oper NAME PORT up|down  # the port's oper_status (APPL_DB)
#   sonic_counters_port NAME PORT # COUNTERS_DB (db 2) maps for PORT and its
#                                 # unicast queues 0-7, as flex counters do
#   sonic_port_counters NAME PORT FIELD VALUE...  # fields of PORT's hash
#   r NAME REDIS-CLI-ARGS...      # redis-cli on the switch's socket
# The redis-server's pid is in $REDIS_<NAME> and in $LOOM_PIDS.
#   sonic_leaf NAME N             # sonic_start with 4 ports (Ethernet0..12,
#                                 # etp1..4) and spine1 as LLDP neighbour on
#                                 # Ethernet0 (its port EthernetN)
#   sonic_need                    # skip without redis-server, redis-cli or
#                                 # the sonic plugin ($SONIC)
#   sonic_plugin_dir              # $work/plugins with the plugin (after
#                                 # loom_work), for loom.yaml's plugins.dir

r() { _s=$1; shift; redis-cli -s "$work/$_s.sock" "$@"; }

sonic_start() { # NAME MAC
	redis-server --port 0 --unixsocket "$work/$1.sock" --unixsocketperm 700 \
		--save '' --appendonly no --daemonize no >"$work/$1.redis.log" 2>&1 &
	LOOM_PIDS="$LOOM_PIDS $!"
	eval "REDIS_$1=$!"
	loom_until 100 r "$1" ping || loom_fail "redis-server for $1 did not start"
	r "$1" -n 4 hset "DEVICE_METADATA|localhost" hostname "$1" hwsku ACS-MSN2700 \
		platform x86_64-mlnx_msn2700-r0 mac "$2" >/dev/null
}

sonic_port() { # NAME PORT ALIAS
	_i=${2#Ethernet}
	r "$1" -n 4 hset "PORT|$2" alias "$3" speed 100000 mtu 9100 admin_status up \
		lanes "$_i,$((_i + 1)),$((_i + 2)),$((_i + 3))" >/dev/null
	r "$1" -n 0 hset "PORT_TABLE:$2" oper_status up admin_status up speed 100000 >/dev/null
}

sonic_lldp() { # NAME PORT SYSNAME PORTID CHASSIS
	r "$1" -n 0 hset "LLDP_ENTRY_TABLE:$2" lldp_rem_sys_name "$3" lldp_rem_port_id "$4" \
		lldp_rem_chassis_id "$5" >/dev/null
}

sonic_oper() { # NAME PORT up|down
	r "$1" -n 0 hset "PORT_TABLE:$2" oper_status "$3" >/dev/null
}

# The port's oid is oid:0x1000000<N>, queue Q's oid:0x1500000<N><Q>, N the
# number in the port's name (one Redis per switch: unique on the switch).
sonic_counters_port() { # NAME PORT
	_n=${2#Ethernet}
	_p=$(printf 'oid:0x1000000%09x' "$_n")
	r "$1" -n 2 hset COUNTERS_PORT_NAME_MAP "$2" "$_p" >/dev/null
	for _q in 0 1 2 3 4 5 6 7; do
		_o=$(printf 'oid:0x1500000%05x%04x' "$_n" "$_q")
		r "$1" -n 2 hset COUNTERS_QUEUE_NAME_MAP "$2:$_q" "$_o" >/dev/null
		r "$1" -n 2 hset COUNTERS_QUEUE_TYPE_MAP "$_o" SAI_QUEUE_TYPE_UNICAST >/dev/null
		r "$1" -n 2 hset "COUNTERS:$_o" SAI_QUEUE_STAT_PACKETS 0 \
			SAI_QUEUE_STAT_DROPPED_PACKETS 0 >/dev/null
	done
}

sonic_port_counters() { # NAME PORT FIELD VALUE...
	_s=$1
	_p=$(printf 'oid:0x1000000%09x' "${2#Ethernet}")
	shift 2
	r "$_s" -n 2 hset "COUNTERS:$_p" "$@" >/dev/null
}

sonic_need() {
	for _t in redis-server redis-cli; do
		command -v $_t >/dev/null 2>&1 || loom_skip "$_t is not installed"
	done
	SONIC=$B/plugins/sonic/.libs/sonic.so
	[ -e "$SONIC" ] || loom_skip "$SONIC is not built"
}

sonic_plugin_dir() {
	mkdir -p "$work/plugins"
	cp "$SONIC" "$work/plugins/"
}

sonic_leaf() { # NAME N
	sonic_start "$1" "00:11:22:33:44:5$2"
	for _i in 0 4 8 12; do
		sonic_port "$1" "Ethernet$_i" "etp$((_i / 4 + 1))"
	done
	sonic_lldp "$1" Ethernet0 spine1 "Ethernet$2" "00:aa:bb:cc:dd:0$2"
}
