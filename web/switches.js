/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/switches.js: the RoCE switches view (issue 29): each switch's
 * policy state and drift per port. */
"use strict";

import { state, $, api, list, el } from "./util.js";

const QOS_STATE = {
	"in policy": "in sync", "drifted": "drifted", "partial": "failed push (partial)",
	"unreachable": "unreachable", "": "not read yet",
};

/* The port a drifted key is about: a segment of the key (PORT_QOS_MAP|Ethernet4,
 * QUEUE|Ethernet0|3) or the field (CABLE_LENGTH|AZURE's Ethernet0) that is one
 * of the switch's ports; null: switch-wide (WRED_PROFILE, DSCP_TO_TC_MAP). */
function keyPort(k, ports) {
	for (const seg of String(k.key).split(/[|:/]/))
		if (ports.has(seg))
			return seg;
	return ports.has(k.field) ? k.field : null;
}

export async function loadSwitches() {
	const since = Math.floor(Date.now() / 1000) - 7 * 86400;
	const [sws, events] = await Promise.all([
		api("/api/v1/switches"),
		/* the applies of the last week only, newest first */
		api("/api/v1/events?kind=qos_applied&since=" + since).catch(() => [])]);
	const switches = list(sws, "switches");
	/* The live read (qos-status asks every switch): a read token may run it
	 * once every 10 s; sooner, the stored state is shown and it is asked
	 * again when the API says. */
	let live = null, liveNote = "";
	try {
		live = await api("/api/v1/qos/status");
	} catch (e) {
		liveNote = e.message;
		if (e.status === 429) {
			liveNote = "live read in " + e.retryAfter + " s (rate limited)";
			clearTimeout(state.switchesRetry);
			state.switchesRetry = setTimeout(() => {
				if ((location.hash || "").slice(1) === "switches" && state.reshow)
					state.reshow();
			}, (e.retryAfter || 10) * 1000 + 200);
		}
	}
	const byName = new Map(list(live, "switches").map(s => [s.name, s]));
	const lastApplied = new Map();
	for (const e of list(events, "events"))   /* newest first */
		if (e.kind === "qos_applied" && (e.subject || "").startsWith("switch ") &&
		    !lastApplied.has(e.subject.slice(7)))
			lastApplied.set(e.subject.slice(7), e);
	const details = await Promise.all(switches.map(s =>
		api("/api/v1/switches/" + encodeURIComponent(s.name)).catch(() => s)));
	const box = $("switches");
	box.replaceChildren();
	box.dataset.live = live ? "1" : "0";
	$("switches-note").textContent = live ?
		live.in_policy + " of " + live.switches_total + " switches in sync (read now)" :
		"stored states: " + liveNote;
	for (const d of details) {
		const now = byName.get(d.name);
		const st = now ? now.state : d.qos_state;
		const applied = lastApplied.get(d.name);
		/* the last push landed partly and the switch is not in policy since */
		const failedPush = st === "partial" || (applied && /^partial/.test(applied.new || "") &&
							 st !== "in policy");
		const sec = el("section", { class: "switch", "data-name": d.name,
					    "data-state": st || "", "data-failed-push": failedPush ? 1 : 0 });
		sec.appendChild(el("h3", {}, d.name + " \u2014 " + (QOS_STATE[st] || st) +
				   (failedPush && st !== "partial" ? ", last push failed" : "")));
		sec.classList.add("state-" + (st || "unknown").replace(/ /g, "-"));
		const facts = [
			["plugin", d.plugin], ["model", d.model], ["address", d.address],
			["ports up", d.ports_up + " of " + d.ports],
			["last read", d.last_seen || "never"],
			["policy applied", applied ? applied.time + " (" + (applied.new.length > 90 ?
				applied.new.slice(0, 90) + "\u2026" : applied.new) + ")" :
				"no apply in the last 7 days"],
			["error", (now && now.error) || d.qos_error]];
		const dl = el("dl", { class: "facts" });
		for (const [k, v] of facts)
			if (v) {
				const div = el("div");
				div.appendChild(el("dt", {}, k));
				div.appendChild(el("dd", { title: k === "policy applied" && applied ?
							   applied.new : "" }, String(v)));
				dl.appendChild(div);
			}
		sec.appendChild(dl);
		const ports = new Map(list(d.port_list).map(p => [p.name, p]));
		const drift = new Map();     /* port name or "" (switch-wide) -> keys */
		for (const k of list(now && st === "drifted" ? now.keys : [])) {
			const p = keyPort(k, ports) || "";
			if (!drift.has(p))
				drift.set(p, []);
			drift.get(p).push(k);
		}
		/* the ports folded unless one drifted: many switches stay readable */
		const fold = el("details");
		const nDrifted = [...drift.keys()].length;
		if (nDrifted)
			fold.setAttribute("open", "");
		fold.appendChild(el("summary", {}, ports.size + " ports" +
				    (nDrifted ? ", " + nDrifted + " with drift" : "")));
		const t = el("table", { class: "ports" });
		const head = el("tr");
		for (const c of ["port", "alias", "oper", "neighbour", "drift (actual \u2192 policy)"])
			head.appendChild(el("th", {}, c));
		t.appendChild(head);
		const rows = [...ports.keys()];
		if (drift.has(""))
			rows.push("");
		for (const name of rows) {
			const p = ports.get(name) || {};
			const keys = drift.get(name) || [];
			const tr = el("tr", { "data-port": name || "switch-wide",
					      "data-drift": keys.map(k => k.key + " " + k.field).join(";") });
			if (keys.length)
				tr.classList.add("drifted");
			tr.appendChild(el("td", {}, name || "(switch-wide)"));
			tr.appendChild(el("td", {}, p.alias || ""));
			tr.appendChild(el("td", {}, name ? (p.oper_up ? "up" : "down") : ""));
			tr.appendChild(el("td", {}, p.peer_name ? p.peer_name + " " + p.peer_port : ""));
			const td = el("td");
			for (const k of keys)
				td.appendChild(el("div", { class: "drift" }, k.key + " " + k.field + ": " +
						   (k.before || "(none)") + " \u2192 " + (k.after || "(none)")));
			tr.appendChild(td);
			t.appendChild(tr);
		}
		fold.appendChild(t);
		sec.appendChild(fold);
		box.appendChild(sec);
	}
	box.dataset.switches = details.length;
	if (!details.length)
		box.appendChild(el("p", {}, "No RoCE switch in loom.yaml (switches:)."));
}
