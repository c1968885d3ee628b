/* SPDX-License-Identifier: Apache-2.0 */
#include "scrub.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "strvec.h"

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

int scrub_is_secret(const char *name)
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

/* in a URL inside a quoted word ("https://alice:a b@host/x"), the '@' that ends userinfo holding a space: the
 * scheme (between p, where the walk stands, and sep) right after an opening quote (the ol bytes ", ' or \"), a user
 * without a space before its ':', no space after the '@' up to the authority's end (the path, or the word's closing
 * quote); else NULL. It reads no further than the next '/', so a line of many URLs is read once. */
static const char *url_quoted_at(const char *v, const char *p, const char *sep)
{
	const char *s = sep, *auth = sep + 3, *at = NULL, *colon = NULL, *space = NULL, *e;
	size_t ol;

	while (s > p && (isalnum((unsigned char)s[-1]) || strchr("+.-", s[-1])))
		s--;
	if (s == sep || s == v || (s[-1] != '"' && s[-1] != '\''))
		return NULL;
	ol = s[-1] == '"' && s - 1 > v && s[-2] == '\\' ? 2 : 1;
	for (e = auth; *e && !strchr("/?#\r\n", *e) && !(ol == 2 ? *e == '\\' : *e == s[-1]); e++) {
		if (*e == '@')
			at = e;
		else if (*e == ':' && !colon)
			colon = e;
		else if (isspace((unsigned char)*e))
			space = e;
	}
	if (!at || !colon || colon == auth || colon > at || !space || space > at)
		return NULL;
	for (e = auth; e < colon; e++)
		if (isspace((unsigned char)*e))
			return NULL;
	return at;
}

char *scrub_redact_url(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = v, *sep;

	while ((sep = strstr(p, "://"))) {
		const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#\"' \t\r\n,;<>()[]{}"), *at = NULL;

		for (const char *q = auth; q < end; q++)
			if (*q == '@')
				at = q;
		if (!at)
			at = url_quoted_at(v, p, sep);
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

/* a secret-looking key: a run of [A-Za-z0-9_.-] that scrub_is_secret() names */
static int secret_key(const char *k, size_t n)
{
	char *name;
	int s;

	if (!n || n > 128)
		return 0;
	name = xstrndup(k, n);
	s = scrub_is_secret(name);
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

/* what may follow a token shape's prefix */
enum token_chars {
	TOK_WORD,  /* [A-Za-z0-9_-] */
	TOK_UPPER, /* [A-Z0-9] */
	TOK_HEX,   /* [0-9a-f] */
	TOK_LOWER, /* [a-z0-9] */
};

/* the token shapes of common services, redacted wherever they stand: a prefix, then at least min characters of
 * its kind, as many as there are (max 0), or at most max and then no letter or digit (AWS key ids: exactly 16 of
 * [A-Z0-9]) */
static const struct token_shape {
	const char *prefix;
	size_t min, max;
	enum token_chars chars;
} token_shapes[] = {
	{ "github_pat_", 20 }, { "ghp_", 20 }, { "gho_", 20 }, { "ghu_", 20 }, { "ghs_", 20 }, { "ghr_", 20 },
	{ "glpat-", 16 }, { "glptt-", 20 }, { "gldt-", 20 }, { "glrt-", 20 }, /* GitLab */
	{ "hf_", 20 }, { "xoxa-", 10 }, { "xoxb-", 10 }, { "xoxp-", 10 }, { "xoxr-", 10 }, { "xoxs-", 10 },
	{ "xoxe-", 20 }, { "xapp-", 20 }, /* Slack */
	{ "sk-", 20 }, { "npm_", 30 }, { "pypi-", 30 },
	{ "AKIA", 16, 16, TOK_UPPER }, { "ASIA", 16, 16, TOK_UPPER }, /* AWS access key ids */
	{ "AIza", 30 },	    /* Google API key */
	{ "ya29.", 20 },    /* Google OAuth access token */
	{ "sk_live_", 16 }, { "rk_live_", 16 }, { "sk_test_", 16 }, { "rk_test_", 16 }, /* Stripe */
	{ "dop_v1_", 32 },  { "doo_v1_", 32 },	{ "dor_v1_", 32 },  /* DigitalOcean */
	{ "glsa_", 20 },    { "glc_", 20 },	/* Grafana */
	{ "SG.", 16 },	    /* SendGrid: SG.<id>.<secret> (the dot-separated rest is taken by token_at) */
	{ "dckr_pat_", 20 }, /* Docker Hub */
	{ "hvs.", 24 }, { "hvb.", 24 }, /* HashiCorp Vault service and batch tokens */
	{ "dapi", 32, 32, TOK_HEX }, /* Databricks */
	{ "oy2", 43, 43, TOK_LOWER }, /* NuGet */
	{ "AGE-SECRET-KEY-", 40 }, /* age identities: AGE-SECRET-KEY-1 and its bech32 body (AGE-SECRET-KEY-PQ-1 too) */
	{ NULL, 0, 0, TOK_WORD }
};

static int tokch(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static int token_char(enum token_chars k, char c)
{
	switch (k) {
	case TOK_UPPER:
		return isupper((unsigned char)c) || isdigit((unsigned char)c);
	case TOK_HEX:
		return isdigit((unsigned char)c) || (c >= 'a' && c <= 'f');
	case TOK_LOWER:
		return islower((unsigned char)c) || isdigit((unsigned char)c);
	default:
		return tokch(c);
	}
}

/* the length of a known token shape that starts at p (p at a word start), else 0 */
static size_t token_at(const char *p)
{
	for (const struct token_shape *t = token_shapes; t->prefix; t++) {
		size_t pl = strlen(t->prefix), n = 0;

		if (strncmp(p, t->prefix, pl))
			continue;
		while ((!t->max || n <= t->max) && token_char(t->chars, p[pl + n]))
			n++;
		if (n < t->min || (t->max && (n > t->max || isalnum((unsigned char)p[pl + n]))))
			continue;
		if (!strcmp(t->prefix, "SG.")) { /* SG.<id>.<secret>: both parts */
			size_t m = 0;

			if (p[pl + n] != '.')
				continue;
			while (tokch(p[pl + n + 1 + m]))
				m++;
			if (m < 16)
				continue;
			return pl + n + 1 + m;
		}
		return pl + n;
	}
	return 0;
}

static int b64urlch(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* a JSON Web Token at p, its parts base64url: signed (JWS), eyJ<header>.eyJ<payload>.<signature> (the signature
 * may be empty), or encrypted (JWE), eyJ<header>.<key>.<iv>.<ciphertext>.<tag> (the key empty under direct
 * encryption); its length, else 0 */
static size_t jwt_at(const char *p)
{
	size_t start[5], end[5], n = 0;
	int parts = 0;

	if (strncmp(p, "eyJ", 3))
		return 0;
	for (;;) {
		start[parts] = n;
		while (b64urlch(p[n]))
			n++;
		end[parts++] = n;
		if (parts == 5 || p[n] != '.')
			break;
		n++;
	}
	if (parts >= 3 && !strncmp(p + start[1], "eyJ", 3))
		return end[2];
	if (parts == 5 && end[2] > start[2] && end[3] > start[3] && end[4] > start[4])
		return end[4];
	return 0;
}

/* the value of a base64 digit, of the standard alphabet (+/) or the URL-safe one (-_), -1 for another character */
static int b64val(char c)
{
	const char *d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *f;

	if (c == '-' || c == '_')
		return c == '-' ? 62 : 63;
	return c && (f = strchr(d, c)) ? (int)(f - d) : -1;
}

/* the length of the base64 word at q when it decodes to a credential, user:password (printable ASCII without
 * spaces, a ':' inside, not last), else 0. Padded to a multiple of 4 (at least min characters with its padding),
 * or, at least 16 characters long, unpadded (its unused bits 0) or URL-safe (-_); one newline may end what it
 * decodes to (echo user:pw | base64) */
static size_t b64_cred_len(const char *q, size_t min)
{
	size_t n = 0, pad = 0, out, k = 0;
	unsigned acc = 0, c = 0, prev = 0;
	int bits = 0, std = 0, url = 0, colon = 0, nl = 0;

	for (; b64val(q[n]) >= 0; n++) {
		std |= q[n] == '+' || q[n] == '/';
		url |= q[n] == '-' || q[n] == '_';
	}
	while (q[n + pad] == '=' && pad < 2)
		pad++;
	/* a '.' then a word character: a file or host name (WORD.log), not the word alone; before a space or the end
	 * it is a full stop */
	if (n % 4 == 1 || (std && url) || n + pad < min || tokch(q[n + pad]) ||
	    (q[n + pad] == '.' && (tokch(q[n + pad + 1]) || q[n + pad + 1] == '.')))
		return 0;
	if ((pad && (n + pad) % 4) || (((!pad && n % 4) || url) && n < 16))
		return 0;
	out = n * 6 / 8;
	for (size_t i = 0; i < n; i++) {
		acc = (acc << 6 | (unsigned)b64val(q[i])) & 0xffffff;
		if ((bits += 6) < 8)
			continue;
		prev = c;
		c = (acc >> (bits -= 8)) & 0xff;
		if (++k == out && c == '\n' && k > 1) {
			nl = 1;
			continue;
		}
		if (c <= 0x20 || c >= 0x7f)
			return 0;
		colon |= c == ':' && k > 1;
	}
	if (!colon || (nl ? prev : c) == ':' || (!pad && n % 4 && (acc & ((1u << bits) - 1))))
		return 0;
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

/* "Bearer TOKEN" anywhere (an OAuth bearer token out of its Authorization header): the length of "Bearer " and
 * its spaces (kept) when a token of at least 16 characters of RFC 6750's b64token follows, else 0; *tn its length */
static size_t bearer_at(const char *p, size_t *tn)
{
	size_t h = 6, n = 0;

	if (strncasecmp(p, "bearer", 6) || (p[6] != ' ' && p[6] != '\t'))
		return 0;
	while (p[h] == ' ' || p[h] == '\t')
		h++;
	while (isalnum((unsigned char)p[h + n]) || (p[h + n] && strchr("-._~+/", p[h + n])))
		n++;
	while (n && p[h + n - 1] == '.') /* a full stop after it */
		n--;
	while (p[h + n] == '=')
		n++;
	if (n < 16 || tokch(p[h + n]))
		return 0;
	*tn = n;
	return h;
}

/* the length of the base64 credential (b64_cred_len()) of the path component at p, after a '/': a run without
 * '/' or '+' (so that each byte of a long base64 run with slashes is read once), else 0 */
static size_t b64_cred_component(const char *p)
{
	size_t m = 0;

	while (isalnum((unsigned char)p[m]) || p[m] == '-' || p[m] == '_')
		m++;
	if (p[m] == '/' || p[m] == '+')
		return 0;
	return b64_cred_len(p, 16);
}

/* the length of the quote at s that may open a word: 1 for " or ', 2 for \" (a command line inside a JSON string),
 * else 0 */
static size_t quote_len(const char *s)
{
	if (*s == '"' || *s == '\'')
		return 1;
	return s[0] == '\\' && s[1] == '"' ? 2 : 0;
}

/* the closing quote of a quoted part whose text starts at s, opened by the ql bytes at o (", ' or \"): a backslash
 * escapes the next character (inside \"...\", \\ is one character), or the end of the string when it is not closed.
 * Each call reads up to the next quote of its kind, so the calls of one walk read a line a bounded number of times. */
static const char *quote_close(const char *s, const char *o, size_t ql)
{
	if (ql == 2) {
		while (*s && !(s[0] == '\\' && s[1] == '"'))
			s += s[0] == '\\' && s[1] == '\\' && s[2] ? 2 : 1;
	} else {
		while (*s && *s != *o)
			s += s[0] == '\\' && s[1] ? 2 : 1;
	}
	return s;
}

/* the end of a command-line word whose quoted part, opened by the ql bytes at o, starts at s: its closing quote,
 * or the last one of the parts the shell joins to it ('it'\''s': a quote escaped between two quoted parts), kept by
 * the caller; the end of the string when a quote is not closed (a value cut off: all of it goes) */
static const char *quoted_word_end(const char *s, const char *o, size_t ql)
{
	const char *c;

	for (;;) {
		c = quote_close(s, o, ql);
		if (!*c || ql == 2 || c[1] != '\\' || (c[2] != '\'' && c[2] != '"') || c[3] != *o)
			return c;
		s = c + 4;
	}
}

/* the value of a command-line option at v (a password): up to the space after it, or quoted ("a b", 'a b', \"a b\",
 * 'a'\''b') to its closing quote, which is kept; *vs where the secret starts (past an opening quote). The end, or
 * NULL when the value is empty or already <redacted>. */
static const char *option_value_end(const char **vs, const char *v)
{
	size_t ql = quote_len(v);
	const char *e;

	*vs = v + ql;
	if (!strncmp(*vs, "<redacted>", 10))
		return NULL;
	if (ql)
		e = quoted_word_end(*vs, v, ql);
	else
		for (e = v; *e && !isspace((unsigned char)*e); e++)
			;
	return e > *vs ? e : NULL;
}

/* curl's and wget's short options that take no value: getopt lets them stand before -u or -U in one word
 * (-sSu alice:pw, -sSualice:pw) */
static const char user_opt_flags[] = "0123456#aBfgGiIjJklLMnNOpqRsSvZ";

/* where the value of curl's or wget's user option starts in the word at p, else NULL: -u and -U (--proxy-user),
 * after the flags of one word (-sSu), the value joined (-ualice:pw) or the next word; --user and --proxy-user (or
 * an abbreviation getopt takes for it: --proxy-u), the value after '=' or the next word */
static const char *user_option_value(const char *p)
{
	const char *q;
	size_t n;

	if (p[1] == '-') {
		n = strcspn(p + 2, "= \t");
		if (!(n == 4 && !strncmp(p + 2, "user", 4)) && !(n >= 7 && n <= 10 && !strncmp(p + 2, "proxy-user", n)))
			return NULL;
		q = p + 2 + n;
		if (*q == '=')
			return q + 1;
	} else {
		q = p + 1 + strspn(p + 1, user_opt_flags);
		if (*q != 'u' && *q != 'U')
			return NULL;
		q++;
		if (*q && *q != ' ' && *q != '\t')
			return q; /* joined: -ualice:pw */
	}
	if (*q != ' ' && *q != '\t')
		return NULL;
	while (*q == ' ' || *q == '\t')
		q++;
	return q;
}

/* curl's or wget's user option at p (user_option_value()) with user:password: the user kept, the password goes, up
 * to the space after it or, quoted (-u 'alice:a b', --user="alice:a b", -u alice:'a b'), to its closing quote; the
 * length of what it took, else 0 */
static size_t user_option_secret(struct strbuf *sb, const char *p)
{
	const char *q = user_option_value(p), *e, *s;
	size_t ql;

	if (!q)
		return 0;
	ql = quote_len(q);
	for (e = q + ql; *e && !isspace((unsigned char)*e) && *e != ':' && !(ql && quote_len(e)); e++)
		;
	if (*e != ':' || !e[1] || isspace((unsigned char)e[1]))
		return 0;
	if (ql) { /* the whole value quoted: the password runs to its closing quote */
		s = e + 1;
		e = strncmp(s, "<redacted>", 10) ? quoted_word_end(s, q, ql) : s;
		if (e == s)
			return 0;
	} else if (!(e = option_value_end(&s, e + 1))) {
		return 0;
	}
	strbuf_add(sb, p, (size_t)(s - p));
	strbuf_addstr(sb, "<redacted>");
	return (size_t)(e - p);
}

/* 1 when line holds word, looked for once per line (*cache -1: not yet), not once per option of a long line */
static int line_has(const char *line, const char *word, int *cache)
{
	if (*cache < 0)
		*cache = strstr(line, word) != NULL;
	return *cache;
}

/* mysql's -pPW and sshpass -p PW / -pPW, "-u user:pw" and its other spellings (curl, wget: user_option_secret()),
 * "--password PW" / "--token PW" (a secret-named option and its value as the next word): the secret part goes, a
 * quoted one ('P W', "P W") up to its closing quote (option_value_end()) */
static size_t option_secret(struct strbuf *sb, const char *line, const char *p, int *has_mysql, int *has_mariadb,
			    int *has_sshpass)
{
	const char *q, *e, *s;
	size_t n = 0;

	if (p[0] != '-' || (p > line && !isspace((unsigned char)p[-1])))
		return 0;
	if (p[1] == 'p' && (p[2] == ' ' || p[2] == '\t') && line_has(line, "sshpass", has_sshpass)) { /* sshpass -p PW */
		for (q = p + 2; *q == ' ' || *q == '\t'; q++)
			;
		if (!*q || !(e = option_value_end(&s, q)))
			return 0;
		strbuf_add(sb, p, (size_t)(s - p));
		strbuf_addstr(sb, "<redacted>");
		return (size_t)(e - p);
	}
	if (p[1] == 'p' && p[2] && !isspace((unsigned char)p[2]) &&
	    (line_has(line, "mysql", has_mysql) || line_has(line, "mariadb", has_mariadb) ||
	     line_has(line, "sshpass", has_sshpass)) &&
	    (e = option_value_end(&s, p + 2))) { /* -pPW, -p'P W' */
		strbuf_add(sb, p, (size_t)(s - p));
		strbuf_addstr(sb, "<redacted>");
		return (size_t)(e - p);
	}
	if ((n = user_option_secret(sb, p)))
		return n;
	q = p + 1 + (p[1] == '-');
	while (keych(q[n]))
		n++;
	if (n && (q[n] == ' ' || q[n] == '\t') && secret_key(q, n)) {
		const char *v = q + n;

		while (*v == ' ' || *v == '\t')
			v++;
		if (!*v || *v == '-' || !(e = option_value_end(&s, v)))
			return 0;
		strbuf_add(sb, p, (size_t)(s - p));
		strbuf_addstr(sb, "<redacted>");
		return (size_t)(e - p);
	}
	return 0;
}

/* a .netrc "password PW" (or "passwd PW") token pair at p, on a line that reads like one (it starts with the
 * token or holds "machine", "login" or "default" before it): the length up to the value, else 0. *scanned and
 * *found carry the search for those words between calls, p moving forward along one line (NULL: from line), so
 * that a line of many "password" words is read once, not once per word. */
static size_t netrc_password_at(const char *line, const char *p, const char **scanned, int *found)
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
	for (const char *w = *scanned ? *scanned : line; !*found && w < p; w++)
		if ((w == line || isspace((unsigned char)w[-1])) &&
		    (((!strncmp(w, "machine", 7) || !strncmp(w, "default", 7)) && isspace((unsigned char)w[7])) ||
		     (!strncmp(w, "login", 5) && isspace((unsigned char)w[5]))))
			*found = 1;
	if (!*scanned || *scanned < p)
		*scanned = p;
	return *found ? (size_t)(q - p) : 0;
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

/* scrub_redact_value()'s walk: the value with URL userinfo already removed (u), the output so far and the
 * position in u; each step below either takes a credential at p (writes its redacted form, moves p past it,
 * returns 1) or leaves both as they are (returns 0) */
struct redact {
	struct strbuf sb;
	const char *u;
	const char *p;
	const char *netrc_scanned; /* netrc_password_at()'s search so far */
	int netrc_found;
	/* redact_userinfo()'s view of sb, kept as bytes are written so that a word of many '@'s is read once: sb
	 * read up to seen, the current word (after the last cred_delim()) starts at word, its last ':' at colon + 1
	 * (0: none) */
	size_t seen, word, colon;
	/* option_secret()'s words of the line (mysql, mariadb, sshpass), and "kty" (a JSON Web Key): -1 not yet
	 * looked for */
	int has_mysql, has_mariadb, has_sshpass, has_kty;
};

/* the end of a secret key's value at q, whose opening quote (", ' or \") is ql bytes long: its closing quote (and
 * the parts the shell joins to it: quoted_word_end()); a value not quoted of a key inside a quoted word (-d
 * "password=a b", -H 'Authorization: Bearer T', its quote the ol bytes at o) up to that word's closing quote */
static const char *keyed_value_end(const char *key, size_t kn, const char *q, size_t ql, const char *o, size_t ol)
{
	const char *e = q + ql;

	if (ql)
		return ql == 2 ? quote_close(e, q, 2) : quoted_word_end(e, q, 1);
	if (ol)
		return quote_close(e, o, ol);
	if (auth_key(key, kn)) { /* Authorization: SCHEME CREDENTIALS: all of it */
		const char *s = e;

		while (*s == ' ' || *s == '\t')
			s++;
		/* Digest's credentials are quoted pairs (username="u", response="..."): the rest of the line */
		int digest = !strncasecmp(s, "digest", 6) && isspace((unsigned char)s[6]);

		while (*e && *e != '\n' && (digest || !strchr("\"'\\", *e)))
			e++;
		while (e > q && isspace((unsigned char)e[-1]))
			e--;
		return e;
	}
	while (*e && ((e[0] == '\\' && e[1] == ' ') || (!isspace((unsigned char)*e) && !strchr(",;&}]\"'\\", *e))))
		e += e[0] == '\\' ? 2 : 1; /* a\ b: a space escaped */
	return e;
}

/* a JSON Web Key's private member ("d", RSA's "p", "q", "dp", "dq", "qi", a symmetric key's "k"): k quoted, on a
 * line that holds "kty */
static int jwk_private(const char *k, size_t kn)
{
	static const char *const names[] = { "d", "p", "q", "dp", "dq", "qi", "k", NULL };

	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == kn && !strncmp(k, names[i], kn))
			return 1;
	return 0;
}

/* the column where the YAML key of the line at ls starts (past its indentation and a list's dashes: - KEY) */
static size_t yaml_key_col(const char *ls, size_t len)
{
	size_t i = 0;

	while (i < len && (ls[i] == ' ' || ls[i] == '\t' ||
			   (ls[i] == '-' && i + 1 < len && (ls[i + 1] == ' ' || ls[i + 1] == '\t'))))
		i++;
	return i;
}

/* the length of a YAML block scalar's header at q (| or >, then an indentation digit and a chomping sign in either
 * order: |-, >+, |2, >2-; spaces and a comment after it) when nothing else follows on its line (the end of the
 * string or a newline), else 0: the value is the lines that follow, more indented than its key */
static size_t yaml_block_header(const char *q)
{
	size_t n = 1;

	if (*q != '|' && *q != '>')
		return 0;
	for (int k = 0; k < 2 && ((q[n] >= '1' && q[n] <= '9') || q[n] == '+' || q[n] == '-'); k++)
		n++;
	while (q[n] == ' ' || q[n] == '\t')
		n++;
	if (q[n] == '#' && (q[n - 1] == ' ' || q[n - 1] == '\t'))
		n += strcspn(q + n, "\r\n");
	n += q[n] == '\r';
	return !q[n] || q[n] == '\n' ? n : 0;
}

/* the lines of a YAML block scalar from e (the newline after its header) that belong to it, each more indented
 * than col (blank lines among them kept): written as their indentation and <redacted>; where they end (the newline
 * before the first line that does not belong to it, or the end of the string) */
static const char *yaml_block_redact(struct strbuf *sb, const char *e, size_t col)
{
	while (*e == '\n') {
		const char *l = e + 1;
		size_t ind = strspn(l, " \t"), n = strcspn(l, "\n");

		if (strspn(l + ind, "\r") < n - ind && ind <= col)
			break;
		strbuf_addch(sb, '\n');
		if (strspn(l + ind, "\r") < n - ind) { /* a line of the value */
			strbuf_add(sb, l, ind);
			strbuf_addstr(sb, "<redacted>");
			if (l[n - 1] == '\r')
				strbuf_addch(sb, '\r');
		} else {
			strbuf_add(sb, l, n);
		}
		e = l + n;
	}
	return e;
}

/* a secret key's YAML block scalar (KEY: |, KEY: >-, ...) at q, its header hn bytes: the header kept, the lines of
 * the value that follow it in the string redacted (yaml_block_redact()); at the string's end (a line of a text:
 * scrub_line() redacts the lines after it) the header is left as it is. 1 when it took them. */
static int redact_yaml_block(struct redact *r, const char *q, size_t hn)
{
	const char *p = r->p, *ls = p;
	size_t col;

	if (!q[hn])
		return 0;
	while (ls > r->u && ls[-1] != '\n') /* once per line: the header ends its line */
		ls--;
	col = yaml_key_col(ls, (size_t)(p - ls));
	strbuf_add(&r->sb, p, (size_t)(q + hn - p));
	r->p = yaml_block_redact(&r->sb, q + hn, col);
	return 1;
}

/* KEY=VALUE, "KEY": "VALUE", KEY: VALUE, 'KEY': 'VALUE' with a secret-looking KEY: the value goes (quoted, up to its
 * closing quote; a key inside a quoted word, up to that word's closing quote; a YAML block scalar, its lines); a JSON
 * Web Key's private members too */
static int redact_keyed(struct redact *r)
{
	const char *p = r->p, *q, *e;
	size_t kn = 0, ql, ol = 0;
	int yaml;

	if (!keych(*p) || (p != r->u && keych(p[-1])))
		return 0;
	while (keych(p[kn]))
		kn++;
	q = p + kn;
	q += q[0] == '\\' && q[1] == '"' ? 2 : (*q == '"' || *q == '\''); /* "key", 'key', \"key\" (JSON in JSON) */
	while (*q == ' ' || *q == '\t')
		q++;
	if ((*q != '=' && *q != ':') || q[1] == '/' ||
	    !(secret_key(p, kn) || sas_sig(r->u, p, kn, q) ||
	      (p > r->u && p[-1] == '"' && (p[kn] == '"' || (p[kn] == '\\' && p[kn + 1] == '"')) && *q == ':' &&
	       jwk_private(p, kn) &&
	       line_has(r->u, "\"kty", &r->has_kty))))
		return 0;
	if (*q == '=' && q == p + kn && b64_cred_len(p, 16))
		return 0; /* the padding of a base64 credential (redact_word()), not KEY= */
	/* the whole operator: => (Ruby, Perl, PHP), := (Go, Pascal), not its last character taken for the value */
	yaml = q[0] == ':' && q[1] != '=';
	q += (q[0] == '=' && q[1] == '>') || (q[0] == ':' && q[1] == '=') ? 2 : 1;
	while (*q == ' ' || *q == '\t')
		q++;
	if (yaml && (ql = yaml_block_header(q)))
		return redact_yaml_block(r, q, ql);
	ql = quote_len(q);
	if (!strncmp(q + ql, "<redacted>", 10))
		return 0; /* before looking for the value's end: a line of "Authorization: <redacted>" was read to its end
			   * at each */
	/* a key inside a quoted word ("password=a b"), not a quoted key ("password": ...) */
	if (p > r->u && (p[-1] == '"' || p[-1] == '\''))
		ol = p[-1] == '"' && p - 1 > r->u && p[-2] == '\\' ? 2 : 1;
	if (ol && (ol == 2 ? p[kn] == '\\' && p[kn + 1] == '"' : p[kn] == p[-1]))
		ol = 0;
	e = keyed_value_end(p, kn, q, ql, p - ol, ol);
	if (e <= q + ql)
		return 0;
	strbuf_add(&r->sb, p, (size_t)(q - p) + ql);
	strbuf_addstr(&r->sb, "<redacted>");
	r->p = e;
	return 1;
}

/* the kept head (wn bytes at p) and <redacted> for the rest of the path, up to a character outside it */
static void redact_path_rest(struct redact *r, size_t wn)
{
	const char *p = r->p;

	strbuf_add(&r->sb, p, wn);
	strbuf_addstr(&r->sb, "<redacted>");
	for (p += wn; tokch(*p) || *p == '/'; p++)
		;
	r->p = p;
}

/* the length of the AWS secret access key at q: 40 of [A-Za-z0-9/+], then none of them; else 0 */
static size_t aws_secret_len(const char *q)
{
	size_t sn = 0;

	while (sn <= 40 && (isalnum((unsigned char)q[sn]) || q[sn] == '/' || q[sn] == '+'))
		sn++;
	return sn == 40 ? sn : 0;
}

/* after the token of tn bytes at id, when it is an AWS access key id (AKIA or ASIA and 16 of [A-Z0-9]): the
 * secret key that follows it past spaces, tabs, ':', ',' or '=' (*off bytes after the id), its length; else 0.
 * The text and the binary scrubbers' one rule. */
static size_t aws_secret_after(const char *id, size_t tn, size_t *off)
{
	const char *q = id + tn;

	if (tn != 20 || (strncmp(id, "AKIA", 4) && strncmp(id, "ASIA", 4)))
		return 0;
	while (*q == ' ' || *q == '\t' || *q == ':' || *q == ',' || *q == '=')
		q++;
	*off = (size_t)(q - id - tn);
	return aws_secret_len(q);
}

/* after an AWS key id (tn bytes, just redacted): its secret key, 40 base64 characters, goes as well */
static void redact_aws_secret(struct redact *r, size_t tn)
{
	size_t off = 0;

	if (aws_secret_after(r->p - tn, tn, &off)) {
		strbuf_add(&r->sb, r->p, off);
		strbuf_addstr(&r->sb, "<redacted>");
		r->p += off + 40;
	}
}

/* at a word start: a known token shape or a JSON Web Token, a Slack webhook's path, a Basic credential, the same
 * credential alone in base64 (or as a path's last part), a Bearer token, a .netrc password */
static int redact_word(struct redact *r)
{
	const char *p = r->p, *u = r->u;
	size_t tn, wn;

	if (p != u && tokch(p[-1]))
		return 0;
	tn = token_at(p);
	if (!tn)
		tn = jwt_at(p);
	if (!tn && (wn = slack_hook_at(p))) { /* the host kept, the path goes */
		redact_path_rest(r, wn);
		return 1;
	}
	if (!tn && (wn = basic_at(p))) { /* Basic user:password in base64: the scheme kept */
		strbuf_addstr(&r->sb, "Basic <redacted>");
		r->p = p + wn;
		return 1;
	}
	if (!tn && (p == u || (p[-1] != '/' && p[-1] != '+')) && (wn = b64_cred_len(p, 16))) {
		strbuf_addstr(&r->sb, "<redacted>"); /* the same credential alone: base64 of user:password */
		r->p = p + wn;
		return 1;
	}
	if (!tn && p != u && p[-1] == '/' && (wn = b64_cred_component(p))) { /* the last part of a path: x/WORD */
		strbuf_addstr(&r->sb, "<redacted>");
		r->p = p + wn;
		return 1;
	}
	if (!tn && (wn = bearer_at(p, &tn))) { /* Bearer TOKEN: the scheme kept */
		strbuf_add(&r->sb, p, wn);
		strbuf_addstr(&r->sb, "<redacted>");
		r->p = p + wn + tn;
		return 1;
	}
	if ((wn = netrc_password_at(u, p, &r->netrc_scanned, &r->netrc_found))) { /* the value, "quoted" or not */
		const char *s, *e = option_value_end(&s, p + wn);

		if (!e)
			return 0;
		strbuf_add(&r->sb, p, (size_t)(s - p));
		strbuf_addstr(&r->sb, "<redacted>");
		r->p = e;
		return 1;
	}
	if (!tn)
		return 0;
	strbuf_addstr(&r->sb, "<redacted>");
	r->p = p + tn;
	redact_aws_secret(r, tn);
	return 1;
}

/* a secret-named command-line option's value (option_secret()) */
static int redact_option(struct redact *r)
{
	size_t on;

	if (*r->p != '-' || !(on = option_secret(&r->sb, r->u, r->p, &r->has_mysql, &r->has_mariadb, &r->has_sshpass)))
		return 0;
	r->p += on;
	return 1;
}

/* at the '@' of user:password@host (a credential without a scheme): the userinfo already written goes. The
 * word's start and its last ':' are carried in r as sb grows, never searched for again from each '@' (a word of
 * k '@'s took k^2) */
static void redact_userinfo(struct redact *r)
{
	struct strbuf *sb = &r->sb;
	const char *p = r->p;

	if (*p != '@' || p == r->u || !(isalnum((unsigned char)p[1]) || p[1] == '['))
		return;
	for (; r->seen < sb->len; r->seen++) {
		char c = sb->buf[r->seen];

		if (cred_delim(c)) {
			r->word = r->seen + 1;
			r->colon = 0;
		} else if (c == ':') {
			r->colon = r->seen + 1;
		}
	}
	if (r->colon && r->colon - 1 > r->word && r->colon < sb->len && strncmp(sb->buf + r->word, "<redacted>", 10)) {
		sb->len = r->word;
		sb->buf[sb->len] = 0;
		r->seen = r->word;
		r->colon = 0;
		strbuf_addstr(sb, "<redacted>");
	}
}

/* a quoted word that starts with user:password@host, the password holding a space ("alice:a b@db:5432"; without
 * one, redact_userinfo() takes it): the userinfo goes. The user has no space, nor has the host up to the closing
 * quote; the word is read up to that quote, once per quote of the line. */
static int redact_quoted_userinfo(struct redact *r)
{
	const char *p = r->p, *o, *c, *colon, *at = NULL, *space = NULL;
	size_t ol;

	if (p == r->u || (p[-1] != '"' && p[-1] != '\''))
		return 0;
	ol = p[-1] == '"' && p - 1 > r->u && p[-2] == '\\' ? 2 : 1;
	o = p - ol;
	if (o > r->u && !cred_delim(o[-1]))
		return 0;
	for (colon = p; !cred_delim(*colon) && *colon != ':' && *colon != '@'; colon++)
		;
	if (*colon != ':' || colon == p)
		return 0;
	c = quote_close(colon + 1, o, ol);
	for (const char *e = colon + 1; e < c; e++) {
		if (*e == '@' && (isalnum((unsigned char)e[1]) || e[1] == '['))
			at = e;
		else if (isspace((unsigned char)*e))
			space = e;
	}
	if (!at || !space || space > at)
		return 0;
	strbuf_addstr(&r->sb, "<redacted>");
	r->p = at;
	return 1;
}

char *scrub_redact_value(const char *v)
{
	struct redact r = { STRBUF_INIT, NULL, NULL, NULL, 0, 0, 0, 0, -1, -1, -1, -1 };
	char *u = scrub_redact_url(v);

	r.u = r.p = u;
	while (*r.p) {
		if (redact_keyed(&r) || redact_word(&r) || redact_option(&r) || redact_quoted_userinfo(&r))
			continue;
		redact_userinfo(&r);
		strbuf_addch(&r.sb, *r.p++);
	}
	free(u);
	return strbuf_detach(&r.sb);
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

	if (n < SCRUB_MIN)
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

void scrub_secret_values(struct strvec *out, char *const *env)
{
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (scrub_is_secret(name)) {
			const char *v = eq + 1;

			while (*v) { /* each line of a multi-line value (a PEM key) on its own */
				size_t n = strcspn(v, "\r\n");
				int seen = 0;

				for (size_t k = 0; k < out->n && !seen; k++)
					seen = strlen(out->v[k]) == n && !strncmp(out->v[k], v, n);
				if (n >= SCRUB_MIN && !seen && credential_like(v, n)) {
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

/* the offset of the last needle within the len bytes at s, or len */
static size_t span_find_last(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = len; i >= n; i--)
		if (!memcmp(s + i - n, needle, n))
			return i - n;
	return len;
}

/* the end of the BEGIN line of a private key block at b ("-----BEGIN LABEL-----", PEM or OpenPGP armor) whose
 * LABEL holds "PRIVATE KEY" (PKCS#8, ENCRYPTED, RSA, EC, DSA, OPENSSH, "PGP PRIVATE KEY BLOCK"): the offset past its
 * closing dashes, else 0 (another label, or none: at most 80 printable characters) */
static size_t pem_private_begin(const char *line, size_t len, size_t b)
{
	size_t l = b + 11, e = span_find(line, len, l, "-----");

	if (e == len || e - l > 80)
		return 0;
	for (size_t i = l; i < e; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			return 0;
	return span_find(line, e, l, "PRIVATE KEY") < e ? e + 5 : 0;
}

/* the length of a JSON-escaped character of a key's body at s (n bytes): a line break (\n, \r), a tab or a slash
 * (\/), each backslash doubled as often as JSON inside JSON doubles it (\\n), else 0 */
static size_t pem_escape_len(const char *s, size_t n)
{
	size_t b = 0;

	while (b < n && b < 8 && s[b] == '\\')
		b++;
	return b && b < n && s[b] && strchr("nrt/", s[b]) ? b + 1 : 0;
}

/* A private key block whose BEGIN line ends at k with its body written JSON-escaped on the same line (an escaped
 * line break right after it) and no END on that line: the length of the body, which ends at the first character that
 * cannot be in one (the closing quote of its JSON string: the key was cut off there). Its characters: base64,
 * spaces, escaped line breaks and slashes, and after a line break a header line (Proc-Type: 4,ENCRYPTED) up to the
 * next backslash or quote. 0 when the body is not written escaped. */
static size_t pem_escaped_body(const char *line, size_t len, size_t k)
{
	size_t i = k, b = pem_escape_len(line + k, len - k);
	int bol = 0;

	if (!b || (line[k + b - 1] != 'n' && line[k + b - 1] != 'r'))
		return 0;
	while (i < len) {
		unsigned char c = (unsigned char)line[i];

		if ((b = pem_escape_len(line + i, len - i))) {
			bol = strchr("nr", line[i + b - 1]) != NULL;
			i += b;
			continue;
		}
		if (bol && isalpha(c)) { /* a header: Name: value */
			size_t h = i;

			while (h < len && (isalnum((unsigned char)line[h]) || line[h] == '-'))
				h++;
			if (h < len && line[h] == ':') {
				while (h < len && line[h] != '\\' && line[h] != '"')
					h++;
				i = h;
				bol = 0;
				continue;
			}
		}
		if (!isalnum(c) && !strchr("+/= \t", c))
			break;
		bol = 0;
		i++;
	}
	return i - k;
}

/* line with the bodies of private key blocks replaced by <redacted>: between a BEGIN line whose label names a
 * private key (pem_private_begin()) and "-----END ", on one line (a JSON-escaped key) or over several (*pem: inside
 * a block). A block with no END on its BEGIN line goes on over the lines that follow, up to END or the end of the
 * text, except a body written JSON-escaped that stops before the line ends (pem_escaped_body(): a key cut off in a
 * JSON string), which ends there. */
static void pem_mask(struct strbuf *o, const char *line, size_t len, int *pem)
{
	size_t pos = 0, last_end = len + 1; /* the last END on the line, looked for once (len + 1: not yet) */

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
			size_t b = span_find(line, len, pos, "-----BEGIN "), k, n;

			if (b == len) {
				strbuf_add(o, line + pos, len - pos);
				return;
			}
			k = pem_private_begin(line, len, b);
			if (!k) { /* another block (a certificate): kept, the search goes on after it */
				strbuf_add(o, line + pos, b + 11 - pos);
				pos = b + 11;
				continue;
			}
			strbuf_add(o, line + pos, k - pos);
			pos = k;
			*pem = 1;
			if (last_end > len)
				last_end = span_find_last(line, len, "-----END ");
			if (last_end < len && last_end >= k)
				continue; /* its END is on this line */
			/* (a body cut off and redacted already, by an earlier scrub: <redacted> and more on the line, the same) */
			n = len - k > 10 && !memcmp(line + k, "<redacted>", 10) ? 10 : pem_escaped_body(line, len, k);
			if (n && k + n < len) { /* cut off: the body goes, what follows it stays */
				strbuf_addstr(o, "<redacted>");
				pos = k + n;
				*pem = 0;
			}
		}
	}
}

/* the len bytes at s through scrub_redact_value(), each run between NUL bytes on its own: a NUL is kept where
 * it stands, never the end of what is written (a log line may hold one) */
static void redact_segments(struct strbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	for (;;) {
		const char *z = memchr(s + i, 0, len - i);
		size_t n = z ? (size_t)(z - (s + i)) : len - i;
		char *seg = xstrndup(s + i, n), *r = scrub_redact_value(seg);

		strbuf_addstr(out, r);
		free(r);
		free(seg);
		if (!z)
			break;
		strbuf_addch(out, 0);
		i += n + 1;
	}
}

/* the number of private lines a PuTTY key file's "Private-Lines: N" line announces (its base64 lines that
 * follow), else 0 */
static int putty_private_lines(const char *line, size_t len)
{
	size_t i = 0;
	int n = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i < 14 || strncmp(line + i, "Private-Lines:", 14))
		return 0;
	for (i += 14; i < len && line[i] == ' '; i++)
		;
	for (; i < len && isdigit((unsigned char)line[i]) && n < 100000; i++)
		n = n * 10 + (line[i] - '0');
	return n;
}

/* one line of base64 (a PuTTY key's private lines), spaces and a CR around it */
static int base64_line(const char *line, size_t len)
{
	size_t i = 0, k = 0;

	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	for (; i < len && (isalnum((unsigned char)line[i]) || line[i] == '+' || line[i] == '/' || line[i] == '='); i++)
		k++;
	return k && i == len;
}

/* What a text's lines carry to the next. pem: 1 inside a private key block (pem_mask()), -N while N private lines
 * of a PuTTY key file are left; yaml: the column of a secret key whose YAML block scalar's lines follow, -1 when
 * none. */
struct text_state {
	int pem;
	long yaml;
};
#define TEXT_STATE_INIT { 0, -1 }

/* the column of the key of a line whose value is a YAML block scalar on the lines after it, a secret key's (KEY: |,
 * "KEY": >-, - KEY: |2, db password: |: the word before the first ": " that a header follows), else -1 */
static long yaml_secret_block(const char *line, size_t len)
{
	size_t i, j, kn = 0;
	char *h;
	int block;

	for (i = 0; i + 1 < len && !(line[i] == ':' && (line[i + 1] == ' ' || line[i + 1] == '\t')); i++)
		;
	for (j = i + 1; j < len && (line[j] == ' ' || line[j] == '\t'); j++)
		;
	if (j >= len || (line[j] != '|' && line[j] != '>'))
		return -1;
	while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t'))
		i--;
	i -= i > 0 && (line[i - 1] == '"' || line[i - 1] == '\'');
	while (kn < i && keych(line[i - kn - 1]))
		kn++;
	if (!kn)
		return -1;
	h = xstrndup(line + j, len - j);
	block = yaml_block_header(h) > 0;
	free(h);
	return block && secret_key(line + i - kn, kn) ? (long)yaml_key_col(line, len) : -1;
}

/* a line of a secret YAML block scalar whose key stands at column col: a line more indented (written as its
 * indentation and <redacted>), or a blank one (kept); 1 when it is one, 0 when the block ended before it */
static int yaml_block_line(struct strbuf *out, const char *raw, size_t len, long col)
{
	size_t ind = 0;

	while (ind < len && (raw[ind] == ' ' || raw[ind] == '\t'))
		ind++;
	if (ind + (ind < len && raw[len - 1] == '\r') >= len) { /* blank */
		strbuf_add(out, raw, len);
		return 1;
	}
	if ((long)ind <= col)
		return 0;
	strbuf_add(out, raw, ind);
	strbuf_addstr(out, "<redacted>");
	if (raw[len - 1] == '\r')
		strbuf_addch(out, '\r');
	return 1;
}

/* one line (without its newline) of a log or an env dump; st: what the lines before it left open (a private key
 * block, a PuTTY key's private lines, a secret YAML block scalar: struct text_state) */
static void scrub_line(struct strbuf *out, const char *raw, size_t rawlen, const struct strvec *values,
		       struct text_state *st)
{
	struct strbuf sb = STRBUF_INIT, m = STRBUF_INIT;
	const char *line;
	size_t nlen = 0, len;

	if (st->yaml >= 0 && yaml_block_line(out, raw, rawlen, st->yaml))
		return;
	st->yaml = -1;
	if (st->pem < 0 && base64_line(raw, rawlen)) { /* a PuTTY key's private line */
		st->pem++;
		strbuf_addstr(out, "<redacted>");
		return;
	}
	if (st->pem < 0)
		st->pem = 0;
	pem_mask(&m, raw, rawlen, &st->pem);
	if (!st->pem && (nlen = (size_t)putty_private_lines(raw, rawlen)))
		st->pem = -(int)nlen;
	if (!st->pem)
		st->yaml = yaml_secret_block(raw, rawlen);
	nlen = 0;
	line = m.buf ? m.buf : "";
	len = m.len;
	/* NAME=VALUE (an env dump): a secret name's value goes whatever it is */
	while (nlen < len && (isalnum((unsigned char)line[nlen]) || line[nlen] == '_'))
		nlen++;
	if (nlen && nlen < len && line[nlen] == '=' && !isdigit((unsigned char)line[0])) {
		char *name = xstrndup(line, nlen);
		int secret = scrub_is_secret(name);

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
		      int by_key, struct text_state *st);

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
			  int by_key, struct text_state *st)
{
	struct strbuf j = STRBUF_INIT, o = STRBUF_INIT;
	struct text_state before = *st; /* the raw line scrubbed again starts from the same state */
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
		scrub_one(out, path, raw, len, values, by_key, st);
		return;
	}
	scrub_one(&o, path, j.buf ? j.buf : "", j.len, values, by_key, st);
	if (o.len == j.len && !memcmp(o.buf, j.buf, j.len)) {
		*st = before;
		scrub_one(out, path, raw, len, values, by_key, st);
	} else {
		strbuf_add(out, o.buf, o.len);
	}
	strbuf_release(&j);
	strbuf_release(&o);
}

void scrub_text(struct strbuf *out, const char *text, size_t len, const struct strvec *values)
{
	size_t i = 0;
	struct text_state st = TEXT_STATE_INIT;

	while (i < len) {
		size_t n = logical_len(text + i, len - i);

		scrub_logical(out, "", text + i, n, values, 0, &st);
		if (i + n < len)
			strbuf_addch(out, '\n');
		i += n + (i + n < len);
	}
}

/* every string of j through the text scrubber, and every string under a secret-looking key redacted whole;
 * returns how many changed */
/* a key that names a secret whatever the document (any case, with or without '_', '-' or '.' between its words:
 * client_secret, clientSecret, ClientSecret, client-secret): its string value goes in records too; "pass" (fwd,
 * bwd) and "key" are data there and are not among them */
static int strict_secret_key(const char *k)
{
	static const char *const names[] = { "password", "passwd", "passphrase", "secret", "clientsecret", "secretkey",
					     "secretaccesskey", "awssecretaccesskey", "sessiontoken", "awssessiontoken",
					     "authtoken", "apikey", "apitoken", "accesstoken", "refreshtoken", "idtoken",
					     "bearertoken", "privatekey", "token", NULL };
	char buf[32];
	size_t n = 0;

	for (; *k; k++) { /* any case, without its separators: client_secret, clientSecret, client-secret are one */
		if (*k == '_' || *k == '-' || *k == '.')
			continue;
		if (n + 1 >= sizeof(buf))
			return 0;
		buf[n++] = (char)tolower((unsigned char)*k);
	}
	buf[n] = 0;
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

/* the keys of object j through the text scrubber (a token shape is removed wherever it stands, a key too): a key
 * that changes is renamed, its value kept; returns how many changed */
static size_t scrub_json_keys(json_t *j, const struct strvec *values)
{
	struct strvec from = STRVEC_INIT, to = STRVEC_INIT;
	const char *k;
	json_t *v;
	size_t n;

	json_object_foreach(j, k, v) {
		struct strbuf sb = STRBUF_INIT;

		scrub_text(&sb, k, strlen(k), values);
		if (strcmp(sb.buf, k)) {
			strvec_push(&from, k);
			strvec_push(&to, sb.buf);
		}
		strbuf_release(&sb);
	}
	for (size_t i = 0; i < from.n; i++) {
		v = json_incref(json_object_get(j, from.v[i]));
		json_object_del(j, from.v[i]);
		json_object_set_new(j, to.v[i], v);
	}
	n = from.n;
	strvec_release(&from);
	strvec_release(&to);
	return n;
}

/* 1 when the JSON string j is s, all of it (a string may hold a NUL: "<redacted>\u0000pw" is not "<redacted>") */
static int json_string_is(const json_t *j, const char *s)
{
	return json_string_length(j) == strlen(s) && !memcmp(json_string_value(j), s, strlen(s));
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

		scrub_text(&sb, s, json_string_length(j), values);
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
		int jwk = json_is_string(json_object_get(j, "kty")); /* a JSON Web Key: its private members go */

		changed += scrub_json_keys(j, values);
		json_object_foreach_safe(j, tmp, k, v) {
			if (!strcmp(k, "case") && json_is_string(v))
				continue; /* a case key: made by bench from the manifest, never a secret; the results' key */
			if (json_is_string(v) && header_auth_key(k)) {
				const char *a = json_string_value(v), *sp = memchr(a, ' ', json_string_length(v));
				char *r;

				/* "Authorization": "Bearer TOKEN": the scheme kept, the credentials go */
				if (sp && sp > a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") == (size_t)(sp - a))
					r = xstrfmt("%.*s <redacted>", (int)(sp - a), a);
				else
					r = xstrdup("<redacted>");
				if (!json_string_is(v, r)) {
					json_string_set(v, r);
					changed++;
				}
				free(r);
				continue;
			}
			if (json_is_string(v) && !json_string_is(v, "<redacted>") &&
			    ((jwk && jwk_private(k, strlen(k))) ||
			     (by_key ? secret_key(k, strlen(k)) : strict_secret_key(k)))) {
				json_string_set(v, "<redacted>");
				changed++;
			} else if ((json_is_array(v) || json_is_object(v)) &&
				   (by_key ? secret_key(k, strlen(k)) : strict_secret_key(k))) { /* a list or map: all of it */
				json_object_set_new(j, k, json_string("<redacted>"));
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
	char *buf = NULL, *s = NULL;
	size_t len = 0;
	int err = 0;
	json_t *j;

	/* read whole (jansson's json_loadfd reads a byte a call); larger than SCRUB_BINARY_MAX: scrubbed as text */
	if (fs_read_file_flags(&buf, &len, path, SCRUB_BINARY_MAX, O_NOFOLLOW) < 0)
		return 1;
	/* a string may hold "\u0000" (legal JSON): decoded with its length, scrubbed by it, encoded back the same */
	j = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	free(buf);
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
		      int by_key, struct text_state *st)
{
	if (ends_with(path, ".jsonl") && line[0] == '{') { /* a record: its strings scrubbed, its form kept */
		json_t *rec = json_loadb(line, len, JSON_ALLOW_NUL, NULL);

		if (rec && scrub_json(rec, values, by_key)) {
			char *d = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));

			strbuf_addstr(sb, d ? d : "{}");
			free(d);
		} else if (rec) {
			strbuf_add(sb, line, len);
		} else {
			scrub_line(sb, line, len, values, st);
		}
		json_decref(rec);
	} else {
		scrub_line(sb, line, len, values, st);
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

/* the name of an AWS secret access key as the AWS tools and SDKs write it, at p (a word start): aws_secret_access_key
 * (~/.aws/credentials), AWS_SECRET_ACCESS_KEY (the environment), SecretAccessKey (aws sts' JSON), any case, with or
 * without '_', '-' or '.'; quoted or not, then '=', ':', '=>' or ':=' and the value, quoted or not. The key of 40
 * characters that follows (*off bytes after p, the name and the separator kept): its length, else 0. The name is
 * matched as it is read, so most words cost a byte or two. */
static size_t aws_secret_named(const char *p, size_t *off)
{
	const char *want = tolower((unsigned char)*p) == 'a' ? "awssecretaccesskey" : "secretaccesskey", *q;
	size_t n = 0, k = 0;

	if (tolower((unsigned char)*p) != want[0])
		return 0;
	for (; keych(p[n]) && n < 64; n++) {
		if (p[n] == '_' || p[n] == '-' || p[n] == '.')
			continue;
		if (!want[k] || tolower((unsigned char)p[n]) != want[k])
			return 0;
		k++;
	}
	if (want[k] || keych(p[n]))
		return 0;
	q = p + n;
	q += q[0] == '\\' && q[1] == '"' ? 2 : (*q == '"' || *q == '\''); /* "key", 'key', \"key\" */
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '=' && *q != ':')
		return 0;
	q += (q[0] == '=' && q[1] == '>') || (q[0] == ':' && q[1] == '=') ? 2 : 1;
	while (*q == ' ' || *q == '\t')
		q++;
	q += quote_len(q);
	*off = (size_t)(q - p);
	return aws_secret_len(q);
}

/* The secrets of a binary file that start at buf + i (buf holds len bytes and a NUL after them), each overwritten
 * by as many '*' bytes: a secret value (scrub_secret_values()); at a word start, a known token shape or a JSON Web
 * Token, with the 40-character secret key after an AWS access key id (the separator between them kept), or an AWS
 * secret key after its name (aws_secret_access_key=, "SecretAccessKey": ...; the name kept). How many bytes from i
 * it read and overwrote up to, 0 when nothing starts here. */
static size_t binary_scrub_at(char *buf, size_t i, size_t len, const struct strvec *values)
{
	char *p = buf + i;
	size_t n = 0, off = 0, sn = 0;

	for (size_t k = 0; k < values->n; k++) {
		size_t vl = strlen(values->v[k]);

		if (vl > n && vl <= len - i && *p == values->v[k][0] && !memcmp(p, values->v[k], vl))
			n = vl;
	}
	if (!n && (i == 0 || !tokch(p[-1]))) {
		if ((sn = aws_secret_named(p, &off))) {
			memset(p + off, '*', sn);
			return off + sn;
		}
		if (!(n = token_at(p)))
			n = jwt_at(p);
		if (n && (sn = aws_secret_after(p, n, &off)))
			memset(p + n + off, '*', sn);
	}
	if (n > len - i)
		n = len - i;
	memset(p, '*', n);
	return n + (sn ? off + sn : 0);
}

/* A binary file (a NUL byte among its first 8000, as git decides; not a log, not JSON): scrubbed byte-exactly,
 * for its length and offsets are its format (binary_scrub_at()); nothing else changes. Larger than
 * SCRUB_BINARY_MAX: left as it is (larger than every bundle member's limit, so pack refuses it by name).
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
	if ((size_t)st.st_size > SCRUB_BINARY_MAX)
		return 0;
	if ((err = fs_read_file(&buf, &len, path, SCRUB_BINARY_MAX)) < 0)
		return err;
	for (size_t i = 0; i < len;) {
		size_t n = binary_scrub_at(buf, i, len, values);

		changed |= n != 0;
		i += n ? n : 1;
	}
	if (changed)
		err = fs_write_file(path, buf, len, 0644);
	free(buf);
	return err;
}

int scrub_file(const char *path, const struct strvec *values)
{
	char *tmp = xstrfmt("%s.tmp", path), *line = NULL;
	FILE *in = NULL, *out = NULL;
	struct strbuf sb = STRBUF_INIT, lg = STRBUF_INIT;
	size_t cap = 0;
	ssize_t n;
	struct text_state st = TEXT_STATE_INIT, fresh = TEXT_STATE_INIT;
	int err = 0, changed = 0, saved;

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
		scrub_logical(&sb, path, lg.buf, len, values, by_key, &st);
		changed = sb.len != len || memcmp(sb.buf, lg.buf, len);
	}
	if (!changed) {
		if (ferror(in))
			err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	rewind(in);
	st = fresh;
	{ /* a new file, never one already there: a link named like it is not written through */
		int ofd = fs_open_new(tmp, 0644);

		if (ofd >= 0 && !(out = fdopen(ofd, "wb")))
			close(ofd);
	}
	if (!out) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	while ((n = getline_logical(&lg, &line, &cap, in)) > 0) {
		size_t len = (size_t)n;
		int nl = lg.buf[len - 1] == '\n';

		strbuf_reset(&sb);
		scrub_logical(&sb, path, lg.buf, len - (size_t)nl, values, by_key, &st);
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
	if (fclose(out) != 0 || fs_rename(tmp, path) != 0) {
		out = NULL;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	out = NULL;
cleanup:
	saved = errno;
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	if (err)
		fs_unlink(tmp);
	free(line);
	free(tmp);
	strbuf_release(&sb);
	strbuf_release(&lg);
	errno = saved; /* why it failed, for scrub_dir (ENOSPC) */
	return err;
}

/* scrub_dir()'s walk: the secret values, the member limits, the first name refused (its message: refused once
 * every file is scrubbed) and the errno of a full disk */
struct scrub_walk {
	const struct strvec *secrets;
	uint64_t (*limit)(const char *rel);
	char *refused;
	int errnum;
};

/* the most bytes the file rel + name may hold in a bundle (SCRUB_BINARY_MAX without a limit function) */
static uint64_t limit_of(uint64_t (*limit)(const char *rel), const char *rel, const char *name)
{
	char *r;
	uint64_t n;

	if (!limit)
		return SCRUB_BINARY_MAX;
	r = xstrfmt("%s%s", rel, name);
	n = limit(r);
	free(r);
	return n;
}

/* the refusal of rel + name when the name holds a secret, the path shown redacted (a name is never rewritten:
 * refused, as pack refuses the rest): the value of a secret variable, or what a secret rule matches (a token shape,
 * user:password@host, password=..., as bundle_pack() refuses it); else NULL */
static char *name_refusal(const char *rel, const char *name, const struct strvec *secrets)
{
	struct strbuf sb = STRBUF_INIT;
	char *path, *shown, *msg, *red = scrub_redact_value(name);
	int rule = strcmp(red, name) != 0;
	size_t i = 0;

	free(red);
	while (secrets && i < secrets->n && !strstr(name, secrets->v[i]))
		i++;
	if (!rule && (!secrets || i == secrets->n))
		return NULL;
	path = xstrfmt("%s%s", rel, name);
	scrub_text(&sb, path, strlen(path), secrets); /* rel too: a directory refused already is still walked */
	shown = scrub_redact_value(sb.buf ? sb.buf : "");
	msg = xstrfmt("'%s': a file name that holds %s (shown redacted); rename or remove it, then run 'bench pack' "
		      "again", shown, secrets && i < secrets->n ? "the value of a secret variable" : "a secret");
	strbuf_release(&sb);
	free(shown);
	free(path);
	return msg;
}

/* Every file of dir (recursively, links not followed) scrubbed with the same rules (scrub.h): a file that cannot
 * be scrubbed is removed rather than packed with a secret in it, except on a full disk, which stops the scrub with
 * the file as it was. A hard link or a file over its bundle member limit is not read: pack refuses it by name. The
 * manifest and its lock are the run's inputs, signed by their digests: they are kept as they are. A name holding a
 * secret is noted in w and the walk goes on: the run's own secret values are scrubbed from every file even when
 * the directory is refused (a later bench pack by hand may not know them). */
static int scrub_dir_rel(struct scrub_walk *w, const char *dir, const char *rel)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	int err = 0;

	while (!err && dh && (e = readdir(dh))) {
		struct stat st;
		char *p;

		/* a file named *.tmp is a runner's or one a killed bench left: packed, so scrubbed (the scrubber's own
		 * temporary files are renamed over their files before the walk reads on) */
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".bench-lock"))
			continue;
		/* the run's space in reserve (256 KiB and 1 KiB per case of zeros), never packed: read as a binary file it
		 * was most of a run's scrub */
		if (!*rel && !strcmp(e->d_name, ".bench-reserve"))
			continue;
		if (!*rel && (!strcmp(e->d_name, "manifest.yaml") || !strcmp(e->d_name, "manifest.lock.json") ||
			      !strcmp(e->d_name, "inputs"))) /* inputs/: the plug-ins' files, as the lock pins them */
			continue;
		if (!w->refused)
			w->refused = name_refusal(rel, e->d_name, w->secrets);
		p = xstrfmt("%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *r2 = xstrfmt("%s%s/", rel, e->d_name);

			err = scrub_dir_rel(w, p, r2);
			free(r2);
		} else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
			   (uint64_t)st.st_size <= limit_of(w->limit, rel, e->d_name) &&
			   scrub_file(p, w->secrets) < 0) {
			if (errno == ENOSPC || errno == EDQUOT) {
				w->errnum = errno;
				err = bench_error_set(BENCH_E_IO, "no space left on device in '%s' to scrub '%s%s'; nothing was "
						      "removed or packed: free space, then try again", dir, rel, e->d_name);
			} else {
				fprintf(stderr, "bench: warning: %s; removing '%s%s' rather than packing it unscrubbed\n",
					bench_error_last(), rel, e->d_name);
				fs_unlink(p);
			}
		}
		free(p);
	}
	if (dh)
		closedir(dh);
	return err;
}

int scrub_dir(const char *dir, const struct strvec *values, uint64_t (*limit)(const char *rel))
{
	struct scrub_walk w = { values, limit, NULL, 0 };
	int err = scrub_dir_rel(&w, dir, "");

	if (!err && w.refused)
		err = bench_error_set(BENCH_E_FAIL, "%s", w.refused);
	free(w.refused);
	errno = w.errnum; /* ENOSPC or EDQUOT: a full disk; 0 for anything else */
	return err;
}
