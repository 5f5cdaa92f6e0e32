/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/isolated.js: the isolated set (issue 42) as the views use it: the
 * cables loom's isolation took out of the routes, or whose host it drained
 * (/api/v1/isolation/links, `loomctl link isolated`), by port; and the
 * operator's two changes on a cable, Isolate (POST, with a reason) and
 * Restore (DELETE), which need a token of role admin. The page cannot know
 * a token's role before it asks: the buttons are there until a change is
 * answered 403, then gone for that token. Used by the map (fabric.js), the
 * port panel (port.js) and the Isolation view (isolation.js). */
"use strict";

import { state, api, el, when, portKey, setStatus } from "./util.js";

const PATH = "/api/v1/isolation/links";

/* The set (the answer, with byPort: either end's guid:port -> its row),
 * kept in state.isolated; null from a loomd without isolation (404). */
export async function loadIsolated() {
	let r;
	try {
		r = await api(PATH);
	} catch (e) {
		if (e.status !== 404)
			throw e;
		r = null;
	}
	if (r) {
		r.byPort = new Map();
		for (const x of r.links || []) {
			r.byPort.set(portKey(x.guid, x.port), x);
			r.byPort.set(portKey(x.peer_guid, x.peer_port), x);
		}
	}
	state.isolated = r;
	return r;
}

export function mayChange() { return state.readOnly !== state.token; }

/* A duration in seconds, short: "1h 05m", "42s"; "" for none. */
export function left(s) {
	if (s === null || s === undefined)
		return "";
	s = Math.round(s);
	const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
	return h ? h + "h " + String(m).padStart(2, "0") + "m" : m ? m + "m " + (s % 60) + "s" :
		s + "s";
}

/* One line of what an isolated row says. */
export function isolatedText(x) {
	return (x.kind === "host" ? "host drained" : "out of the routes") + " (" + x.state +
		") since " + when(x.since) + " by " + x.by + "; rules " + x.rules +
		(x.probation_left_s !== null && x.probation_left_s !== undefined ?
		 "; back in " + left(x.probation_left_s) + " if clean" :
		 x.state === "held" ? "; held until an operator restores it" : "");
}

/* Ask loomd; then out (the status line beside the button) says what it
 * answered, and after a success done() (which redraws) and the header's
 * status line. */
async function change(method, body, out, done) {
	out.textContent = (method === "POST" ? "isolating " : "restoring ") + body.port + "\u2026";
	try {
		await api(PATH, method, body);
		const said = (method === "POST" ? "isolated " : "restored ") + body.port;
		out.textContent = said;
		out.dataset.result = "ok";
		if (done)
			await done();
		setStatus(said);   /* the views redrawn: the header keeps it */
	} catch (e) {
		if (e.status === 403)
			state.readOnly = state.token;
		out.textContent = e.status === 403 ? e.message + " (an admin token can)" : e.message;
		out.dataset.result = "error";
	}
}

/* A Restore button for cable x (GUID:PORT of its lower end). */
export function restoreButton(x, out, done) {
	const port = x.guid + ":" + x.port;
	const b = el("button", { type: "button", class: "iso-restore", "data-port": port },
		     "Restore");
	b.addEventListener("click", ev => {
		ev.stopPropagation();
		b.disabled = true;
		change("DELETE", { port }, out, done).finally(() => { b.disabled = false; });
	});
	return b;
}

/* "Isolate…": opens a reason field (and force) and the button that asks. */
export function isolateForm(port, out, done) {
	const f = el("form", { class: "iso-form", "data-port": port });
	const open = el("button", { type: "button", class: "iso-open" }, "Isolate\u2026");
	const reason = el("input", { class: "iso-reason", placeholder: "reason (required)",
				     size: 28, required: "" });
	const force = el("input", { type: "checkbox", class: "iso-force" });
	const go = el("button", { type: "submit", class: "iso-go" }, "Isolate");
	const more = el("span", { class: "iso-more", hidden: "" });
	const fl = el("label", { title: "isolate even below isolation.min_paths or ebb_floor_pct" });
	fl.append(force, " force");
	more.append(reason, " ", fl, " ", go);
	open.addEventListener("click", () => {
		more.hidden = false;
		open.hidden = true;
		reason.focus();
	});
	f.addEventListener("submit", ev => {
		ev.preventDefault();
		if (!reason.value.trim()) {
			out.textContent = "say why: the reason goes into the event and the audit log";
			return;
		}
		go.disabled = true;
		change("POST", { port, reason: reason.value.trim(), force: force.checked }, out,
		       done).finally(() => { go.disabled = false; });
	});
	f.append(open, more);
	return f;
}

/* The port panel's part: this switch port's cable isolated (what, since
 * when, Restore), or Isolate… for a switch-to-switch cable. null for a
 * port without a cable or a loomd without isolation. done: after a change. */
export function portIsolation(n, port, done) {
	const f = state.fabric, set = state.isolated;
	const l = f && f.linkAt.get(portKey(n.guid, port));
	if (!l || !set || n.type !== "switch")
		return null;
	const x = set.byPort.get(portKey(n.guid, port));
	const box = el("div", { id: "port-isolation", "data-state": x ? x.state : "" });
	const out = el("span", { class: "iso-out", role: "status" });
	if (x) {
		box.append(el("p", { class: "iso-text" }, "Isolated: " + isolatedText(x) +
			      (x.reason ? ". " + x.reason : "") +
			      (x.loss ? ". The routes lost: " + x.loss : "")));
		if (mayChange())
			box.append(restoreButton(x, out, done));
	} else {
		const other = f.nodes.get(l.a.guid === n.guid ? l.b.guid : l.a.guid);
		if (!other || other.type !== "switch" || !mayChange())
			return null;
		box.append(isolateForm(n.guid + ":" + port, out, done));
	}
	box.append(" ", out);
	return box;
}
