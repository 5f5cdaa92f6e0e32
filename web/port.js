/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/port.js: the port panel (issue 41): what the switch panel's row
 * says of a port, and a small SVG chart of its last reads
 * (/api/v1/ports/{guid}/history?port=N: rx/tx bytes/s, error deltas,
 * xmit_wait per second; from Prometheus or loom's own memory). No history
 * (404, an older loomd): no chart, nothing else changes. A switch port's
 * cable isolated says so, with Restore; else Isolate… (isolated.js). */
"use strict";

import { state, $, api, list, nm, el, when, rate } from "./util.js";
import { portIsolation } from "./isolated.js";

/* A history row's fields, whatever the answer calls them. */
function num(r, keys) {
	for (const k of keys) {
		const v = r[k];
		if (typeof v === "number")
			return v;
		if (v && typeof v === "object")   /* errors: per counter */
			return Object.values(v).reduce((a, b) => a + (+b || 0), 0);
	}
	return 0;
}

/* a timestamp: unix seconds, or a date string */
function secs(r) {
	for (const k of ["time", "t", "ts", "sampled", "timestamp"]) {
		if (typeof r[k] === "number")
			return r[k];
		if (typeof r[k] === "string" && !isNaN(Date.parse(r[k])))
			return Date.parse(r[k]) / 1000;
	}
	return 0;
}

function points(h) {
	return list(h, "reads").map(r => ({
		t: secs(r),
		rx: num(r, ["rx", "rx_bytes_s", "rx_bytes_per_s"]),
		tx: num(r, ["tx", "tx_bytes_s", "tx_bytes_per_s"]),
		err: num(r, ["errors", "error_deltas", "errors_delta"]),
		wait: num(r, ["xmit_wait_per_s", "xmit_wait_share", "xmit_wait", "wait_share"]),
	})).filter(p => p.t).sort((a, b) => a.t - b.t);
}

function chart(ps) {
	const W = 320, H = 120, P = 4;
	const svg = el("svg:svg", { id: "port-chart", viewBox: "0 0 " + W + " " + H,
				    width: W, height: H, role: "img",
				    "aria-label": "rates and errors of the last reads" });
	const t0 = ps[0].t, t1 = ps[ps.length - 1].t || t0 + 1;
	const top = Math.max(1, ...ps.map(p => Math.max(p.rx, p.tx)));
	const x = t => P + (W - 2 * P) * (t1 > t0 ? (t - t0) / (t1 - t0) : 0.5);
	const y = v => H - 20 - (H - 30) * v / top;
	for (const key of ["rx", "tx"])
		svg.appendChild(el("svg:polyline", { class: "series " + key,
			points: ps.map(p => x(p.t).toFixed(1) + "," + y(p[key]).toFixed(1)).join(" ") }));
	for (const p of ps)
		if (p.err)
			svg.appendChild(el("svg:rect", { class: "err", x: x(p.t) - 2, y: H - 18, width: 4,
							height: 8, "data-errors": p.err }));
	svg.appendChild(el("svg:text", { x: P, y: 10, class: "axis" }, "max " + rate(top) +
			   "  (rx blue, tx green, errors red)"));
	svg.appendChild(el("svg:text", { x: P, y: H - 2, class: "axis" }, when(t0)));
	svg.dataset.points = ps.length;
	return svg;
}

/* n: the node; row: its switch panel row when there is one; back: what
 * the link back to the switch opens. */
export async function showPort(n, port, row, back) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, nm(n) + "[" + port + "]"));
	d.dataset.guid = n.guid;
	d.dataset.port = port;
	const a = el("a", { href: "#fabric", class: "back" }, "\u2190 " + nm(n));
	a.addEventListener("click", ev => {
		ev.preventDefault();
		back();
	});
	d.appendChild(a);
	if (row) {
		const dl = el("dl", { class: "facts" });
		for (const k of ["state", "width speed", "max", "peer", "rx", "tx", "errors", "alarms",
				 "down since"])
			if (row[k])
				dl.append(el("dt", {}, k), el("dd", {}, String(row[k])));
		d.appendChild(dl);
	}
	/* isolated, or Isolate… (issue 42): after a change, the view and this
	 * panel again */
	const iso = portIsolation(n, port, async () => {
		await state.reshow();
		await showPort(n, port, row, back);
	});
	if (iso)
		d.appendChild(iso);
	let h = null;
	try {
		h = await api("/api/v1/ports/" + encodeURIComponent(n.guid) + "/history?port=" + port);
	} catch (e) {
		return;   /* no history here: no chart */
	}
	if (d.dataset.guid !== n.guid || d.dataset.port !== String(port))
		return;
	const ps = points(h);
	if (ps.length)
		d.appendChild(chart(ps));
}
