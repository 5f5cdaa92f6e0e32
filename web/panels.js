/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/panels.js: the fabric view's panels (issue 41), what a click on the
 * map (or a link of Find, Health, Jobs) opens in #detail: a bundle's links
 * worst first with the reason; a group's switches; a switch's host cables
 * (worst first, why), its ports (state, width/speed against the most both
 * ends support, peer by name, rates, errors and the last window's deltas,
 * alarms and since when, isolated) and its recent events. A port row
 * opens the port panel (port.js). Fields of the richer ports answer
 * (/nodes/{guid}/ports) when loomd gives them; /counters?node= and /health
 * otherwise. */
"use strict";

import { state, $, api, list, nm, el, tableEl, WORST, portKey, when, rate } from "./util.js";
import { showPort } from "./port.js";

const ERROR_COUNTER = /Error|Discard|Downed|Violation|Overrun|Constraint/;

function worstFirst(links) {
	return links.slice().sort((x, y) => WORST.indexOf(y.st) - WORST.indexOf(x.st));
}

function end(e) { return (e.name || e.desc || e.guid) + "[" + e.port + "]"; }

function panel(title) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, title));
	return d;
}

/* A bundle (or a single line): its links, worst first, with why. */
export function showLinks(line) {
	const d = panel(line.a.label + " \u2194 " + line.b.label + ": " +
			line.links.length + " link(s), " + line.state);
	const rows = worstFirst(line.links).slice(0, 500).map(l => ({
		a: end(l.a), b: end(l.b), state: l.st, reason: l.why,
		width: l.width, speed: l.speed, guid: l.a.guid, port: l.a.port }));
	d.appendChild(tableEl("detail-links", rows, ["a", "b", "state", "reason", "width", "speed"],
			      { click: r => openNode(r.guid, r.port),
				attrs: r => ({ class: "st-" + r.state, "data-state": r.state }) }));
}

/* A box: a group lists its switches, each opening its panel. */
export function showBox(b) {
	if (b.members.length === 1)
		return openNode(b.members[0].guid);
	const d = panel(b.label + " (" + b.members.length + " switches" +
			(b.hosts ? ", " + b.hosts + " hosts" : "") + ")");
	const f = state.fabric;
	const rows = b.members.map(m => {
		const hc = f.hostCables.get(m.guid) || [];
		const bad = hc.filter(l => l.st !== "up");
		return { switch: nm(m), guid: m.guid, lid: m.lid, hosts: hc.length,
			 "host cables": bad.length ? bad.length + " " + worstFirst(bad)[0].st : "",
			 st: bad.length ? worstFirst(bad)[0].st : "up" };
	});
	d.appendChild(tableEl("detail-members", rows, ["switch", "lid", "hosts", "host cables"],
			      { click: r => openNode(r.guid),
				attrs: r => ({ class: "st-" + r.st, "data-guid": r.guid }) }));
}

/* Open what a guid names: a switch's panel, or a host's leaf panel with
 * the host's cable marked (port: the switch's port to mark, or the host's). */
export function openNode(guid, port) {
	const f = state.fabric;
	const n = f && f.nodes.get(guid);
	if (!n)
		return panel("not in the fabric: " + guid + (port ? "[" + port + "]" : ""));
	if (n.type === "switch")
		return openSwitch(n, port);
	/* a host: its cable(s); the leaf of the one asked (else its first) */
	let l = port && f.linkAt.get(portKey(guid, port));
	if (!l)
		l = [...f.linkAt.values()].find(x => x.a.guid === guid || x.b.guid === guid);
	if (!l)
		return panel(nm(n) + ": no cable in the last sweep");
	const leaf = l.a.guid === guid ? l.b : l.a;
	return openSwitch(f.nodes.get(leaf.guid) || { guid: leaf.guid, desc: leaf.desc },
			  leaf.port);
}

/* The error counters of a port as "Name=value (+delta)" */
function errorsText(counters, deltas) {
	return Object.entries(counters || {})
		.filter(([k, v]) => ERROR_COUNTER.test(k) && v)
		.map(([k, v]) => k + "=" + v + (deltas && deltas[k] ? " (+" + deltas[k] + ")" : ""))
		.join(", ");
}

/* A host cable's errors: both ends, from /health's errors */
function cableErrors(l) {
	const h = state.fabric.health;
	return [l.a, l.b].map(e => {
		const x = h.errors.get(portKey(e.guid, e.port));
		return x ? end(e) + ": " + (errorsText(x.counts, x.moved) || x.errors + " errors") : "";
	}).filter(x => x).join("; ");
}

export function openSwitch(n, markPort) {
	const f = state.fabric;
	const d = panel(nm(n) + " (" + n.guid + (n.lid ? ", lid " + n.lid : "") + ")");
	d.dataset.guid = n.guid;
	const hc = worstFirst(f.hostCables.get(n.guid) || []);
	if (hc.length) {
		const bad = hc.filter(l => l.st !== "up").length;
		d.appendChild(el("h4", {}, "Host cables: " + hc.length + ", " + bad + " not clean"));
		const rows = hc.map(l => {
			const me = l.a.guid === n.guid ? l.a : l.b, host = me === l.a ? l.b : l.a;
			return { port: me.port, host: end(host), state: l.st, reason: l.why,
				 errors: cableErrors(l), hguid: host.guid };
		});
		d.appendChild(tableEl("detail-hosts", rows,
				      ["port", "host", "state", "reason", "errors"],
				      { click: r => showPort(n, r.port, null, () => openSwitch(n, r.port)),
					attrs: r => ({ class: "st-" + r.state +
						       (r.port === markPort ? " marked" : ""),
						       "data-port": r.port, "data-host": r.hguid }) }));
	}
	const ports = el("div", { id: "detail-ports-box" }, "reading the ports\u2026");
	d.appendChild(ports);
	const ev = (state.events || []).filter(e => (e.subject || "").includes(nm(n)) ||
					       (e.subject || "").includes(n.guid)).slice(0, 20);
	d.appendChild(el("h4", {}, "Events (last day): " + ev.length));
	d.appendChild(tableEl("detail-events", ev, ["time", "severity", "kind", "subject", "old", "new"]));
	fillPorts(n, markPort, ports);
	const m = d.querySelector("tr.marked");
	if (m)
		m.scrollIntoView({ block: "nearest" });
}

/* The switch's ports: the richer ports answer, else counters and health. */
async function fillPorts(n, markPort, box) {
	const f = state.fabric;
	const [ports, ctr] = await Promise.all([
		api("/api/v1/nodes/" + encodeURIComponent(n.guid) + "/ports").catch(() => null),
		api("/api/v1/counters?node=" + encodeURIComponent(n.guid)).catch(() => null)]);
	if ($("detail").dataset.guid !== n.guid)
		return;   /* another panel opened meanwhile */
	const byPort = new Map();
	for (const p of list(ports, "ports"))
		byPort.set(p.port, { api: p });
	for (const c of list(ctr, "ports")) {
		if (!byPort.has(c.port))
			byPort.set(c.port, {});
		byPort.get(c.port).ctr = c;
	}
	const alarms = f.health.alarms;
	const rows = [...byPort.entries()].sort((x, y) => x[0] - y[0]).map(([port, x]) => {
		const p = x.api || {}, c = x.ctr || {};
		const l = f.linkAt.get(portKey(n.guid, port));
		const peer = p.peer ? (p.peer.name || (f.nodes.get(p.peer.guid) ? nm(f.nodes.get(p.peer.guid))
						     : p.peer.guid)) + "[" + p.peer.port + "]"
				    : l ? end(l.a.guid === n.guid ? l.b : l.a) : "";
		const max = p.width_max || p.speed_max ? (p.width_max || "") + " " + (p.speed_max || "")
			    : (p.width_supported || "") + " " + (p.speed_supported || "");
		const rx = p.rates ? p.rates.rx : c.rates && c.rates.PortRcvData !== undefined ?
			c.rates.PortRcvData * 4 : null;
		const tx = p.rates ? p.rates.tx : c.rates && c.rates.PortXmitData !== undefined ?
			c.rates.PortXmitData * 4 : null;
		const errs = p.errors && typeof p.errors === "object" ?
			errorsText(p.errors.values || p.errors, p.errors.deltas) :
			errorsText(c.counters, c.deltas);
		const al = p.alarms || alarms.get(portKey(n.guid, port)) || [];
		return { port, state: p.state || (c.answered === false ? "no answer" : ""),
			 "width speed": ((p.width || (l && l.width) || "") + " " +
					 (p.speed || (l && l.speed) || "")).trim(),
			 max: max.trim(), degraded: p.degraded ? "yes" : "",
			 peer, rx: rate(rx), tx: rate(tx), errors: errs,
			 alarms: al.map(a => a.kind + " since " + when(a.since)).join(", "),
			 "down since": when(p.down_since), st: l ? l.st : "",
			 isolated: l && l.iso ? l.iso.state : "" };
	});
	box.replaceChildren(el("h4", {}, "Ports: " + rows.length));
	box.appendChild(tableEl("detail-ports", rows,
				["port", "state", "width speed", "max", "peer", "rx", "tx", "errors",
				 "alarms", "down since", "isolated"],
				{ click: r => showPort(n, r.port, r, () => openSwitch(n, r.port)),
				  attrs: r => ({ "data-port": r.port, class: (r.st ? "st-" + r.st : "") +
						 (r.port === markPort ? " marked" : "") }) }));
}
