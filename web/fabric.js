/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/fabric.js: the fabric view (issue 20): the map by levels and the
 * panels of what is clicked.
 *
 * The fabric is drawn by levels: channel adapters at the bottom, each
 * switch one level above its nearest adapter (leaves, spines, cores of a
 * fat tree; any other topology the same way). Large fabrics are
 * aggregated so that the page stays usable at 10k+ hosts: hosts are counted
 * on their switch instead of drawn when there are more than MAX_HOSTS, and
 * a level with more than MAX_PER_LEVEL switches is drawn as MAX_PER_LEVEL
 * groups of consecutive switches (by name), links between groups as one
 * bundle (wider with more links) with its count and its worst state. */
"use strict";

import { state, $, api, list, nm, el, table, dayAgo } from "./util.js";

const MAX_HOSTS = 64;
const MAX_PER_LEVEL = 16;

function portKey(guid, port) { return guid + ":" + port; }

/* Levels: adapters 0, a switch 1 + the level of its nearest adapter. */
function levels(nodes, adj) {
	const level = new Map();
	let frontier = nodes.filter(n => n.type !== "switch").map(n => n.guid);
	for (const g of frontier)
		level.set(g, 0);
	for (let l = 1; frontier.length; l++) {
		const next = [];
		for (const g of frontier)
			for (const p of adj.get(g) || [])
				if (!level.has(p)) {
					level.set(p, l);
					next.push(p);
				}
		frontier = next;
	}
	let top = 0;
	for (const v of level.values())
		top = Math.max(top, v);
	for (const n of nodes)
		if (!level.has(n.guid))
			level.set(n.guid, n.type === "switch" ? top + 1 : 0);
	return level;
}

function linkState(l, health) {
	if (l.down)
		return "down";
	const ends = [portKey(l.a.guid, l.a.port), portKey(l.b.guid, l.b.port)];
	if (ends.some(k => health.errors.has(k)))
		return "errors";
	if (ends.some(k => health.congested.has(k)))
		return "congested";
	if (l.degraded)
		return "degraded";
	return "up";
}
const WORST = ["up", "degraded", "congested", "errors", "down"];

/* Links that went down (link_down events of the last day not followed by
 * link_up for the same ports) and are still not there: drawn as down. The
 * subject is "0xGUID[PORT] (DESC) <-> 0xGUID[PORT] (DESC)". */
function downLinks(events, links) {
	const re = /^(0x[0-9a-f]+)\[(\d+)\] \((.*)\) <-> (0x[0-9a-f]+)\[(\d+)\] \((.*)\)$/;
	const last = new Map();
	for (const e of events)    /* newest first: the first of a subject is its last */
		if ((e.kind === "link_down" || e.kind === "link_up") && !last.has(e.subject))
			last.set(e.subject, e);
	const present = new Set(links.flatMap(l => [portKey(l.a.guid, l.a.port),
						    portKey(l.b.guid, l.b.port)]));
	const down = [];
	for (const e of last.values()) {
		const m = e.kind === "link_down" && re.exec(e.subject || "");
		if (!m || present.has(portKey(m[1], +m[2])))
			continue;
		down.push({ a: { guid: m[1], port: +m[2], desc: m[3] },
			    b: { guid: m[4], port: +m[5], desc: m[6] }, down: true,
			    width: "", speed: "", degraded: false, since: e.time });
	}
	return down;
}

function healthSets(h) {
	const s = { errors: new Set(), congested: new Set() };
	for (const p of list(h && h.errors))
		s.errors.add(portKey(p.guid, p.port));
	for (const p of list(h && h.congestion))
		s.congested.add(portKey(p.guid, p.port));
	return s;
}

/* What is drawn: boxes (a switch, a group of switches or a host) and
 * lines (a link or a bundle), from the nodes, links and health. */
function layout(nodes, links, health) {
	const adj = new Map();
	for (const l of links) {
		if (!adj.has(l.a.guid)) adj.set(l.a.guid, []);
		if (!adj.has(l.b.guid)) adj.set(l.b.guid, []);
		adj.get(l.a.guid).push(l.b.guid);
		adj.get(l.b.guid).push(l.a.guid);
	}
	const level = levels(nodes, adj);
	const hosts = nodes.filter(n => n.type !== "switch");
	const drawHosts = hosts.length <= MAX_HOSTS;
	const byLevel = new Map();
	for (const n of nodes) {
		if (n.type !== "switch" && !drawHosts)
			continue;
		const l = level.get(n.guid);
		if (!byLevel.has(l)) byLevel.set(l, []);
		byLevel.get(l).push(n);
	}
	const box = new Map();      /* node guid -> its box */
	const boxes = [];
	for (const [l, ns] of byLevel) {
		ns.sort((x, y) => nm(x).localeCompare(nm(y), undefined, { numeric: true }));
		const per = Math.ceil(ns.length / MAX_PER_LEVEL);
		for (let i = 0; i < ns.length; i += per) {
			const members = ns.slice(i, i + per);
			const b = { level: l, members, hosts: 0, id: "b" + boxes.length,
				    label: members.length === 1 ? nm(members[0]) :
					   nm(members[0]) + " .. " + nm(members[members.length - 1]) };
			boxes.push(b);
			for (const m of members)
				box.set(m.guid, b);
		}
	}
	const lines = new Map();
	for (const l of links) {
		const ba = box.get(l.a.guid), bb = box.get(l.b.guid);
		if (!ba || !bb) {
			/* a host not drawn: counted on its switch */
			const sw = ba || bb;
			if (sw)
				sw.hosts++;
			continue;
		}
		if (ba === bb)
			continue;
		const key = ba.id < bb.id ? ba.id + "-" + bb.id : bb.id + "-" + ba.id;
		if (!lines.has(key))
			lines.set(key, { a: ba, b: bb, links: [], state: "up" });
		const line = lines.get(key);
		const st = linkState(l, health);
		line.links.push(l);
		if (WORST.indexOf(st) > WORST.indexOf(line.state))
			line.state = st;
	}
	return { boxes, lines: [...lines.values()], level };
}

function drawFabric(f) {
	const svg = $("fabric");
	svg.replaceChildren();
	const W = Math.max(svg.clientWidth || 1000, 400), H = Math.max(svg.clientHeight || 600, 300);
	const levelsUsed = [...new Set(f.boxes.map(b => b.level))].sort((a, b) => b - a);
	const rowH = H / (levelsUsed.length + 1);
	for (const [i, l] of levelsUsed.entries()) {
		const row = f.boxes.filter(b => b.level === l);
		row.forEach((b, j) => {
			b.x = (j + 0.5) * W / row.length;
			b.y = (i + 0.75) * rowH;
		});
	}
	svg.setAttribute("viewBox", "0 0 " + W + " " + H);
	for (const line of f.lines) {
		const e = el("svg:line", { x1: line.a.x, y1: line.a.y, x2: line.b.x, y2: line.b.y,
					   class: "link " + line.state, "data-links": line.links.length,
					   "data-state": line.state });
		if (line.links.length > 1)
			e.style.strokeWidth = (1.5 + Math.log2(line.links.length)).toFixed(1);
		e.addEventListener("click", () => showLinks(line));
		svg.appendChild(e);
	}
	for (const b of f.boxes) {
		const g = el("svg:g", { class: "node" + (b.members.length > 1 ? " group" : ""),
				       "data-members": b.members.length,
				       "data-type": b.members[0].type,
				       transform: "translate(" + b.x + "," + b.y + ")" });
		const row = f.boxes.filter(x => x.level === b.level).length;
		const w = Math.min(b.members.length > 1 ? 60 : 48, 0.9 * W / row);
		g.appendChild(el("svg:rect", { x: -w / 2, y: -9, width: w, height: 18, rx: 3 }));
		g.appendChild(el("svg:text", { "text-anchor": "middle", y: 4 },
				 b.members.length > 1 ? b.members.length +
					(b.members[0].type === "switch" ? " sw" : " hosts") :
				 nm(b.members[0]).slice(0, Math.max(2, Math.floor(w / 6)))));
		g.appendChild(el("svg:title", {}, b.label + (b.hosts ? " (" + b.hosts + " hosts)" : "")));
		g.addEventListener("click", () => showBox(b));
		svg.appendChild(g);
	}
	const sw = f.boxes.reduce((n, b) => n + (b.members[0].type === "switch" ? b.members.length : 0), 0);
	const nlinks = f.links;      /* every link, drawn in a bundle or counted on a switch */
	const bad = f.lines.filter(l => l.state !== "up").length;
	const down = f.lines.filter(l => l.state === "down").length;
	$("fabric-summary").textContent = sw + " switches, " + f.hosts + " hosts, " + nlinks +
		" links, drawn as " + f.lines.length + " lines (" + bad + " not clean, " + down +
		" down)";
	svg.dataset.switches = sw;
	svg.dataset.links = nlinks;
	svg.dataset.down = f.down;
	svg.dataset.downLines = down;
}

function showLinks(line) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, line.a.label + " \u2194 " + line.b.label + ": " +
			     line.links.length + " link(s), " + line.state));
	const rows = line.links.slice(0, 200).map(l => ({
		a: nm(l.a) + "[" + l.a.port + "]", b: nm(l.b) + "[" + l.b.port + "]",
		width: l.width, speed: l.speed, degraded: l.degraded }));
	const t = el("table", { id: "detail-links" });
	d.appendChild(t);
	table("detail-links", rows, ["a", "b", "width", "speed", "degraded"]);
}

async function showBox(b) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, b.label + (b.hosts ? " (" + b.hosts + " hosts)" : "")));
	const n = b.members[0];
	if (b.members.length > 1) {
		d.appendChild(el("p", {}, b.members.map(m => nm(m)).join(", ")));
		return;
	}
	try {
		const c = await api("/api/v1/counters?node=" + encodeURIComponent(n.guid));
		const rows = list(c, "ports").map(p => ({ port: p.port, state: p.state || "",
			errors: p.errors, xmit_wait_per_s: p.xmit_wait_per_s,
			data_per_s: p.data_per_s }));
		const t = el("table", { id: "detail-ports" });
		d.appendChild(t);
		table("detail-ports", rows, ["port", "state", "errors", "xmit_wait_per_s", "data_per_s"]);
		const ev = list(await api("/api/v1/events?since=" + dayAgo()), "events")
			.filter(e => (e.subject || "").includes(nm(n)) ||
				     (e.subject || "").includes(n.guid)).slice(0, 20);
		const te = el("table", { id: "detail-events" });
		d.appendChild(te);
		table("detail-events", ev, ["time", "severity", "kind", "subject", "old", "new"]);
	} catch (e) {
		d.appendChild(el("p", {}, String(e.message)));
	}
}

export async function loadFabric() {
	const [nodes, links, health, events] = await Promise.all([
		api("/api/v1/nodes"), api("/api/v1/links"),
		api("/api/v1/health").catch(() => null),
		api("/api/v1/events?since=" + dayAgo()).catch(() => [])]);
	/* InfiniBand here; the Ethernet switches have their own view */
	const ns = list(nodes, "nodes").filter(n => n.fabric !== "eth");
	const all = list(links, "links").filter(l => l.fabric !== "eth");
	/* links lists the cables down now with state "down" (issue 41) */
	const ls = all.filter(l => l.state !== "down");
	const down = all.filter(l => l.state === "down")
		.map(l => Object.assign({}, l, { down: true, since: l.down_since }))
		.concat(downLinks(list(events, "events"), all));
	const f = layout(ns, ls.concat(down), healthSets(health));
	f.down = down.length;
	f.links = ls.length;
	f.hosts = ns.filter(n => n.type !== "switch").length;
	state.fabric = f;
	drawFabric(f);
}
