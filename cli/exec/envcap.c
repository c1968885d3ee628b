/* SPDX-License-Identifier: Apache-2.0 */
#include "envcap.h"
#include "fabric.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "exec.h"

extern char **environ;

static const char *const prefixes[] = { "NCCL_", "RCCL_", "CUDA_", "HIP_", "HSA_", "ROCM_", "ROCBLAS_", "HIPBLASLT_",
					"GPU_", "AMD_", "HCC_", "AMDGPU_",
					"CUBLAS_", "CUBLASLT_", "PYTORCH_", "TORCH_", "TRITON_", "OMP_", "NVTE_", "MIOPEN_",
					"UCX_", "FI_", "NVSHMEM_", "OPENBLAS_", "OMPI_", "BENCH_", NULL };
/* matched case-insensitively anywhere in a name: over-redaction (CUDA_API_..., SSL_CERT_FILE) is the price of
 * catching NCCL_ApiKey, DB_PWD, X_AUTH and the like */
static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "PWD",
					    "AUTH", "COOKIE", "PRIVATE", "CERT", "SESSION", "API", "KEY", "CREDENTIAL",
					    "CRED", "SIGNATURE", "SALT", NULL };

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* name matches one of the comma-separated patterns of $var */
static int listed(const char *var, const char *name)
{
	const char *list = getenv(var);
	int hit = 0;

	while (list && *list && !hit) {
		size_t n = strcspn(list, ",");
		char *pat = xstrndup(list, n);

		hit = *pat && fnmatch(pat, name, 0) == 0;
		free(pat);
		list += n + (list[n] == ',');
	}
	return hit;
}

int envcap_is_secret(const char *name)
{
	if (listed("BENCH_ENV_REDACT", name))
		return 1;
	if (listed("BENCH_ENV_KEEP", name) || !strcmp(name, "PWD") || !strcmp(name, "OLDPWD"))
		return 0;
	for (size_t i = 0; secret_words[i]; i++)
		if (contains_ci(name, secret_words[i]))
			return 1;
	return 0;
}

int envcap_var_class(const char *name)
{
	int steer = 0;

	for (size_t i = 0; prefixes[i]; i++)
		steer |= !strncmp(name, prefixes[i], strlen(prefixes[i]));
	if (!steer)
		return 0;
	return envcap_is_secret(name) ? 2 : 1;
}

char *envcap_redact_url(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = v, *sep;

	while ((sep = strstr(p, "://"))) {
		const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#\"' \t\r\n,;<>()[]{}"), *at = NULL;

		for (const char *q = auth; q < end; q++)
			if (*q == '@')
				at = q;
		strbuf_add(&sb, p, (size_t)(auth - p));
		if (at && !(at - auth == 10 && !strncmp(auth, "<redacted>", 10)))
			strbuf_addstr(&sb, "<redacted>");
		else if (at)
			strbuf_add(&sb, auth, (size_t)(at - auth));
		p = at ? at : auth;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

/* the delimiters of a token holding credentials: where user:password@host starts and ends */
static int cred_delim(char c)
{
	return !c || isspace((unsigned char)c) || strchr("\"'`/=,;()[]{}<>|&", c);
}

/* a secret-looking key: a run of [A-Za-z0-9_.-] that envcap_is_secret() names */
static int secret_key(const char *k, size_t n)
{
	char *name;
	int s;

	if (!n || n > 128)
		return 0;
	name = xstrndup(k, n);
	s = envcap_is_secret(name);
	free(name);
	return s;
}

static int keych(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* an HTTP Authorization or Proxy-Authorization header name: its value is a scheme and credentials */
static int auth_key(const char *k, size_t n)
{
	return (n == 13 && !strncasecmp(k, "authorization", 13)) || (n == 19 && !strncasecmp(k, "proxy-authorization", 19));
}

/* the token shapes of common services, redacted wherever they stand: a prefix, then at least min characters of
 * [A-Za-z0-9_-] (AWS key ids: exactly 16 of [A-Z0-9]) */
static const struct token_shape {
	const char *prefix;
	size_t min;
} token_shapes[] = {
	{ "github_pat_", 20 }, { "ghp_", 20 }, { "gho_", 20 }, { "ghu_", 20 }, { "ghs_", 20 }, { "ghr_", 20 },
	{ "glpat-", 16 }, { "hf_", 20 }, { "xoxa-", 10 }, { "xoxb-", 10 }, { "xoxp-", 10 }, { "xoxr-", 10 },
	{ "xoxs-", 10 }, { "sk-", 20 }, { "npm_", 30 }, { "pypi-", 30 }, { "AKIA", 16 }, { "ASIA", 16 },
	{ "AIza", 30 },	    /* Google API key */
	{ "ya29.", 20 },    /* Google OAuth access token */
	{ "sk_live_", 16 }, { "rk_live_", 16 }, { "sk_test_", 16 }, { "rk_test_", 16 }, /* Stripe */
	{ "dop_v1_", 32 },  { "doo_v1_", 32 },	{ "dor_v1_", 32 },  /* DigitalOcean */
	{ "glsa_", 20 },    { "glc_", 20 },	/* Grafana */
	{ "SG.", 16 },	    /* SendGrid: SG.<id>.<secret> (the dot-separated rest is taken by token_at) */
	{ NULL, 0 }
};

static int tokch(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* the length of a known token shape that starts at p (p at a word start), else 0 */
static size_t token_at(const char *p)
{
	for (size_t i = 0; token_shapes[i].prefix; i++) {
		size_t pl = strlen(token_shapes[i].prefix), n = 0;

		if (strncmp(p, token_shapes[i].prefix, pl))
			continue;
		if (!strcmp(token_shapes[i].prefix, "AKIA") || !strcmp(token_shapes[i].prefix, "ASIA")) {
			/* AKIA/ASIA + 16 upper-case letters or digits, then not one more */
			while (n < 16 && (isupper((unsigned char)p[pl + n]) || isdigit((unsigned char)p[pl + n])))
				n++;
			if (n == 16 && !tokch(p[pl + n]))
				return pl + n;
			continue;
		}
		while (tokch(p[pl + n]))
			n++;
		if (!strcmp(token_shapes[i].prefix, "SG.")) { /* SG.<id>.<secret>: both parts */
			size_t m = 0;

			if (n < token_shapes[i].min || p[pl + n] != '.')
				continue;
			while (tokch(p[pl + n + 1 + m]))
				m++;
			if (m < 16)
				continue;
			return pl + n + 1 + m;
		}
		if (n >= token_shapes[i].min)
			return pl + n;
	}
	return 0;
}

static int b64urlch(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* a JSON Web Token at p: eyJ<header>.eyJ<payload>.<signature>, each base64url; its length, else 0 */
static size_t jwt_at(const char *p)
{
	size_t n = 0;

	for (int part = 0; part < 2; part++) {
		if (strncmp(p + n, "eyJ", 3))
			return 0;
		for (n += 3; b64urlch(p[n]); n++)
			;
		if (p[n] != '.')
			return 0;
		n++;
	}
	while (b64urlch(p[n]))
		n++;
	return n;
}

/* the value of a base64 digit, -1 for another character */
static int b64val(char c)
{
	const char *d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *f;

	return c && (f = strchr(d, c)) ? (int)(f - d) : -1;
}

/* the length of the base64 word at q when it decodes to a credential, user:password (printable ASCII without
 * spaces, a ':' inside), else 0; at least min characters with its padding */
static size_t b64_cred_len(const char *q, size_t min)
{
	size_t n = 0, pad = 0, out = 0;
	unsigned acc = 0;
	int bits = 0, colon = 0, ok = 1;

	for (; b64val(q[n]) >= 0; n++) {
		acc = acc << 6 | (unsigned)b64val(q[n]);
		if ((bits += 6) >= 8) {
			unsigned c = (acc >> (bits -= 8)) & 0xff;

			ok &= c > 0x20 && c < 0x7f;
			colon |= c == ':' && out > 0;
			out++;
		}
	}
	while (q[n + pad] == '=' && pad < 2)
		pad++;
	if (n + pad < min || (n + pad) % 4 || !ok || !colon || tokch(q[n + pad]) || q[n + pad] == '.')
		return 0;
	{ /* the last decoded character is not the ':' (a user with no password is no credential) */
		unsigned last = (acc >> bits) & 0xff;

		if (last == ':')
			return 0;
	}
	return n + pad;
}

/* "Basic <base64 of user:password>" anywhere (an HTTP Basic credential out of its header): the length up to the
 * end of the base64 word, else 0 */
static size_t basic_at(const char *p)
{
	const char *q = p + 6;
	size_t n;

	if (strncmp(p, "Basic ", 6))
		return 0;
	while (*q == ' ')
		q++;
	return (n = b64_cred_len(q, 4)) ? (size_t)(q - p) + n : 0;
}

/* "-u user:pw" / "--user user:pw" (curl, wget), "-pPW" of mysql, "--password PW" / "--token PW" (a secret-named
 * option and its value as the next word): the secret part goes */
static size_t option_secret(struct strbuf *sb, const char *line, const char *p)
{
	const char *q, *e;
	size_t n = 0;

	if (p[0] != '-' || (p > line && !isspace((unsigned char)p[-1])))
		return 0;
	if ((!strncmp(p, "-u ", 3) || !strncmp(p, "--user ", 7))) {
		q = p + (p[1] == 'u' ? 3 : 7);
		while (*q == ' ')
			q++;
		for (e = q; *e && !isspace((unsigned char)*e) && *e != ':'; e++)
			;
		if (*e != ':' || !e[1] || isspace((unsigned char)e[1]) || !strncmp(e + 1, "<redacted>", 10))
			return 0;
		strbuf_add(sb, p, (size_t)(e + 1 - p));
		strbuf_addstr(sb, "<redacted>");
		for (e++; *e && !isspace((unsigned char)*e); e++)
			;
		return (size_t)(e - p);
	}
	if (p[1] == 'p' && (p[2] == ' ' || p[2] == '\t') && strstr(line, "sshpass")) { /* sshpass -p PW */
		for (q = p + 2; *q == ' ' || *q == '\t'; q++)
			;
		if (!*q || !strncmp(q, "<redacted>", 10))
			return 0;
		for (e = q; *e && !isspace((unsigned char)*e); e++)
			;
		strbuf_add(sb, p, (size_t)(q - p));
		strbuf_addstr(sb, "<redacted>");
		return (size_t)(e - p);
	}
	if (p[1] == 'p' && p[2] && !isspace((unsigned char)p[2]) && strncmp(p + 2, "<redacted>", 10) &&
	    (strstr(line, "mysql") || strstr(line, "mariadb") || strstr(line, "sshpass"))) {
		for (e = p + 2; *e && !isspace((unsigned char)*e); e++)
			;
		strbuf_addstr(sb, "-p<redacted>");
		return (size_t)(e - p);
	}
	q = p + 1 + (p[1] == '-');
	while (keych(q[n]))
		n++;
	if (n && (q[n] == ' ' || q[n] == '\t') && secret_key(q, n)) {
		const char *v = q + n;

		while (*v == ' ' || *v == '\t')
			v++;
		if (!*v || *v == '-' || !strncmp(v, "<redacted>", 10))
			return 0;
		for (e = v; *e && !isspace((unsigned char)*e); e++)
			;
		strbuf_add(sb, p, (size_t)(v - p));
		strbuf_addstr(sb, "<redacted>");
		return (size_t)(e - p);
	}
	return 0;
}

/* a .netrc "password PW" (or "passwd PW") token pair at p, on a line that reads like one (it starts with the
 * token or holds "machine", "login" or "default" before it): the length up to the value, else 0 */
static size_t netrc_password_at(const char *line, const char *p)
{
	const char *l = line, *q;
	size_t kn;

	if (!strncmp(p, "password", 8))
		kn = 8;
	else if (!strncmp(p, "passwd", 6))
		kn = 6;
	else
		return 0;
	if (p[kn] != ' ' && p[kn] != '\t')
		return 0;
	for (q = p + kn; *q == ' ' || *q == '\t'; q++)
		;
	if (!*q || isspace((unsigned char)*q) || !strncmp(q, "<redacted>", 10))
		return 0;
	while (*l == ' ' || *l == '\t')
		l++;
	if (l == p)
		return (size_t)(q - p);
	for (const char *w = line; w < p; w++)
		if ((w == line || isspace((unsigned char)w[-1])) &&
		    (((!strncmp(w, "machine", 7) || !strncmp(w, "default", 7)) && isspace((unsigned char)w[7])) ||
		     (!strncmp(w, "login", 5) && isspace((unsigned char)w[5]))))
			return (size_t)(q - p);
	return 0;
}

/* "sig=" in a URL's query (an Azure shared access signature: the signature is the credential) */
static int sas_sig(const char *u, const char *p, size_t kn, const char *q)
{
	return kn == 3 && !strncasecmp(p, "sig", 3) && p > u && (p[-1] == '?' || p[-1] == '&') && *q == '=';
}

/* a Slack incoming webhook URL's path (its secret) at p: the length of "hooks.slack.com/services/" when a path
 * of at least 10 characters follows, else 0 */
static size_t slack_hook_at(const char *p)
{
	static const char host[] = "hooks.slack.com/services/";
	size_t n = 0;

	if (strncmp(p, host, sizeof(host) - 1))
		return 0;
	while (tokch(p[sizeof(host) - 1 + n]) || p[sizeof(host) - 1 + n] == '/')
		n++;
	return n >= 10 ? sizeof(host) - 1 : 0;
}

char *envcap_redact_value(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	char *u = envcap_redact_url(v);
	const char *p = u;

	while (*p) {
		const char *q;

		/* KEY=VALUE, "KEY": "VALUE", KEY: VALUE, 'KEY': 'VALUE' with a secret-looking KEY: the value goes */
		if (keych(*p) && (p == u || !keych(p[-1]))) {
			size_t kn = 0;

			while (keych(p[kn]))
				kn++;
			q = p + kn;
			q += q[0] == '\\' && q[1] == '"' ? 2 : (*q == '"' || *q == '\''); /* "key", 'key', \"key\" (JSON in JSON) */
			while (*q == ' ' || *q == '\t')
				q++;
			if ((*q == '=' || *q == ':') && (secret_key(p, kn) || sas_sig(u, p, kn, q)) && q[1] != '/') {
				size_t ql;
				const char *e;

				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				ql = q[0] == '\\' && q[1] == '"' ? 2 : (*q == '"' || *q == '\'');
				e = q + ql;
				if (ql == 2) { /* up to the next \" */
					while (*e && !(e[0] == '\\' && e[1] == '"'))
						e += e[0] == '\\' && e[1] == '\\' && e[2] ? 2 : 1;
				} else if (ql == 1) {
					while (*e && *e != *q)
						e += e[0] == '\\' && e[1] ? 2 : 1;
				} else if (auth_key(p, kn)) { /* Authorization: SCHEME CREDENTIALS: all of it */
					while (*e && *e != '\n' && !strchr("\"'\\", *e))
						e++;
					while (e > q && isspace((unsigned char)e[-1]))
						e--;
				} else {
					while (*e && !isspace((unsigned char)*e) && !strchr(",;&}]\"'\\", *e))
						e++;
				}
				if (e > q + ql && strncmp(q + ql, "<redacted>", 10)) {
					strbuf_add(&sb, p, (size_t)(q - p) + ql);
					strbuf_addstr(&sb, "<redacted>");
					p = e;
					continue;
				}
			}
		}
		/* a known token shape at a word start; an AWS key id's secret key after it (40 base64 characters) */
		if (p == u || !tokch(p[-1])) {
			size_t tn = token_at(p), sn, wn;

			if (!tn)
				tn = jwt_at(p);
			if (!tn && (wn = slack_hook_at(p))) { /* the host kept, the path goes */
				strbuf_add(&sb, p, wn);
				strbuf_addstr(&sb, "<redacted>");
				for (p += wn; tokch(*p) || *p == '/'; p++)
					;
				continue;
			}
			if (!tn && (wn = basic_at(p))) { /* Basic user:password in base64: the scheme kept */
				strbuf_addstr(&sb, "Basic <redacted>");
				p += wn;
				continue;
			}
			if (!tn && (p == u || (p[-1] != '/' && p[-1] != '+')) && (wn = b64_cred_len(p, 16))) {
				strbuf_addstr(&sb, "<redacted>"); /* the same credential alone: base64 of user:password */
				p += wn;
				continue;
			}
			if ((wn = netrc_password_at(u, p))) {
				strbuf_add(&sb, p, wn);
				strbuf_addstr(&sb, "<redacted>");
				for (p += wn; *p && !isspace((unsigned char)*p); p++)
					;
				continue;
			}

			if (tn) {
				strbuf_addstr(&sb, "<redacted>");
				p += tn;
				if ((!strncmp(p - 20, "AKIA", 4) || !strncmp(p - 20, "ASIA", 4)) && tn == 20) {
					for (q = p; *q == ' ' || *q == '\t' || *q == ':' || *q == ',' || *q == '='; q++)
						;
					for (sn = 0; isalnum((unsigned char)q[sn]) || q[sn] == '/' || q[sn] == '+'; sn++)
						;
					if (sn == 40) {
						strbuf_add(&sb, p, (size_t)(q - p));
						strbuf_addstr(&sb, "<redacted>");
						p = q + 40;
					}
				}
				continue;
			}
		}
		if (*p == '-') {
			size_t on = option_secret(&sb, u, p);

			if (on) {
				p += on;
				continue;
			}
		}
		/* user:password@host (a credential without a scheme): the userinfo goes */
		if (*p == '@' && p > u && (isalnum((unsigned char)p[1]) || p[1] == '[')) {
			size_t start = sb.len;
			const char *colon = NULL;

			while (start > 0 && !cred_delim(sb.buf[start - 1]))
				start--;
			for (size_t k = start; k < sb.len; k++)
				if (sb.buf[k] == ':')
					colon = sb.buf + k;
			if (colon && colon > sb.buf + start && colon + 1 < sb.buf + sb.len &&
			    strncmp(sb.buf + start, "<redacted>", 10)) {
				sb.len = start;
				sb.buf[sb.len] = 0;
				strbuf_addstr(&sb, "<redacted>");
			}
		}
		strbuf_addch(&sb, *p++);
	}
	free(u);
	return strbuf_detach(&sb);
}

/* 1 when the n bytes at v could be a credential, so that every copy of them is worth removing wherever it
 * stands: not a number (digits with . - + e), not a boolean word, not an absolute path (it names where a secret
 * is, not the secret). A secret-named variable may hold a setting (TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT=10000,
 * XDG_SESSION_CLASS=user): removing every "10000" from a run's records would rewrite its results. */
static int credential_like(const char *v, size_t n)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "none", "null", "enabled",
					     "disabled", NULL };
	size_t k;

	if (n < ENVCAP_SCRUB_MIN)
		return 0;
	for (k = 0; k < n && (isdigit((unsigned char)v[k]) || strchr(".-+eE_x", v[k])); k++)
		;
	if (k == n)
		return 0;
	for (k = 0; words[k]; k++)
		if (strlen(words[k]) == n && !strncasecmp(v, words[k], n))
			return 0;
	if (v[0] == '/' && !memchr(v, '@', n) && !memchr(v, ':', n))
		return 0;
	return 1;
}

/* the n bytes at v as a JSON string spells them with every character past ASCII as \uXXXX (a surrogate pair past
 * U+FFFF), hex in lower (Python's json.dumps) or upper case; NULL when there is none past ASCII or v is not UTF-8 */
static char *json_ascii_form(const char *v, size_t n, int upper)
{
	struct strbuf sb = STRBUF_INIT;
	int any = 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)v[i];
		unsigned cp, need;

		if (c < 0x80) {
			if (c == '"' || c == '\\')
				strbuf_addf(&sb, "\\%c", c);
			else if (c < 0x20)
				strbuf_addf(&sb, upper ? "\\u%04X" : "\\u%04x", c);
			else
				strbuf_addch(&sb, (char)c);
			i++;
			continue;
		}
		need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		if (!need || c > 0xf4) {
			strbuf_release(&sb);
			return NULL;
		}
		cp = c & (0x3f >> need);
		for (unsigned k = 1; k <= need; k++) {
			if (i + k >= n || ((unsigned char)v[i + k] & 0xc0) != 0x80) {
				strbuf_release(&sb);
				return NULL;
			}
			cp = cp << 6 | ((unsigned char)v[i + k] & 0x3f);
		}
		if (cp >= 0x10000)
			strbuf_addf(&sb, upper ? "\\u%04X\\u%04X" : "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				    0xdc00 + ((cp - 0x10000) & 0x3ff));
		else
			strbuf_addf(&sb, upper ? "\\u%04X" : "\\u%04x", cp);
		any = 1;
		i += need + 1;
	}
	if (!any) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

void envcap_secret_values(struct strvec *out, char *const *env)
{
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (envcap_is_secret(name)) {
			const char *v = eq + 1;

			while (*v) { /* each line of a multi-line value (a PEM key) on its own */
				size_t n = strcspn(v, "\r\n");
				int seen = 0;

				for (size_t k = 0; k < out->n && !seen; k++)
					seen = strlen(out->v[k]) == n && !strncmp(out->v[k], v, n);
				if (n >= ENVCAP_SCRUB_MIN && !seen && credential_like(v, n)) {
					char *s = xstrndup(v, n);
					json_t *js = json_string(s);
					char *esc = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;

					strvec_push(out, s);
					/* as a JSON string spells it (quotes, backslashes escaped): records are JSON */
					if (esc && strlen(esc) >= 2 && (strlen(esc) - 2 != n || strncmp(esc + 1, s, n))) {
						esc[strlen(esc) - 1] = 0;
						strvec_push(out, esc + 1);
					}
					/* as json.dumps() spells it by default: \u00f8 for every character past ASCII */
					for (int up = 0; up < 2; up++) {
						char *a = json_ascii_form(s, n, up);

						if (a)
							strvec_push(out, a);
						free(a);
					}
					free(esc);
					json_decref(js);
					free(s);
				}
				v += n;
				v += strspn(v, "\r\n");
			}
		}
		free(name);
	}
}

/* the offset of needle within the len bytes at s from from, or len */
static size_t span_find(const char *s, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = from; i + n <= len; i++)
		if (!memcmp(s + i, needle, n))
			return i;
	return len;
}

/* line with the bodies of PEM private key blocks replaced by <redacted>: between "-----BEGIN ... PRIVATE
 * KEY-----" and "-----END ", on one line (a JSON-escaped key) or over several (*pem: inside a block) */
static void pem_mask(struct strbuf *o, const char *line, size_t len, int *pem)
{
	size_t pos = 0;

	while (pos < len) {
		if (*pem) {
			size_t e = span_find(line, len, pos, "-----END ");

			if (e > pos)
				strbuf_addstr(o, "<redacted>");
			if (e == len)
				return;
			*pem = 0;
			strbuf_add(o, line + e, 9);
			pos = e + 9;
		} else {
			size_t b = span_find(line, len, pos, "-----BEGIN "), k;

			k = b < len ? span_find(line, len, b, "PRIVATE KEY-----") : len;
			if (k == len) {
				strbuf_add(o, line + pos, len - pos);
				return;
			}
			strbuf_add(o, line + pos, k + 16 - pos);
			pos = k + 16;
			*pem = 1;
		}
	}
}

/* the len bytes at s through envcap_redact_value(), each run between NUL bytes on its own: a NUL is kept where
 * it stands, never the end of what is written (a log line may hold one) */
static void redact_segments(struct strbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	for (;;) {
		const char *z = memchr(s + i, 0, len - i);
		size_t n = z ? (size_t)(z - (s + i)) : len - i;
		char *seg = xstrndup(s + i, n), *r = envcap_redact_value(seg);

		strbuf_addstr(out, r);
		free(r);
		free(seg);
		if (!z)
			break;
		strbuf_addch(out, 0);
		i += n + 1;
	}
}

/* one line (without its newline) of a log or an env dump; *pem: inside a PEM private key block (its body
 * replaced) */
static void scrub_line(struct strbuf *out, const char *raw, size_t rawlen, const struct strvec *values, int *pem)
{
	struct strbuf sb = STRBUF_INIT, m = STRBUF_INIT;
	const char *line;
	size_t nlen = 0, len;

	pem_mask(&m, raw, rawlen, pem);
	line = m.buf ? m.buf : "";
	len = m.len;
	/* NAME=VALUE (an env dump): a secret name's value goes whatever it is */
	while (nlen < len && (isalnum((unsigned char)line[nlen]) || line[nlen] == '_'))
		nlen++;
	if (nlen && nlen < len && line[nlen] == '=' && !isdigit((unsigned char)line[0])) {
		char *name = xstrndup(line, nlen);
		int secret = envcap_is_secret(name);

		free(name);
		if (secret) {
			strbuf_add(out, line, nlen + 1);
			strbuf_addstr(out, "<redacted>");
			strbuf_release(&m);
			return;
		}
	}
	for (size_t i = 0; i < len;) {
		size_t best = 0;

		for (size_t k = 0; k < values->n; k++) { /* the longest value that starts here */
			size_t vl = strlen(values->v[k]);

			if (vl > best && vl <= len - i && !memcmp(line + i, values->v[k], vl))
				best = vl;
		}
		if (best) {
			strbuf_addstr(&sb, "<redacted>");
			i += best;
		} else {
			strbuf_addch(&sb, line[i++]);
		}
	}
	redact_segments(out, sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	strbuf_release(&m);
}

static void scrub_one(struct strbuf *sb, const char *path, const char *line, size_t len, const struct strvec *values,
		      int by_key, int *pem);

/* the length of the logical line at text[0..len): up to a newline that is not escaped by a backslash (a line
 * continued with '\\' is one line: a secret split over it is one value) */
static size_t logical_len(const char *text, size_t len)
{
	size_t i = 0;

	for (;;) {
		const char *nl = memchr(text + i, '\n', len - i);

		if (!nl)
			return len;
		i = (size_t)(nl - text);
		if (i == 0 || text[i - 1] != '\\' || i + 1 >= len)
			return i;
		i++;
	}
}

/* a logical line through scrub_one, scrubbed as one line with its continuations removed: a backslash before a
 * newline ("\\" "\n", joined by logical_len) and the same written JSON-escaped on one line (the four characters
 * \ \ \ n); written back as it was when nothing in it is a secret */
static void scrub_logical(struct strbuf *out, const char *path, const char *raw, size_t len, const struct strvec *values,
			  int by_key, int *pem)
{
	struct strbuf j = STRBUF_INIT, o = STRBUF_INIT;
	int joined = 0;

	for (size_t i = 0; i < len; i++) {
		if (raw[i] == '\\' && i + 1 < len && raw[i + 1] == '\n') {
			i++;
			joined = 1;
			continue;
		}
		if (i + 3 < len && !memcmp(raw + i, "\\\\\\n", 4)) {
			i += 3;
			joined = 1;
			continue;
		}
		strbuf_addch(&j, raw[i]);
	}
	if (!joined) {
		strbuf_release(&j);
		scrub_one(out, path, raw, len, values, by_key, pem);
		return;
	}
	scrub_one(&o, path, j.buf ? j.buf : "", j.len, values, by_key, pem);
	if (o.len == j.len && !memcmp(o.buf, j.buf, j.len))
		scrub_one(out, path, raw, len, values, by_key, pem);
	else
		strbuf_add(out, o.buf, o.len);
	strbuf_release(&j);
	strbuf_release(&o);
}

void envcap_scrub_text(struct strbuf *out, const char *text, size_t len, const struct strvec *values)
{
	size_t i = 0;
	int pem = 0;

	while (i < len) {
		size_t n = logical_len(text + i, len - i);

		scrub_logical(out, "", text + i, n, values, 0, &pem);
		if (i + n < len)
			strbuf_addch(out, '\n');
		i += n + (i + n < len);
	}
}

/* every string of j through the text scrubber, and every string under a secret-looking key redacted whole;
 * returns how many changed */
/* a key that names a secret whatever the document (case-insensitive, '-' read as '_'): its string value goes in
 * records too; "pass" (fwd, bwd) and "key" are data there and are not among them */
static int strict_secret_key(const char *k)
{
	static const char *const names[] = { "password", "passwd", "passphrase", "secret", "client_secret", "secret_key",
					     "secret_access_key", "aws_secret_access_key", "auth_token", "api_key",
					     "apikey", "api_token", "access_token", "refresh_token", "id_token",
					     "bearer_token", "private_key", "token", NULL };
	char buf[32];
	size_t n = strlen(k);

	if (n >= sizeof(buf))
		return 0;
	for (size_t i = 0; i <= n; i++)
		buf[i] = k[i] == '-' ? '_' : (char)tolower((unsigned char)k[i]);
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(buf, names[i]))
			return 1;
	return 0;
}

/* an HTTP header whose value is credentials (a header mapping as HTTP clients serialise it), any case, '_' or '-' */
static int header_auth_key(const char *k)
{
	static const char *const names[] = { "authorization", "proxy-authorization", "x-api-key", "x-auth-token",
					     "cookie", "set-cookie", NULL };

	for (size_t i = 0; names[i]; i++) {
		size_t n = strlen(names[i]), m = 0;

		while (m < n && k[m] && (tolower((unsigned char)k[m]) == names[i][m] || (k[m] == '_' && names[i][m] == '-')))
			m++;
		if (m == n && !k[m])
			return 1;
	}
	return 0;
}

/* by_key: also a string under a secret-looking key (environment captures only: a record's "pass" or "key" is a
 * parameter, and the secrets a runner could echo are known by value); elsewhere only under a key that
 * strict_secret_key() names */
static size_t scrub_json(json_t *j, const struct strvec *values, int by_key)
{
	size_t changed = 0, i;
	const char *k;
	json_t *v;
	void *tmp;

	if (json_is_string(j)) {
		struct strbuf sb = STRBUF_INIT;
		const char *s = json_string_value(j);

		envcap_scrub_text(&sb, s, json_string_length(j), values);
		if (sb.len != json_string_length(j) || memcmp(sb.buf, s, sb.len)) {
			if (json_string_setn(j, sb.buf, sb.len) < 0)
				json_string_set(j, "<redacted>");
			changed++;
		}
		strbuf_release(&sb);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			changed += scrub_json(v, values, by_key);
	} else if (json_is_object(j)) {
		json_object_foreach_safe(j, tmp, k, v) {
			if (!strcmp(k, "case") && json_is_string(v))
				continue; /* a case key: made by bench from the manifest, never a secret; the results' key */
			if (json_is_string(v) && header_auth_key(k)) {
				const char *a = json_string_value(v), *sp = strchr(a, ' ');
				char *r;

				/* "Authorization": "Bearer TOKEN": the scheme kept, the credentials go */
				if (sp && sp > a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") == (size_t)(sp - a))
					r = xstrfmt("%.*s <redacted>", (int)(sp - a), a);
				else
					r = xstrdup("<redacted>");
				if (strcmp(r, a)) {
					json_string_set(v, r);
					changed++;
				}
				free(r);
				continue;
			}
			if (json_is_string(v) && strcmp(json_string_value(v), "<redacted>") &&
			    (by_key ? secret_key(k, strlen(k)) : strict_secret_key(k))) {
				json_string_set(v, "<redacted>");
				changed++;
			} else {
				changed += scrub_json(v, values, by_key);
			}
		}
	}
	return changed;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* a whole JSON document: rewritten (bench's JSON style) only when a string in it changed; 1 when it is not
 * JSON (scrubbed as text then), 0 or a negative code */
static int scrub_json_doc(const char *path, const struct strvec *values, int by_key)
{
	int fd = fs_open_regular(path, O_NOFOLLOW), err = 0;
	json_t *j = fd >= 0 ? json_loadfd(fd, JSON_DECODE_ANY, NULL) : NULL;
	char *s = NULL;

	if (fd >= 0)
		close(fd);
	if (!j)
		return 1;
	if (scrub_json(j, values, by_key)) {
		s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
		if (!s) {
			err = bench_error_set(BENCH_E_IO, "cannot scrub '%s'", path);
		} else { /* bench's JSON files end with a newline */
			char *nl = xstrfmt("%s\n", s);

			err = fs_write_file(path, nl, strlen(nl), 0644);
			free(nl);
		}
	}
	free(s);
	json_decref(j);
	return err;
}

/* one line (without its newline) of path into sb: a record of a .jsonl file by its strings, else as text */
static void scrub_one(struct strbuf *sb, const char *path, const char *line, size_t len, const struct strvec *values,
		      int by_key, int *pem)
{
	if (ends_with(path, ".jsonl") && line[0] == '{') { /* a record: its strings scrubbed, its form kept */
		json_t *rec = json_loadb(line, len, 0, NULL);

		if (rec && scrub_json(rec, values, by_key)) {
			char *d = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));

			strbuf_addstr(sb, d ? d : "{}");
			free(d);
		} else if (rec) {
			strbuf_add(sb, line, len);
		} else {
			scrub_line(sb, line, len, values, pem);
		}
		json_decref(rec);
	} else {
		scrub_line(sb, line, len, values, pem);
	}
}

/* one logical line of in into lg (its newline included; lines continued with '\\' joined as they are): its
 * length, or -1 at the end */
static ssize_t getline_logical(struct strbuf *lg, char **line, size_t *cap, FILE *in)
{
	ssize_t n;

	strbuf_reset(lg);
	while ((n = getline(line, cap, in)) > 0) {
		strbuf_add(lg, *line, (size_t)n);
		if (n < 2 || (*line)[n - 1] != '\n' || (*line)[n - 2] != '\\')
			break;
	}
	return lg->len ? (ssize_t)lg->len : -1;
}

/* A binary file (a NUL byte among its first 8000, as git decides; not a log, not JSON): scrubbed byte-exactly,
 * for its length and offsets are its format. Each secret value (envcap_secret_values()) and each known token
 * shape or JSON Web Token at a word start is overwritten by as many '*' bytes; nothing else changes. Larger than
 * ENVCAP_SCRUB_BINARY_MAX: left as it is (larger than every bundle member's limit, so pack refuses it by name).
 * 1 when path is not binary (scrub it as text), else 0 or a negative code. */
static int scrub_binary(const char *path, const struct strvec *values)
{
	char head[8000], *buf = NULL;
	int fd = fs_open_regular(path, O_NOFOLLOW), err = 0, changed = 0;
	ssize_t got;
	size_t len;
	struct stat st;

	if (fd < 0)
		return 1;
	got = read(fd, head, sizeof(head));
	if (got <= 0 || !memchr(head, 0, (size_t)got) || fstat(fd, &st) < 0) {
		close(fd);
		return 1;
	}
	close(fd);
	if ((size_t)st.st_size > ENVCAP_SCRUB_BINARY_MAX)
		return 0;
	if ((err = fs_read_file(&buf, &len, path, ENVCAP_SCRUB_BINARY_MAX)) < 0)
		return err;
	for (size_t i = 0; i < len;) {
		size_t best = 0;

		for (size_t k = 0; k < values->n; k++) {
			size_t vl = strlen(values->v[k]);

			if (vl > best && vl <= len - i && buf[i] == values->v[k][0] && !memcmp(buf + i, values->v[k], vl))
				best = vl;
		}
		if (!best && (i == 0 || !tokch(buf[i - 1])) && !(best = token_at(buf + i)))
			best = jwt_at(buf + i);
		if (best > len - i)
			best = len - i;
		if (best) {
			memset(buf + i, '*', best);
			changed = 1;
			i += best;
		} else {
			i++;
		}
	}
	if (changed)
		err = fs_write_file(path, buf, len, 0644);
	free(buf);
	return err;
}

int envcap_scrub_file(const char *path, const struct strvec *values)
{
	char *tmp = xstrfmt("%s.tmp", path), *line = NULL;
	FILE *in = NULL, *out = NULL;
	struct strbuf sb = STRBUF_INIT, lg = STRBUF_INIT;
	size_t cap = 0;
	ssize_t n;
	int err = 0, changed = 0, pem = 0;

	/* secret-looking keys are looked at in the environment captures (env/), not in records, plans or a runner's
	 * own files, where a key such as "pass" (fwd, bwd) or "key" is data */
	int by_key = strstr(path, "/env/") != NULL || !strncmp(path, "env/", 4);

	if (ends_with(path, ".json") && (err = scrub_json_doc(path, values, by_key)) <= 0)
		goto cleanup; /* a JSON document, scrubbed as one (or an error) */
	if (!ends_with(path, ".json") && !ends_with(path, ".jsonl") && !strstr(path, "/logs/") &&
	    strncmp(path, "logs/", 5) && (err = scrub_binary(path, values)) <= 0)
		goto cleanup; /* a binary file, scrubbed byte-exactly (or an error) */
	err = 0;
	{
		int fd = fs_open_regular(path, O_NOFOLLOW); /* a FIFO or a link in the run directory is not followed */

		if (fd >= 0 && !(in = fdopen(fd, "rb")))
			close(fd);
	}
	if (!in)
		goto cleanup; /* nothing to scrub */
	/* a first pass finds whether anything changes: a file with nothing to scrub is left as it is (its bytes and
	 * its time), and a full disk never costs a clean file */
	while (!changed && (n = getline_logical(&lg, &line, &cap, in)) > 0) {
		size_t len = (size_t)n - (lg.buf[n - 1] == '\n');

		strbuf_reset(&sb);
		scrub_logical(&sb, path, lg.buf, len, values, by_key, &pem);
		changed = sb.len != len || memcmp(sb.buf, lg.buf, len);
	}
	if (!changed) {
		if (ferror(in))
			err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	rewind(in);
	pem = 0;
	if (!(out = fopen(tmp, "wb"))) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	while ((n = getline_logical(&lg, &line, &cap, in)) > 0) {
		size_t len = (size_t)n;
		int nl = lg.buf[len - 1] == '\n';

		strbuf_reset(&sb);
		scrub_logical(&sb, path, lg.buf, len - (size_t)nl, values, by_key, &pem);
		if (nl)
			strbuf_addch(&sb, '\n');
		if (fwrite(sb.buf, 1, sb.len, out) != sb.len) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
			goto cleanup;
		}
	}
	if (ferror(in) || fflush(out) != 0 || fsync(fileno(out)) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot scrub '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		out = NULL;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	out = NULL;
cleanup:
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	if (err)
		unlink(tmp);
	free(line);
	free(tmp);
	strbuf_release(&sb);
	strbuf_release(&lg);
	return err;
}

static void write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xstrfmt("%s/env/raw/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	free(path);
}

/* Runs a tool, keeps its output in env/raw/<raw_name>; returns the output (caller frees) or NULL. */
static char *tool(const char *dir, const char *raw_name, char *const *argv)
{
	char *path = spawn_which(argv[0]), *out = NULL;
	size_t len = 0;
	struct strvec av = STRVEC_INIT;

	if (!path)
		return NULL;
	strvec_push(&av, path);
	for (size_t i = 1; argv[i]; i++)
		strvec_push(&av, argv[i]);
	if (spawn_capture(&out, &len, strvec_argv(&av), 4u << 20, 60) < 0) {
		free(out);
		out = NULL;
	} else if (raw_name) {
		write_file(dir, raw_name, out, len);
	}
	free(path);
	strvec_release(&av);
	return out;
}

static char *read_small(const char *path)
{
	char *buf = NULL;
	size_t len;

	if (fs_read_file(&buf, &len, path, 1u << 20) < 0)
		return NULL;
	return buf;
}

static char *field(const char *text, const char *key, char sep)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl)) {
			const char *v = strchr(p, sep), *e;

			if (v) {
				v++;
				while (*v == ' ' || *v == '\t' || *v == '"')
					v++;
				e = v + strcspn(v, "\n");
				while (e > v && (e[-1] == '"' || isspace((unsigned char)e[-1])))
					e--;
				return xstrndup(v, (size_t)(e - v));
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static json_t *str_or_null(char *s)
{
	json_t *j = s ? json_string(s) : json_null();

	free(s);
	return j ? j : json_null();
}

static json_t *nvidia_gpus(const char *dir)
{
	char *const q[] = { "nvidia-smi", "--query-gpu=index,name,uuid,driver_version,vbios_version,memory.total,"
			    "clocks.max.sm,clocks.max.mem,power.limit,ecc.mode.current,pci.bus_id",
			    "--format=csv,noheader,nounits", NULL };
	char *const full[] = { "nvidia-smi", "-q", NULL };
	char *const topo[] = { "nvidia-smi", "topo", "-m", NULL };
	char *out = tool(dir, "nvidia-smi-query.csv", q), *line, *save = NULL;
	json_t *arr;

	if (!out)
		return NULL;
	free(tool(dir, "nvidia-smi-q.txt", full));
	free(tool(dir, "nvidia-smi-topo.txt", topo));
	arr = json_array();
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char *const names[] = { "index", "name", "uuid", "driver", "vbios", "memory_mib", "max_sm_mhz",
						     "max_mem_mhz", "power_limit_w", "ecc", "pci_bus_id" };
		json_t *g = json_object();
		char *f, *s2 = NULL;
		size_t i = 0;

		for (f = strtok_r(line, ",", &s2); f && i < 11; f = strtok_r(NULL, ",", &s2), i++) {
			while (*f == ' ')
				f++;
			json_object_set_new(g, names[i], json_string(f));
		}
		json_array_append_new(arr, g);
	}
	free(out);
	return arr;
}

/* ---- ROCm: amd-smi (JSON), rocm-smi --json, rocminfo ------------------------------------------------------------ */

/* A string value of a tool's JSON, "N/A" and empty strings as absent. */
static const char *jstr(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && *s && strcmp(s, "N/A") ? s : NULL;
}

/* A quantity of amd-smi: {"value": 750, "unit": "W"}, a number, or a string "750 W" / "750.0"; the unit through
 * *unit (NULL when none). 0 and *out set, or -1 (absent, "N/A"). */
static int jquantity(const json_t *v, double *out, const char **unit)
{
	const char *s;
	char *end;

	*unit = NULL;
	if (json_is_object(v)) {
		*unit = json_string_value(json_object_get(v, "unit"));
		v = json_object_get(v, "value");
	}
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (!(s = jstr(v)))
		return -1;
	*out = strtod(s, &end);
	if (end == s)
		return -1;
	while (*end == ' ')
		end++;
	if (*end && !*unit)
		*unit = end;
	return 0;
}

/* A quantity as a JSON number scaled to MiB (memory) or as is; null when absent. */
static json_t *jnum(const json_t *v, int mib)
{
	const char *unit;
	double d;

	if (jquantity(v, &d, &unit) < 0)
		return json_null();
	if (mib && unit) {
		if (!strcasecmp(unit, "GB") || !strcasecmp(unit, "GiB"))
			d *= 1024;
		else if (!strcasecmp(unit, "KB") || !strcasecmp(unit, "KiB"))
			d /= 1024;
		else if (!strcasecmp(unit, "B"))
			d /= 1048576;
	}
	return d == (double)(long long)d ? json_integer((json_int_t)d) : json_real(d);
}

static json_t *jstr_or_null(const json_t *v)
{
	const char *s = jstr(v);

	return s ? json_string(s) : json_null();
}

/* amd-smi's --json lists GPUs as an array, or (newer releases) as {"gpu_data": [...]} */
static json_t *amdsmi_list(json_t *root)
{
	if (json_is_object(root) && json_is_array(json_object_get(root, "gpu_data")))
		return json_object_get(root, "gpu_data");
	return json_is_array(root) ? root : NULL;
}

static const json_t *amdsmi_find(const json_t *list, json_int_t gpu)
{
	size_t i;
	json_t *g;

	json_array_foreach(list, i, g)
		if (json_integer_value(json_object_get(g, "gpu")) == gpu)
			return g;
	return NULL;
}

json_t *envcap_parse_amdsmi(const char *static_json, const char *metric_json, const char *topology_json)
{
	json_t *st = static_json ? json_loads(static_json, 0, NULL) : NULL;
	json_t *me = metric_json ? json_loads(metric_json, 0, NULL) : NULL;
	json_t *to = topology_json ? json_loads(topology_json, 0, NULL) : NULL;
	json_t *list = amdsmi_list(st), *arr = NULL, *g;
	size_t i;

	if (!list || json_array_size(list) == 0)
		goto cleanup;
	arr = json_array();
	json_array_foreach(list, i, g) {
		json_int_t idx = json_is_integer(json_object_get(g, "gpu")) ? json_integer_value(json_object_get(g, "gpu")) :
										     (json_int_t)i;
		const json_t *asic = json_object_get(g, "asic"), *vb = json_object_get(g, "vbios"), *m, *t;
		const json_t *lim = json_object_get(g, "limit"), *name = json_object_get(asic, "market_name");
		json_t *o = json_object(), *links = json_array(), *l;
		size_t k;

		if (!vb)
			vb = json_object_get(g, "ifwi"); /* what later releases call the VBIOS */
		if (!jstr(name))
			name = json_object_get(json_object_get(g, "board"), "product_name");
		json_object_set_new(o, "index", json_integer(idx));
		json_object_set_new(o, "name", jstr_or_null(name));
		json_object_set_new(o, "gfx_target", jstr_or_null(json_object_get(asic, "target_graphics_version")));
		json_object_set_new(o, "compute_units", jnum(json_object_get(asic, "num_compute_units"), 0));
		json_object_set_new(o, "vbios", jstr_or_null(json_object_get(vb, "version")));
		json_object_set_new(o, "vbios_part", jstr_or_null(json_object_get(vb, "part_number")));
		json_object_set_new(o, "driver", jstr_or_null(json_object_get(json_object_get(g, "driver"), "version")));
		json_object_set_new(o, "memory_mib", jnum(json_object_get(json_object_get(g, "vram"), "size"), 1));
		json_object_set_new(o, "power_limit_w", jnum(json_object_get(lim, "max_power") ? json_object_get(lim, "max_power") :
							     json_object_get(lim, "socket_power"), 0));
		json_object_set_new(o, "pci_bus_id", jstr_or_null(json_object_get(json_object_get(g, "bus"), "bdf")));
		m = amdsmi_find(amdsmi_list(me), idx);
		json_object_set_new(o, "max_sm_mhz", jnum(json_object_get(json_object_get(json_object_get(m, "clock"), "gfx_0"),
									 "max_clk"), 0));
		json_object_set_new(o, "max_mem_mhz", jnum(json_object_get(json_object_get(json_object_get(m, "clock"), "mem_0"),
									  "max_clk"), 0));
		/* XGMI: each link to another GPU, its type and whether it is up */
		t = amdsmi_find(amdsmi_list(to), idx);
		json_array_foreach(json_object_get(t, "links"), k, l) {
			const char *type = jstr(json_object_get(l, "link_type"));

			if (type && !strcmp(type, "SELF"))
				continue;
			json_array_append_new(links, json_pack("{s:O, s:o, s:o, s:o, s:o}", "peer", json_object_get(l, "gpu"),
							       "type", jstr_or_null(json_object_get(l, "link_type")), "status",
							       jstr_or_null(json_object_get(l, "link_status")), "hops",
							       jnum(json_object_get(l, "num_hops"), 0), "weight",
							       jnum(json_object_get(l, "weight"), 0)));
		}
		json_object_set_new(o, "links", t ? links : (json_decref(links), json_null()));
		json_array_append_new(arr, o);
	}
cleanup:
	json_decref(st);
	json_decref(me);
	json_decref(to);
	return arr;
}

/* rocm-smi's keys changed case across releases ("Card series", "Card Series"): looked up case-insensitively */
static const json_t *iget(const json_t *obj, const char *key)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v)
		if (!strcasecmp(k, key))
			return v;
	return NULL;
}

/* "(2100Mhz)" -> 2100 */
static json_t *rocmsmi_mhz(const json_t *v)
{
	const char *s = jstr(v);

	while (s && *s && !isdigit((unsigned char)*s))
		s++;
	return s && *s ? json_integer(atoll(s)) : json_null();
}

static int card_cmp(const void *a, const void *b)
{
	return atoi(*(const char *const *)a + 4) - atoi(*(const char *const *)b + 4);
}

json_t *envcap_parse_rocmsmi(const char *text, const char *topo_text)
{
	json_t *root = text ? json_loads(text, 0, NULL) : NULL, *topo = topo_text ? json_loads(topo_text, 0, NULL) : NULL;
	json_t *arr = NULL, *v;
	const char *key, **cards = NULL;
	size_t n = 0;

	if (!json_is_object(root))
		goto cleanup;
	cards = xcalloc(json_object_size(root) + 1, sizeof(*cards));
	json_object_foreach(root, key, v)
		if (!strncmp(key, "card", 4) && isdigit((unsigned char)key[4]) && json_is_object(v))
			cards[n++] = key;
	if (!n)
		goto cleanup;
	qsort(cards, n, sizeof(*cards), card_cmp);
	arr = json_array();
	for (size_t i = 0; i < n; i++) {
		const json_t *c = json_object_get(root, cards[i]), *t = json_object_get(topo, cards[i]), *drv;
		json_t *o = json_object(), *links = json_array(), *tv;
		const char *tk;

		drv = iget(c, "Driver version") ? iget(c, "Driver version") : iget(json_object_get(root, "system"), "Driver version");
		json_object_set_new(o, "index", json_integer(atoi(cards[i] + 4)));
		json_object_set_new(o, "name", jstr_or_null(iget(c, "Card Series")));
		json_object_set_new(o, "gfx_target", jstr_or_null(iget(c, "GFX Version")));
		json_object_set_new(o, "vbios", jstr_or_null(iget(c, "VBIOS version")));
		json_object_set_new(o, "driver", jstr_or_null(drv));
		json_object_set_new(o, "memory_mib", jnum(iget(c, "VRAM Total Memory (B)"), 0));
		if (json_is_integer(json_object_get(o, "memory_mib")))
			json_object_set_new(o, "memory_mib", json_integer(json_integer_value(json_object_get(o, "memory_mib")) / 1048576));
		json_object_set_new(o, "power_limit_w", jnum(iget(c, "Max Graphics Package Power (W)"), 0));
		/* --showclocks reports the clocks of the moment, not the maxima */
		json_object_set_new(o, "sclk_mhz", rocmsmi_mhz(iget(c, "sclk clock speed:")));
		json_object_set_new(o, "mclk_mhz", rocmsmi_mhz(iget(c, "mclk clock speed:")));
		json_object_set_new(o, "pci_bus_id", jstr_or_null(iget(c, "PCI Bus")));
		json_object_foreach((json_t *)t, tk, tv) {
			static const char pre[] = "(Topology) Link type between DRM devices ";
			const char *w;
			int a, b;
			char *wk;

			if (strncasecmp(tk, pre, sizeof(pre) - 1) || sscanf(tk + sizeof(pre) - 1, "%d and %d", &a, &b) != 2)
				continue;
			wk = xstrfmt("(Topology) Weight between DRM devices %d and %d", a, b);
			w = jstr(iget(t, wk));
			free(wk);
			wk = xstrfmt("(Topology) Hops between DRM devices %d and %d", a, b);
			json_array_append_new(links, json_pack("{s:i, s:o, s:o, s:o, s:o}", "peer", b, "type", jstr_or_null(tv),
							       "status", json_null(), "hops", jnum(iget(t, wk), 0), "weight",
							       w ? json_integer(atoll(w)) : json_null()));
			free(wk);
		}
		json_object_set_new(o, "links", t ? links : (json_decref(links), json_null()));
		json_array_append_new(arr, o);
	}
cleanup:
	free(cards);
	json_decref(root);
	json_decref(topo);
	return arr;
}

/* The value of "  Key:   value" on line p (up to its end), trimmed; NULL when the line is another key's. */
static char *rocminfo_value(const char *p, const char *key)
{
	const char *e;

	while (*p == ' ')
		p++;
	if (strncmp(p, key, strlen(key)) || p[strlen(key)] != ':')
		return NULL;
	p += strlen(key) + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strcspn(p, "\n");
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(p, (size_t)(e - p));
}

static void rocminfo_keep(json_t *agents, json_t *cur)
{
	const char *t = json_string_value(json_object_get(cur, "type"));

	if (t && !strcmp(t, "GPU")) {
		json_object_del(cur, "type");
		json_array_append(agents, cur);
	}
}

json_t *envcap_parse_rocminfo(const char *text)
{
	static const char *const keys[] = { "Name", "Uuid", "Marketing Name", "Device Type", "Compute Unit",
					    "Max Clock Freq. (MHz)", "Node", NULL };
	static const char *const names[] = { "gfx_target", "uuid", "name", "type", "compute_units", "max_clock_mhz", "node" };
	json_t *root = json_object(), *agents = json_array(), *cur = NULL;
	const char *p = text;
	char *v;

	while (p && *p) {
		if (!strncmp(p, "Agent ", 6) || !strncmp(p, "*** Done", 8)) {
			if (cur)
				rocminfo_keep(agents, cur);
			json_decref(cur);
			cur = strncmp(p, "Agent ", 6) ? NULL : json_object();
		} else if ((v = rocminfo_value(p, "Runtime Version"))) {
			json_object_set_new(root, "runtime_version", json_string(v));
			free(v);
		} else if (cur && !strncmp(p, "  ", 2) && p[2] != ' ') { /* an agent's own keys, not its caches or ISAs */
			for (size_t k = 0; keys[k]; k++) {
				if (!json_object_get(cur, names[k]) && (v = rocminfo_value(p, keys[k]))) {
					if (!strcmp(names[k], "compute_units") || !strcmp(names[k], "max_clock_mhz") ||
					    !strcmp(names[k], "node"))
						json_object_set_new(cur, names[k], json_integer(atoll(v)));
					else
						json_object_set_new(cur, names[k], json_string(v));
					free(v);
					break;
				}
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (cur)
		rocminfo_keep(agents, cur);
	json_decref(cur);
	json_object_set_new(root, "agents", agents);
	return root;
}

/* GPUs from amd-smi, else rocm-smi; rocminfo's agents beside them (and their gfx target where the SMI gave none).
 * *tool: the tool that listed them. NULL when neither lists a GPU. */
static json_t *rocm_gpus(const char *dir, const char **toolname, json_t *root)
{
	char *const st[] = { "amd-smi", "static", "--json", NULL };
	char *const me[] = { "amd-smi", "metric", "--json", NULL };
	char *const to[] = { "amd-smi", "topology", "--json", NULL };
	char *const rs[] = { "rocm-smi", "--showproductname", "--showvbios", "--showdriverversion", "--showmeminfo", "vram",
			     "--showclocks", "--showmaxpower", "--showbus", "--json", NULL };
	char *const rt[] = { "rocm-smi", "--showtopo", "--json", NULL };
	char *const ri[] = { "rocminfo", NULL };
	char *a = tool(dir, "amd-smi-static.json", st), *b = NULL, *c = NULL, *info;
	json_t *gpus = NULL, *agents, *g;
	size_t i;

	if (a) {
		b = tool(dir, "amd-smi-metric.json", me);
		c = tool(dir, "amd-smi-topology.json", to);
		if ((gpus = envcap_parse_amdsmi(a, b, c)))
			*toolname = "amd-smi";
	}
	if (!gpus) { /* no amd-smi, or one that lists no GPU: the older rocm-smi */
		free(a);
		free(b);
		free(c);
		b = c = NULL;
		if ((a = tool(dir, "rocm-smi.json", rs))) {
			c = tool(dir, "rocm-smi-topo.json", rt);
			if ((gpus = envcap_parse_rocmsmi(a, c)))
				*toolname = "rocm-smi";
		}
	}
	if ((info = tool(dir, "rocminfo.txt", ri))) {
		json_t *ro = envcap_parse_rocminfo(info);

		agents = json_object_get(ro, "agents");
		json_array_foreach(gpus, i, g) {
			const char *gfx = json_string_value(json_object_get(json_array_get(agents, i), "gfx_target"));

			if (json_is_null(json_object_get(g, "gfx_target")) && gfx)
				json_object_set_new(g, "gfx_target", json_string(gfx));
		}
		json_object_set_new(root, "rocminfo", ro);
		free(info);
	}
	free(a);
	free(b);
	free(c);
	return gpus;
}

/* The host: os-release, cpuinfo, meminfo and uname -a kept as files, their gist in "host". */
static json_t *collect_host(const char *dir)
{
	char *const uname_a[] = { "uname", "-a", NULL };
	char *os = read_small("/etc/os-release"), *cpu = read_small("/proc/cpuinfo"), *mem = read_small("/proc/meminfo");
	json_t *host = json_object();
	struct utsname u;
	char hn[256] = "";
	char *s;

	if (os)
		write_file(dir, "os-release", os, strlen(os));
	if (cpu)
		write_file(dir, "cpuinfo", cpu, strlen(cpu));
	if (mem)
		write_file(dir, "meminfo", mem, strlen(mem));
	free(tool(dir, "uname.txt", uname_a));
	gethostname(hn, sizeof(hn) - 1);
	json_object_set_new(host, "hostname", json_string(hn));
	if (uname(&u) == 0) {
		json_object_set_new(host, "kernel", json_string(u.release));
		json_object_set_new(host, "arch", json_string(u.machine));
	}
	json_object_set_new(host, "os", str_or_null(os ? field(os, "PRETTY_NAME", '=') : NULL));
	json_object_set_new(host, "cpu_model", str_or_null(cpu ? field(cpu, "model name", ':') : NULL));
	json_object_set_new(host, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	s = mem ? field(mem, "MemTotal", ':') : NULL;
	json_object_set_new(host, "memory_bytes", s ? json_integer(atoll(s) * 1024) : json_null());
	free(s);
	free(os);
	free(cpu);
	free(mem);
	return host;
}

/* The GPUs: which tools this machine has (one that is missing is recorded as absent, not an error), the tool that
 * described them (nvidia-smi, else amd-smi or rocm-smi) and what it said. */
static void collect_gpus(json_t *root, const char *dir)
{
	static const char *const gpu_tools[] = { "nvidia-smi", "amd-smi", "rocm-smi", "rocminfo", NULL };
	json_t *present = json_object(), *gpus;
	const char *gtool = NULL;

	for (size_t i = 0; gpu_tools[i]; i++) {
		char *w = spawn_which(gpu_tools[i]);

		json_object_set_new(present, gpu_tools[i], json_boolean(w != NULL));
		free(w);
	}
	json_object_set_new(root, "gpu_tools", present);
	if ((gpus = nvidia_gpus(dir))) {
		json_object_set_new(root, "gpu_tool", json_string("nvidia-smi"));
		json_object_set_new(root, "gpus", gpus);
	} else if ((gpus = rocm_gpus(dir, &gtool, root))) {
		json_object_set_new(root, "gpu_tool", json_string(gtool));
		json_object_set_new(root, "gpus", gpus);
	} else {
		json_object_set_new(root, "gpu_tool", json_null());
		json_object_set_new(root, "gpus", json_array());
	}
}

/* The network fabric, and nvidia-smi's GPU-GPU / GPU-NIC matrix (ROCm's links are in gpus[].links). */
static json_t *collect_fabric(const char *dir)
{
	json_t *fab = fabric_collect(), *topo;
	char *tp = xstrfmt("%s/env/raw/nvidia-smi-topo.txt", dir), *tt = read_small(tp);

	if (tt && (topo = fabric_parse_nvidia_topo(tt)))
		json_object_set_new(fab, "gpu_topology", topo);
	free(tt);
	free(tp);
	return fab;
}

/* The toolkits' versions: nvcc, hipconfig, ROCm's .info/version. */
static json_t *collect_toolkits(const char *dir)
{
	char *const nvcc[] = { "nvcc", "--version", NULL };
	char *const hipcc[] = { "hipconfig", "--version", NULL };
	json_t *tools = json_object();
	char *s;

	if ((s = tool(dir, "nvcc-version.txt", nvcc))) {
		char *r = strstr(s, "release ");

		json_object_set_new(tools, "nvcc", r ? json_stringn(r + 8, strcspn(r + 8, ",\n")) : json_null());
		free(s);
	}
	if ((s = tool(dir, "hipconfig-version.txt", hipcc))) {
		json_object_set_new(tools, "hip", json_stringn(s, strcspn(s, "\n")));
		free(s);
	}
	if ((s = read_small("/opt/rocm/.info/version"))) {
		json_object_set_new(tools, "rocm", json_stringn(s, strcspn(s, "\n")));
		free(s);
	}
	return tools;
}

/* The variables of bench's environment that steer GPU stacks (envcap_var_class()): their values with credentials
 * redacted, or <redacted> whole for the secret ones. */
static json_t *collect_env(void)
{
	json_t *env = json_object();

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		int cls;

		if (!eq)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		cls = envcap_var_class(name);
		if (cls == 1) {
			char *v = envcap_redact_value(eq + 1);

			json_object_set_new(env, name, json_string(v));
			free(v);
		}
		else if (cls == 2)
			json_object_set_new(env, name, json_string("<redacted>"));
		free(name);
	}
	return env;
}

json_t *envcap_collect(const char *dir)
{
	json_t *root = json_object(), *host = collect_host(dir);

	json_object_set_new(root, "schema", json_string("bench.environment/v1"));
	json_object_set_new(root, "host", host);
	collect_gpus(root, dir);
	json_object_set_new(root, "fabric", collect_fabric(dir));
	json_object_set_new(root, "toolkits", collect_toolkits(dir));
	json_object_set_new(root, "env", collect_env());
	return root;
}

void envcap_gpu_snapshot(const char *dir, const char *tag)
{
	char *const q[] = { "nvidia-smi", "--query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,"
			    "utilization.gpu,clocks_throttle_reasons.active", "--format=csv", NULL };
	char *const r[] = { "rocm-smi", "--showclocks", "--showpower", "--showtemp", NULL };
	char *name = xstrfmt("gpu-%s.csv", tag);
	char *out = tool(dir, name, q);

	if (!out)
		out = tool(dir, name, r);
	free(out);
	free(name);
}

/* What `pip list --format=freeze` prints, from the interpreter's own package metadata: a fresh Debian has python3
 * without pip, and the installed distributions are what matters, not the installer. */
const char envcap_py_distributions[] =
	"import importlib.metadata as m\n"
	"print('\\n'.join(sorted({'%s==%s' % (d.metadata['Name'], d.version) for d in m.distributions() "
	"if d.metadata['Name']}, key=str.lower)))\n";

void envcap_pip_list(const char *dir, const char *python)
{
	char *const argv[] = { (char *)python, "-c", (char *)envcap_py_distributions, NULL };

	free(tool(dir, "pip-list.txt", argv));
}

/* Every file of dir (recursively, links not followed) scrubbed with the same rules (envcap.h): a file that cannot
 * be scrubbed is removed rather than packed with a secret in it. The manifest and its lock are the run's inputs,
 * signed by their digests: they are kept as they are. */
static void scrub_dir_rel(const char *dir, const char *rel, const struct strvec *secrets)
{
	DIR *dh = opendir(dir);
	struct dirent *e;

	while (dh && (e = readdir(dh))) {
		size_t l = strlen(e->d_name);
		struct stat st;
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".bench-lock") ||
		    (l > 4 && !strcmp(e->d_name + l - 4, ".tmp")))
			continue;
		if (!*rel && (!strcmp(e->d_name, "manifest.yaml") || !strcmp(e->d_name, "manifest.lock.json") ||
			      !strcmp(e->d_name, "inputs"))) /* inputs/: the plug-ins' files, as the lock pins them */
			continue;
		p = xstrfmt("%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *r2 = xstrfmt("%s%s/", rel, e->d_name);

			scrub_dir_rel(p, r2, secrets);
			free(r2);
		} else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && envcap_scrub_file(p, secrets) < 0) {
			fprintf(stderr, "bench: warning: %s; removing '%s%s' rather than packing it unscrubbed\n",
				bench_error_last(), rel, e->d_name);
			unlink(p);
		}
		free(p);
	}
	if (dh)
		closedir(dh);
}

void envcap_scrub_dir(const char *dir, const struct strvec *values)
{
	scrub_dir_rel(dir, "", values);
}
