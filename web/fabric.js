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
 * bundle (wider with more links) with its count and its worst state.
 * Every cable counts: a host cable not drawn gives its state to its
 * switch's box (marked, its panel says which cable and why). A legend
 * names the states; a state unticked is hidden. A cable loom's isolation
 * took out of the routes (isolated.js) keeps its state's colour, dashed
 * and dotted: it is up and watched but carries no routes. What is clicked
 * opens a panel (panels.js). */
"use strict";

import { state, $, api, list, nm, el, dayAgo, WORST, worse, portKey } from "./util.js";
import { showLinks, showBox } from "./panels.js";
import { loadIsolated } from "./isolated.js";

const MAX_HOSTS = 64;
const MAX_PER_LEVEL = 16;
const LEGEND = {
	up: "up", degraded: "degraded (below what both ends support)",
	congested: "congested", errors: "errors", down: "down",
};

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

/* A link's state and why: the API's own ("state", "reason") when it says,
 * else from the telemetry's errors and congestion and the link's flag. */
function linkState(l, health) {
	if (l.state && WORST.includes(l.state))
		return { state: l.state, reason: l.reason || "" };
	if (l.down)
		return { state: "down", reason: "down" + (l.since ? " since " + l.since : "") };
	const ends = [portKey(l.a.guid, l.a.port), portKey(l.b.guid, l.b.port)];
	const err = ends.map(k => health.errors.get(k)).find(x => x);
	if (err)
		return { state: "errors", reason: err.errors + " errors at " + (err.node || err.guid) +
			 "[" + err.port + "]" + moved(err.moved) };
	const cong = ends.map(k => health.congested.get(k)).find(x => x);
	if (cong)
		return { state: "congested", reason: "xmit_wait " +
			 Math.round(cong.xmit_wait_per_s || 0) + "/s at " + (cong.node || cong.guid) +
			 "[" + cong.port + "]" };
	if (l.degraded)
		return { state: "degraded", reason: l.width + " " + l.speed +
			 ", below what both ends support" };
	return { state: "up", reason: "" };
}

function moved(m) {
	const k = Object.entries(m || {});
	return k.length ? " (" + k.map(([n, v]) => n + " +" + v).join(", ") + ")" : "";
}
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

/* The telemetry's ports: errors and congestion, by port. */
function healthSets(h) {
	const s = { errors: new Map(), congested: new Map(), alarms: new Map() };
	for (const a of list(h && h.alarms)) {
		const k = portKey(a.guid, a.port);
		if (!s.alarms.has(k))
			s.alarms.set(k, []);
		s.alarms.get(k).push(a);
	}
	for (const p of list(h && h.errors))
		s.errors.set(portKey(p.guid, p.port), p);
	for (const p of list(h && h.congestion))
		s.congested.set(portKey(p.guid, p.port), p);
	return s;
}

/* What is drawn: boxes (a switch, a group of switches or a host) and
 * lines (a link or a bundle), from the nodes, links and health. */
function layout(nodes, links, health, iso) {
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
	const hostCables = new Map();   /* switch guid -> its host cables not drawn */
	const hostBox = new Map();      /* host guid -> the box it is counted on */
	const linkAt = new Map();       /* guid:port -> its link */
	for (const l of links) {
		const st = linkState(l, health);
		l.st = st.state;
		l.why = st.reason;
		l.iso = iso ? iso.byPort.get(portKey(l.a.guid, l.a.port)) || null : null;
		if (l.iso && l.iso.kind === "link")
			l.why = (l.why ? l.why + "; " : "") + "isolated (" + l.iso.state + "): no routes";
		linkAt.set(portKey(l.a.guid, l.a.port), l);
		linkAt.set(portKey(l.b.guid, l.b.port), l);
		const ba = box.get(l.a.guid), bb = box.get(l.b.guid);
		if (!ba || !bb) {
			/* a host not drawn: counted on its switch, its cable's
			 * state the box's host state */
			const sw = ba || bb;
			if (!sw)
				continue;
			const swEnd = ba ? l.a : l.b, host = ba ? l.b : l.a;
			sw.hosts++;
			sw.hostState = worse(sw.hostState || "up", l.st);
			hostBox.set(host.guid, sw);
			if (!hostCables.has(swEnd.guid))
				hostCables.set(swEnd.guid, []);
			hostCables.get(swEnd.guid).push(l);
			continue;
		}
		if (ba === bb)
			continue;
		const key = ba.id < bb.id ? ba.id + "-" + bb.id : bb.id + "-" + ba.id;
		if (!lines.has(key))
			lines.set(key, { a: ba, b: bb, links: [], state: "up", isolated: 0 });
		const line = lines.get(key);
		line.links.push(l);
		if (l.iso && l.iso.kind === "link")
			line.isolated++;
		line.state = worse(line.state, l.st);
	}
	return { boxes, lines: [...lines.values()], level, box, hostBox, hostCables, linkAt };
}

/* The legend: each state a tick box; unticked, its lines and marks hide. */
function drawLegend() {
	const lg = $("fabric-legend");
	if (lg.childElementCount)
		return;
	for (const [st, text] of Object.entries(LEGEND)) {
		const cb = el("input", { type: "checkbox", "data-state": st });
		cb.checked = !state.hidden.has(st);
		cb.addEventListener("change", () => {
			if (cb.checked)
				state.hidden.delete(st);
			else
				state.hidden.add(st);
			$("fabric").classList.toggle("hide-" + st, !cb.checked);
		});
		const sw = el("svg:svg", { width: 28, height: 10, class: "swatch" });
		sw.appendChild(el("svg:line", { x1: 0, y1: 5, x2: 28, y2: 5, class: "legend-line " + st }));
		const lab = el("label", { class: "legend-" + st });
		lab.append(cb, sw, " " + text);
		lg.appendChild(lab);
	}
	/* not a state: a pattern over the state's colour */
	const iso = el("span", { class: "legend-isolated" });
	const isw = el("svg:svg", { width: 28, height: 10, class: "swatch" });
	isw.appendChild(el("svg:line", { x1: 0, y1: 5, x2: 28, y2: 5,
					 class: "legend-line up isolated" }));
	iso.append(isw, " isolated: up, but no routes over it (a bundle: one of its links)");
	lg.appendChild(iso);
	const note = el("span", { class: "legend-note" },
			"\u25cf on a box: a host cable of that state (its panel says which)");
	lg.appendChild(note);
}

/* Mark the boxes of these guids (a switch, or a host counted on its box). */
export function highlight(guids) {
	state.highlight = new Set(guids);
	const f = state.fabric;
	if (!f)
		return;
	const hit = new Set();
	for (const g of state.highlight) {
		const b = f.box.get(g) || f.hostBox.get(g);
		if (b)
			hit.add(b);
	}
	for (const b of f.boxes)
		if (b.el)
			b.el.classList.toggle("found", hit.has(b));
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
					   class: "link " + line.state + (line.isolated ? " isolated" : ""),
					   "data-links": line.links.length, "data-state": line.state,
					   "data-isolated": line.isolated });
		if (line.links.length > 1)
			e.style.strokeWidth = (1.5 + Math.log2(line.links.length)).toFixed(1);
		e.addEventListener("click", () => showLinks(line));
		svg.appendChild(e);
	}
	for (const b of f.boxes) {
		const hs = b.hostState || "up";
		const g = el("svg:g", { class: "node" + (b.members.length > 1 ? " group" : "") +
					" host-" + hs, "data-members": b.members.length,
				       "data-type": b.members[0].type, "data-host-state": hs,
				       "data-guid": b.members.length === 1 ? b.members[0].guid : "",
				       transform: "translate(" + b.x + "," + b.y + ")" });
		b.el = g;
		const row = f.boxes.filter(x => x.level === b.level).length;
		const w = Math.min(b.members.length > 1 ? 60 : 48, 0.9 * W / row);
		g.appendChild(el("svg:rect", { x: -w / 2, y: -9, width: w, height: 18, rx: 3 }));
		g.appendChild(el("svg:text", { "text-anchor": "middle", y: 4 },
				 b.members.length > 1 ? b.members.length +
					(b.members[0].type === "switch" ? " sw" : " hosts") :
				 nm(b.members[0]).slice(0, Math.max(2, Math.floor(w / 6)))));
		if (hs !== "up")
			g.appendChild(el("svg:circle", { cx: w / 2, cy: -9, r: 4, class: "mark " + hs }));
		g.appendChild(el("svg:title", {}, b.label + (b.hosts ? " (" + b.hosts + " hosts" +
				 (hs !== "up" ? ", a host cable " + hs : "") + ")" : "")));
		g.addEventListener("click", () => showBox(b));
		svg.appendChild(g);
	}
	const sw = f.boxes.reduce((n, b) => n + (b.members[0].type === "switch" ? b.members.length : 0), 0);
	const nlinks = f.links;      /* every link, drawn in a bundle or counted on a switch */
	for (const st of WORST)
		svg.classList.toggle("hide-" + st, state.hidden.has(st));
	highlight(state.highlight);
	const bad = f.lines.filter(l => l.state !== "up").length;
	const badHosts = f.boxes.filter(b => (b.hostState || "up") !== "up").length;
	const down = f.lines.filter(l => l.state === "down").length;
	const isolated = f.lines.reduce((n, l) => n + l.isolated, 0);
	$("fabric-summary").textContent = sw + " switches, " + f.hosts + " hosts, " + nlinks +
		" links, drawn as " + f.lines.length + " lines (" + bad + " not clean, " + down +
		" down)" + (badHosts ? "; " + badHosts + " box(es) with a host cable not clean" : "") +
		(isolated ? "; " + isolated + " cable(s) isolated (no routes)" : "");
	svg.dataset.switches = sw;
	svg.dataset.links = nlinks;
	svg.dataset.down = f.down;
	svg.dataset.downLines = down;
	svg.dataset.badHostBoxes = badHosts;
	svg.dataset.isolated = isolated;
}

export async function loadFabric() {
	const [nodes, links, health, events, iso] = await Promise.all([
		api("/api/v1/nodes"), api("/api/v1/links"),
		api("/api/v1/health").catch(() => null),
		api("/api/v1/events?since=" + dayAgo()).catch(() => []),
		loadIsolated().catch(() => null)]);
	/* InfiniBand here; the Ethernet switches have their own view */
	const ns = list(nodes, "nodes").filter(n => n.fabric !== "eth");
	const ls = list(links, "links").filter(l => l.fabric !== "eth");
	/* down links: the API's state when it has one (cabled in the last
	 * sweep, now down), else the last day's link_down events */
	const down = ls.some(l => l.state) ? [] : downLinks(list(events, "events"), ls);
	const hs = healthSets(health);
	const f = layout(ns, ls.concat(down), hs, iso);
	f.health = hs;
	f.nodes = new Map(ns.map(n => [n.guid, n]));
	f.byName = new Map();   /* a node's name and description -> its guid */
	for (const n of ns) {
		if (n.desc)
			f.byName.set(n.desc, n.guid);
		f.byName.set(nm(n), n.guid);
	}
	state.events = list(events, "events");
	f.down = down.length + ls.filter(l => l.state === "down").length;
	f.links = ls.filter(l => l.state !== "down").length;   /* cabled now */
	f.hosts = ns.filter(n => n.type !== "switch").length;
	state.fabric = f;
	drawLegend();
	drawFabric(f);
}
