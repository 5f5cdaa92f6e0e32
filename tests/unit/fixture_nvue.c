/* tests/unit/fixture_nvue.c: what test_nvue and test_nvue_qos share: each
 * test's own tests/servers/nvue_server.py (python3, 127.0.0.1, a port it
 * picks, killed at teardown and by PR_SET_PDEATHSIG), the test's requests
 * to it (the NVUE API and the test-only /test/ endpoints), the nvue.so that
 * `make` built, opened on it as leaf1, the change sink, and loom's default
 * policy on the server's ports. See fixture_nvue.h. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "fixture_nvue.h"
#include "fixture_plugin.h"
#include "lib/qos/qos_policy.h"

char err[512];
pid_t srv_pid = -1;
int srv_port;
struct plugin *plugin;
const struct loom_plugin_v1 *ops;
struct lp_switch *sw;

/* ---- the server ------------------------------------------------------------ */

void server_kill(void)
{
	if (srv_pid > 0) {
		kill(srv_pid, SIGKILL);
		waitpid(srv_pid, NULL, 0);
	}
	srv_pid = -1;
}

/* Run nvue_server.py (HTTPS when cert is given): its pid and port. */
void spawn_server(const char *cert, const char *key, pid_t *pid, int *port)
{
	int fd[2];
	char line[64] = "";
	FILE *f;

	ck_assert_int_eq(pipe(fd), 0);
	*pid = fork();
	if (*pid == 0) {  /* no check assertions in the child */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (cert)
			execlp("python3", "python3", NVUE_SERVER, "--port", "0", "--user", USER,
			       "--password", PASSWORD, "--tls-cert", cert, "--tls-key", key,
			       (char *)NULL);
		else
			execlp("python3", "python3", NVUE_SERVER, "--port", "0", "--user", USER,
			       "--password", PASSWORD, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_ge(*pid, 0);
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(fgets(line, sizeof(line), f), "nvue_server.py printed no port");
	fclose(f);
	ck_assert_msg(sscanf(line, "PORT %d", port) == 1, "nvue_server.py: %s", line);
}

void server_start(void)
{
	spawn_server(NULL, NULL, &srv_pid, &srv_port);
}

struct buf {
	char *p;
	size_t n;
};

static size_t on_data(char *d, size_t size, size_t nmemb, void *ctx)
{
	struct buf *b = ctx;
	size_t len = size * nmemb;

	b->p = realloc(b->p, b->n + len + 1);
	memcpy(b->p + b->n, d, len);
	b->n += len;
	b->p[b->n] = '\0';
	return len;
}

/* The test's own request to the server: the answer's JSON (or NULL). */
json_t *http(const char *method, const char *path, const char *body)
{
	char url[512];
	struct buf b = { 0 };
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = curl_easy_init();
	json_t *j = NULL;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", srv_port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_USERPWD, USER ":" PASSWORD);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
	if (b.p)
		j = json_loads(b.p, 0, NULL);
	free(b.p);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return j;
}

json_t *walk(json_t *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *c = strtok_r(buf, "/", &save); c && j; c = strtok_r(NULL, "/", &save))
		j = json_object_get(j, c);
	return j;
}

json_t *state;

/* The server's applied tree at `path` (valid until the next call). */
json_t *applied(const char *path)
{
	json_decref(state);
	state = http("GET", "/test/state", NULL);
	ck_assert_ptr_nonnull(state);
	return walk(json_object_get(state, "applied"), path);
}

long applied_int(const char *path)
{
	json_t *v = applied(path);

	ck_assert_msg(json_is_integer(v), "applied %s is no integer", path);
	return (long)json_integer_value(v);
}

const char *applied_str(const char *path)
{
	json_t *v = applied(path);

	ck_assert_msg(json_is_string(v), "applied %s is no string", path);
	return json_string_value(v);
}

size_t n_revisions(void)
{
	applied("");
	return json_object_size(json_object_get(state, "revisions"));
}

/* No request of the plugin was refused (4xx) by the server. */
void assert_no_refusal(void)
{
	json_t *log = http("GET", "/test/log", NULL), *e;
	size_t i;

	ck_assert_ptr_nonnull(log);
	json_array_foreach(log, i, e) {
		long st = (long)json_integer_value(json_object_get(e, "status"));

		ck_assert_msg(st < 400, "the server refused %s %s: %ld",
			      json_string_value(json_object_get(e, "method")),
			      json_string_value(json_object_get(e, "path")), st);
	}
	json_decref(log);
}

void fail_next_apply(const char *mode)
{
	char body[64];

	snprintf(body, sizeof(body), "{\"mode\": \"%s\"}", mode);
	json_decref(http("POST", "/test/fail", body));
}

/* ---- fixture ------------------------------------------------------------------ */

int open_switch(const char *address, const char *cred, const char *options,
		       struct lp_switch **out)
{
	struct lp_endpoint ep = { "leaf1", address, cred, options, 3000 };

	return ops->open(&ep, NULL, out, err, sizeof(err));
}

void setup(void)
{
	char address[64];

	server_start();
	ck_assert_msg(plugin_load(NVUE_PLUGIN_DIR, "nvue", &plugin, err, sizeof(err)) == 0, "%s",
		      err);
	ops = plugin_ops(plugin);
	snprintf(address, sizeof(address), "http://127.0.0.1:%d", srv_port);
	ck_assert_msg(open_switch(address, USER ":" PASSWORD "\n", NULL, &sw) == 0, "open: %s", err);
}

void teardown(void)
{
	if (sw)
		ops->close(sw);
	sw = NULL;
	if (plugin)
		plugin_free(plugin);
	plugin = NULL;
	json_decref(state);
	state = NULL;
	server_kill();
}

/* ---- sinks ---------------------------------------------------------------- */

struct change changes[MAX_CHANGES];
size_t n_changes;

int change_sink(void *ctx, const struct lp_change *c)
{
	struct change *o;

	(void)ctx;
	ck_assert_uint_lt(n_changes, MAX_CHANGES);
	o = &changes[n_changes++];
	snprintf(o->key, sizeof(o->key), "%s", c->key);
	snprintf(o->field, sizeof(o->field), "%s", c->field);
	snprintf(o->before, sizeof(o->before), "%s", c->before);
	snprintf(o->after, sizeof(o->after), "%s", c->after);
	o->done = c->done;
	return 0;
}

const struct change *find_change(const char *key, const char *field)
{
	for (size_t i = 0; i < n_changes; i++)
		if (!strcmp(changes[i].key, key) && !strcmp(changes[i].field, field))
			return &changes[i];
	return NULL;
}

/* loom's default policy on this switch's ports. */
struct lp_qos want;

void default_want(void)
{
	struct lp_inventory inv;
	struct lp_port_sink ps = { NULL, fp_port_sink };
	struct qos_policy p;

	fp_n_ports = 0;
	ck_assert_msg(ops->inventory(sw, &inv, &ps, err, sizeof(err)) == 0, "%s", err);
	qos_policy_defaults(&p);
	ck_assert_int_eq(qos_policy_resolve(&p, fp_ports, fp_n_ports, &want), 0);
}

int apply(int dry_run)
{
	struct lp_change_sink cs = { NULL, change_sink };

	n_changes = 0;
	err[0] = '\0';
	return ops->qos_apply(sw, &want, dry_run, &cs, err, sizeof(err));
}

/* What qos_read gives back for the default policy's ports (asserting 0). */
void read_back(struct lp_qos *got)
{
	memset(got, 0, sizeof(*got));
	got->n_ports = want.n_ports;
	for (size_t i = 0; i < want.n_ports; i++)
		memcpy(got->ports[i].port, want.ports[i].port, LP_NAME_LEN);
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "qos_read: %s", err);
}

json_t *operational(const char *path)
{
	char url[256];

	json_decref(state);
	snprintf(url, sizeof(url), "/nvue_v1/%s", path);
	state = http("GET", url, NULL);
	ck_assert_msg(state != NULL, "GET %s: no JSON", url);
	return state;
}

void set_applied(const char *path, const char *value)
{
	char body[512];

	snprintf(body, sizeof(body), "{\"path\": \"%s\", \"value\": %s}", path, value);
	json_decref(http("POST", "/test/applied", body));
}

int have_python3(void)
{
	return system("python3 -c 'import http.server, json' >/dev/null 2>&1") == 0;
}
