/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/util.js: what every view of the web view shares: the token, the
 * API call (loomd's /api/v1 with the operator's token, kept in this tab's
 * sessionStorage only; a read, or a change with its JSON body), DOM and SVG helpers, a table from rows. */
"use strict";

const SVG = "http://www.w3.org/2000/svg";

export const state = { token: sessionStorage.getItem("loom-token") || "", fabric: null,
			hidden: new Set(), highlight: new Set(), afterFabric: null };

/* A link's states, best to worst: a bundle or a leaf takes its worst. */
export const WORST = ["up", "degraded", "congested", "errors", "down"];
export function worse(a, b) { return WORST.indexOf(a) >= WORST.indexOf(b) ? a : b; }

export function portKey(guid, port) { return guid + ":" + port; }

/* Show the map and run fn once it is drawn (the panels of other views'
 * links: Find, Health, Jobs). */
export function onMap(fn) {
	if ((location.hash || "#fabric") === "#fabric" && state.fabric) {
		fn();
		return;
	}
	state.afterFabric = fn;
	location.hash = "#fabric";
}

/* A time as the operator reads it: local, to the second. */
export function when(t) {
	if (t === null || t === undefined || t === "")
		return "";
	const d = typeof t === "number" ? new Date(t * 1000) : new Date(t);
	return isNaN(d) ? String(t) : d.toLocaleString();
}

/* Bytes per second, short. */
export function rate(v) {
	if (v === null || v === undefined || v === "")
		return "";
	const u = ["B/s", "kB/s", "MB/s", "GB/s"];
	let i = 0;
	for (v = +v; v >= 1000 && i < u.length - 1; i++)
		v /= 1000;
	return v.toFixed(v < 10 && i ? 1 : 0) + " " + u[i];
}

export function $(id) { return document.getElementById(id); }

export function setStatus(text) { $("status").textContent = text; }

export async function api(path, method, payload) {
	const headers = { "Accept": "application/json" };
	if (state.token)
		headers["Authorization"] = "Bearer " + state.token;
	const init = { headers };
	if (method) {   /* a change (POST, DELETE) with its JSON body */
		init.method = method;
		init.body = JSON.stringify(payload || {});
		headers["Content-Type"] = "application/json";
	}
	const r = await fetch(path, init);
	const text = await r.text();
	let body = null;
	try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
	if (!r.ok) {
		const msg = body && body.error ? body.error.message : text.trim();
		const e = new Error(path + ": " + r.status + (msg ? " " + msg : ""));
		e.status = r.status;
		e.retryAfter = parseInt(r.headers.get("Retry-After") || "0", 10);
		throw e;
	}
	return body;
}

/* A list answer: the array itself, or the first array in the object. */
export function list(x, key) {
	if (Array.isArray(x))
		return x;
	if (x && key && Array.isArray(x[key]))
		return x[key];
	for (const v of Object.values(x || {}))
		if (Array.isArray(v))
			return v;
	return [];
}

// A node's display name: the site's (names.node_name_map, the API's "name"),
// else its description.
export function nm(n) {
	return n.name || n.desc;
}

export function el(tag, attrs, text) {
	const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
					  : document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, v);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

/* rows as a table; cols: the keys shown (null: the first row's); opts:
 * click(row) makes a row a link, attrs(row) its tr's attributes. */
export function table(id, rows, cols, opts) {
	return fill($(id), rows, cols, opts);
}

/* the same into a new table element of that id */
export function tableEl(id, rows, cols, opts) {
	return fill(el("table", { id }), rows, cols, opts);
}

function fill(t, rows, cols, opts) {
	opts = opts || {};
	cols = cols || Object.keys(rows[0] || {});
	t.replaceChildren();
	const head = el("tr");
	for (const c of cols)
		head.appendChild(el("th", {}, c));
	t.appendChild(head);
	for (const r of rows) {
		const tr = el("tr", opts.attrs ? opts.attrs(r) : {});
		if (opts.click) {
			tr.classList.add("link-row");
			tr.addEventListener("click", () => opts.click(r));
		}
		for (const c of cols) {
			const v = r[c];
			tr.appendChild(el("td", {}, v === null || v === undefined ? "" :
					  typeof v === "object" ? JSON.stringify(v) : String(v)));
		}
		t.appendChild(tr);
	}
	t.dataset.rows = rows.length;
	return t;
}

export function dayAgo() { return Math.floor(Date.now() / 1000) - 86400; }

export function fmt(v, fixed) {
	if (v === null || v === undefined)
		return "";
	if (typeof v === "boolean")
		return v ? "yes" : "no";
	return fixed !== undefined && typeof v === "number" ? v.toFixed(fixed) : String(v);
}
