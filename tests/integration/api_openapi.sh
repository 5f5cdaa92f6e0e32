#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# schemas/openapi.yaml against the real API (issue 20): the requests of
# tests/integration/openapi_check.py (every GET resource of the document,
# the call endpoint, errors, a mutation, a job) sent to loomd on the tiny
# ibsim fabric; each status must be documented for its path and method and
# each body must validate (python3-jsonschema) against its schema.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	loom_skip "python3-yaml and python3-jsonschema are not installed"
loom_work

API_READ=read-secret-0123456789abcdef-0123
API_ADMIN=admin-secret-0123456789abcdef-0123
export API_READ API_ADMIN
loom_tokens "$work/tokens" "reader:read:$API_READ" "ops:admin:$API_ADMIN"

loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens"
loom_loomd "$work/loom.yaml"
loom_until 50 python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" ||
	loom_fail "no HTTP listener"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

python3 "$S/tests/integration/openapi_check.py" "$S/schemas/openapi.yaml" \
	"http://127.0.0.1:$port/api/v1" >"$work/check.out" 2>&1 || {
	grep -v '^ok:' "$work/check.out" >&2
	loom_fail "real answers do not validate against schemas/openapi.yaml"
}
loom_ok "$(tail -n 1 "$work/check.out")"
