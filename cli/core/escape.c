/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/strbuf.h"

/* 1 for a code point that is shown as \xNN although it is well-formed: C1; the bidirectional embeddings,
 * overrides, isolates and marks, which reorder what a terminal shows; the invisible ones (zero-width space,
 * joiners, word joiner, invisible operators and the deprecated format controls U+206A..206F, the byte order mark,
 * the soft hyphen, the combining grapheme joiner, the Mongolian vowel separator, the interlinear annotation
 * characters, the variation selectors, the tag characters and the Hangul fillers), the line and paragraph
 * separators, which split text, and the noncharacters (U+FDD0..FDEF and the last two of every plane): every
 * format character (general category Cf: the prepended concatenation marks U+0600..0605 and their kin, which
 * draw over what follows, the shorthand and musical format controls) and every default-ignorable code point
 * of Unicode 15 (the Mongolian variation selectors U+180B..180F, U+E0000..E0FFF) among them */
static int cp_hidden(unsigned cp)
{
	return cp <= 0x9f || cp == 0x00ad || cp == 0x034f || (cp >= 0x0600 && cp <= 0x0605) || cp == 0x061c ||
	       cp == 0x06dd || cp == 0x070f || cp == 0x0890 || cp == 0x0891 || cp == 0x08e2 || cp == 0x115f ||
	       cp == 0x1160 || cp == 0x17b4 || cp == 0x17b5 || (cp >= 0x180b && cp <= 0x180f) ||
	       (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 || (cp >= 0xfdd0 && cp <= 0xfdef) ||
	       (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff || cp == 0xffa0 || (cp >= 0xfff0 && cp <= 0xfffb) ||
	       (cp & 0xfffe) == 0xfffe || cp == 0x110bd || cp == 0x110cd || (cp >= 0x13430 && cp <= 0x1343f) ||
	       (cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a) || (cp >= 0xe0000 && cp <= 0xe0fff);
}

/* One step of the escaper at s: sets *len to the bytes it covers and returns 1 when they must be shown as \xNN
 * (C0, DEL, a C1 code point U+0080..U+009F, a byte that does not start a well-formed UTF-8 sequence: an
 * overlong form, a surrogate, a value past U+10FFFF, a stray continuation byte, a sequence cut short), 0 when
 * they are a printable character copied as they are. Every escaped byte is one \xNN: the output is ASCII plus
 * well-formed UTF-8 sequences, so that a terminal in an 8-bit mode never sees a C1 byte and a JSON encoder
 * never refuses it. */
static int step_at(const unsigned char *s, size_t *len, unsigned *cpo)
{
	unsigned cp, need, min;

	*len = 1;
	if (cpo)
		*cpo = *s;
	if (*s < 0x80)
		return *s < 0x20 || *s == 0x7f;
	if (*s >= 0xc2 && *s <= 0xdf)
		need = 1, cp = *s & 0x1f, min = 0x80;
	else if (*s >= 0xe0 && *s <= 0xef)
		need = 2, cp = *s & 0x0f, min = 0x800;
	else if (*s >= 0xf0 && *s <= 0xf4)
		need = 3, cp = *s & 0x07, min = 0x10000;
	else
		return 1; /* a continuation byte, 0xc0, 0xc1 or 0xf5..0xff: never the start of a character */
	for (unsigned k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 1; /* cut short (the NUL terminator included): this byte alone, the next one read afresh */
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 1;
	*len = need + 1;
	if (cpo)
		*cpo = cp;
	return cp_hidden(cp);
}

/* The code points that Unicode normalisation may change or join to the character before them (Unicode 14.0):
 * a non-zero canonical combining class, NFC_Quick_Check No or Maybe (the singletons such as U+212B ANGSTROM SIGN,
 * the composition exclusions, the second half of a canonical composition such as the Hangul vowels and finals).
 * A name without any of them is in NFC, and two such names are canonically equivalent only when they are equal.
 * Made by: for every c, unicodedata.combining(c) or normalize('NFC', c) != c or not is_normalized('NFC', 'a' + c),
 * and the second code point of every two-part canonical decomposition; and the Hangul vowels and finals
 * U+1161..1175, U+11A8..11C2, which NFC joins to a leading consonant or an LV syllable by rule, not by table
 * (is_normalized('NFC', '\u1100' + c) is false). */
static const struct { unsigned lo, hi; } nfc_unstable[] = {
	{ 0x300, 0x34e }, { 0x350, 0x36f }, { 0x374, 0x374 }, { 0x37e, 0x37e }, { 0x387, 0x387 }, { 0x483, 0x487 },
	{ 0x591, 0x5bd }, { 0x5bf, 0x5bf }, { 0x5c1, 0x5c2 }, { 0x5c4, 0x5c5 }, { 0x5c7, 0x5c7 }, { 0x610, 0x61a },
	{ 0x64b, 0x65f }, { 0x670, 0x670 }, { 0x6d6, 0x6dc }, { 0x6df, 0x6e4 }, { 0x6e7, 0x6e8 }, { 0x6ea, 0x6ed },
	{ 0x711, 0x711 }, { 0x730, 0x74a }, { 0x7eb, 0x7f3 }, { 0x7fd, 0x7fd }, { 0x816, 0x819 }, { 0x81b, 0x823 },
	{ 0x825, 0x827 }, { 0x829, 0x82d }, { 0x859, 0x85b }, { 0x898, 0x89f }, { 0x8ca, 0x8e1 }, { 0x8e3, 0x8ff },
	{ 0x93c, 0x93c }, { 0x94d, 0x94d }, { 0x951, 0x954 }, { 0x958, 0x95f }, { 0x9bc, 0x9bc }, { 0x9be, 0x9be },
	{ 0x9cd, 0x9cd }, { 0x9d7, 0x9d7 }, { 0x9dc, 0x9dd }, { 0x9df, 0x9df }, { 0x9fe, 0x9fe }, { 0xa33, 0xa33 },
	{ 0xa36, 0xa36 }, { 0xa3c, 0xa3c }, { 0xa4d, 0xa4d }, { 0xa59, 0xa5b }, { 0xa5e, 0xa5e }, { 0xabc, 0xabc },
	{ 0xacd, 0xacd }, { 0xb3c, 0xb3c }, { 0xb3e, 0xb3e }, { 0xb4d, 0xb4d }, { 0xb56, 0xb57 }, { 0xb5c, 0xb5d },
	{ 0xbbe, 0xbbe }, { 0xbcd, 0xbcd }, { 0xbd7, 0xbd7 }, { 0xc3c, 0xc3c }, { 0xc4d, 0xc4d }, { 0xc55, 0xc56 },
	{ 0xcbc, 0xcbc }, { 0xcc2, 0xcc2 }, { 0xccd, 0xccd }, { 0xcd5, 0xcd6 }, { 0xd3b, 0xd3c }, { 0xd3e, 0xd3e },
	{ 0xd4d, 0xd4d }, { 0xd57, 0xd57 }, { 0xdca, 0xdca }, { 0xdcf, 0xdcf }, { 0xddf, 0xddf }, { 0xe38, 0xe3a },
	{ 0xe48, 0xe4b }, { 0xeb8, 0xeba }, { 0xec8, 0xecb }, { 0xf18, 0xf19 }, { 0xf35, 0xf35 }, { 0xf37, 0xf37 },
	{ 0xf39, 0xf39 }, { 0xf43, 0xf43 }, { 0xf4d, 0xf4d }, { 0xf52, 0xf52 }, { 0xf57, 0xf57 }, { 0xf5c, 0xf5c },
	{ 0xf69, 0xf69 }, { 0xf71, 0xf76 }, { 0xf78, 0xf78 }, { 0xf7a, 0xf7d }, { 0xf80, 0xf84 }, { 0xf86, 0xf87 },
	{ 0xf93, 0xf93 }, { 0xf9d, 0xf9d }, { 0xfa2, 0xfa2 }, { 0xfa7, 0xfa7 }, { 0xfac, 0xfac }, { 0xfb5, 0xfb5 },
	{ 0xfb7, 0xfb7 }, { 0xfb9, 0xfb9 }, { 0xfc6, 0xfc6 }, { 0x102e, 0x102e }, { 0x1037, 0x1037 }, { 0x1039, 0x103a },
	{ 0x108d, 0x108d }, { 0x1161, 0x1175 }, { 0x11a8, 0x11c2 }, { 0x135d, 0x135f }, { 0x1714, 0x1715 }, { 0x1734, 0x1734 }, { 0x17d2, 0x17d2 },
	{ 0x17dd, 0x17dd }, { 0x18a9, 0x18a9 }, { 0x1939, 0x193b }, { 0x1a17, 0x1a18 }, { 0x1a60, 0x1a60 },
	{ 0x1a75, 0x1a7c }, { 0x1a7f, 0x1a7f }, { 0x1ab0, 0x1abd }, { 0x1abf, 0x1ace }, { 0x1b34, 0x1b35 },
	{ 0x1b44, 0x1b44 }, { 0x1b6b, 0x1b73 }, { 0x1baa, 0x1bab }, { 0x1be6, 0x1be6 }, { 0x1bf2, 0x1bf3 },
	{ 0x1c37, 0x1c37 }, { 0x1cd0, 0x1cd2 }, { 0x1cd4, 0x1ce0 }, { 0x1ce2, 0x1ce8 }, { 0x1ced, 0x1ced },
	{ 0x1cf4, 0x1cf4 }, { 0x1cf8, 0x1cf9 }, { 0x1dc0, 0x1dff }, { 0x1f71, 0x1f71 }, { 0x1f73, 0x1f73 },
	{ 0x1f75, 0x1f75 }, { 0x1f77, 0x1f77 }, { 0x1f79, 0x1f79 }, { 0x1f7b, 0x1f7b }, { 0x1f7d, 0x1f7d },
	{ 0x1fbb, 0x1fbb }, { 0x1fbe, 0x1fbe }, { 0x1fc9, 0x1fc9 }, { 0x1fcb, 0x1fcb }, { 0x1fd3, 0x1fd3 },
	{ 0x1fdb, 0x1fdb }, { 0x1fe3, 0x1fe3 }, { 0x1feb, 0x1feb }, { 0x1fee, 0x1fef }, { 0x1ff9, 0x1ff9 },
	{ 0x1ffb, 0x1ffb }, { 0x1ffd, 0x1ffd }, { 0x2000, 0x2001 }, { 0x20d0, 0x20dc }, { 0x20e1, 0x20e1 },
	{ 0x20e5, 0x20f0 }, { 0x2126, 0x2126 }, { 0x212a, 0x212b }, { 0x2329, 0x232a }, { 0x2adc, 0x2adc },
	{ 0x2cef, 0x2cf1 }, { 0x2d7f, 0x2d7f }, { 0x2de0, 0x2dff }, { 0x302a, 0x302f }, { 0x3099, 0x309a },
	{ 0xa66f, 0xa66f }, { 0xa674, 0xa67d }, { 0xa69e, 0xa69f }, { 0xa6f0, 0xa6f1 }, { 0xa806, 0xa806 },
	{ 0xa82c, 0xa82c }, { 0xa8c4, 0xa8c4 }, { 0xa8e0, 0xa8f1 }, { 0xa92b, 0xa92d }, { 0xa953, 0xa953 },
	{ 0xa9b3, 0xa9b3 }, { 0xa9c0, 0xa9c0 }, { 0xaab0, 0xaab0 }, { 0xaab2, 0xaab4 }, { 0xaab7, 0xaab8 },
	{ 0xaabe, 0xaabf }, { 0xaac1, 0xaac1 }, { 0xaaf6, 0xaaf6 }, { 0xabed, 0xabed }, { 0xf900, 0xfa0d },
	{ 0xfa10, 0xfa10 }, { 0xfa12, 0xfa12 }, { 0xfa15, 0xfa1e }, { 0xfa20, 0xfa20 }, { 0xfa22, 0xfa22 },
	{ 0xfa25, 0xfa26 }, { 0xfa2a, 0xfa6d }, { 0xfa70, 0xfad9 }, { 0xfb1d, 0xfb1f }, { 0xfb2a, 0xfb36 },
	{ 0xfb38, 0xfb3c }, { 0xfb3e, 0xfb3e }, { 0xfb40, 0xfb41 }, { 0xfb43, 0xfb44 }, { 0xfb46, 0xfb4e },
	{ 0xfe20, 0xfe2f }, { 0x101fd, 0x101fd }, { 0x102e0, 0x102e0 }, { 0x10376, 0x1037a }, { 0x10a0d, 0x10a0d },
	{ 0x10a0f, 0x10a0f }, { 0x10a38, 0x10a3a }, { 0x10a3f, 0x10a3f }, { 0x10ae5, 0x10ae6 }, { 0x10d24, 0x10d27 },
	{ 0x10eab, 0x10eac }, { 0x10f46, 0x10f50 }, { 0x10f82, 0x10f85 }, { 0x11046, 0x11046 }, { 0x11070, 0x11070 },
	{ 0x1107f, 0x1107f }, { 0x110b9, 0x110ba }, { 0x11100, 0x11102 }, { 0x11127, 0x11127 }, { 0x11133, 0x11134 },
	{ 0x11173, 0x11173 }, { 0x111c0, 0x111c0 }, { 0x111ca, 0x111ca }, { 0x11235, 0x11236 }, { 0x112e9, 0x112ea },
	{ 0x1133b, 0x1133c }, { 0x1133e, 0x1133e }, { 0x1134d, 0x1134d }, { 0x11357, 0x11357 }, { 0x11366, 0x1136c },
	{ 0x11370, 0x11374 }, { 0x11442, 0x11442 }, { 0x11446, 0x11446 }, { 0x1145e, 0x1145e }, { 0x114b0, 0x114b0 },
	{ 0x114ba, 0x114ba }, { 0x114bd, 0x114bd }, { 0x114c2, 0x114c3 }, { 0x115af, 0x115af }, { 0x115bf, 0x115c0 },
	{ 0x1163f, 0x1163f }, { 0x116b6, 0x116b7 }, { 0x1172b, 0x1172b }, { 0x11839, 0x1183a }, { 0x11930, 0x11930 },
	{ 0x1193d, 0x1193e }, { 0x11943, 0x11943 }, { 0x119e0, 0x119e0 }, { 0x11a34, 0x11a34 }, { 0x11a47, 0x11a47 },
	{ 0x11a99, 0x11a99 }, { 0x11c3f, 0x11c3f }, { 0x11d42, 0x11d42 }, { 0x11d44, 0x11d45 }, { 0x11d97, 0x11d97 },
	{ 0x16af0, 0x16af4 }, { 0x16b30, 0x16b36 }, { 0x16ff0, 0x16ff1 }, { 0x1bc9e, 0x1bc9e }, { 0x1d15e, 0x1d169 },
	{ 0x1d16d, 0x1d172 }, { 0x1d17b, 0x1d182 }, { 0x1d185, 0x1d18b }, { 0x1d1aa, 0x1d1ad }, { 0x1d1bb, 0x1d1c0 },
	{ 0x1d242, 0x1d244 }, { 0x1e000, 0x1e006 }, { 0x1e008, 0x1e018 }, { 0x1e01b, 0x1e021 }, { 0x1e023, 0x1e024 },
	{ 0x1e026, 0x1e02a }, { 0x1e130, 0x1e136 }, { 0x1e2ae, 0x1e2ae }, { 0x1e2ec, 0x1e2ef }, { 0x1e8d0, 0x1e8d6 },
	{ 0x1e944, 0x1e94a }, { 0x2f800, 0x2fa1d },
};

int esc_not_nfc(const char *s)
{
	unsigned cp;
	size_t n;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p += n) {
		size_t lo = 0, hi = sizeof(nfc_unstable) / sizeof(*nfc_unstable);

		if (step_at(p, &n, &cp) || cp < 0x300)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cp > nfc_unstable[mid].hi)
				lo = mid + 1;
			else if (cp < nfc_unstable[mid].lo)
				hi = mid;
			else
				return 1;
		}
	}
	return 0;
}

int esc_needed(const char *s)
{
	size_t n;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p += n)
		if (step_at(p, &n, NULL))
			return 1;
	return 0;
}

char *esc_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n) {
		if (!step_at(p, &n, NULL)) {
			strbuf_add(&sb, p, n);
			continue;
		}
		for (size_t k = 0; k < n; k++)
			strbuf_addf(&sb, "\\x%02x", p[k]);
	}
	return strbuf_detach(&sb);
}

char *esc_json_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned cp;
	size_t n;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n) {
		if (!step_at(p, &n, &cp)) {
			strbuf_add(&sb, p, n);
		} else if (cp < 0x20) {
			strbuf_add(&sb, p, n); /* the encoder's own newlines between tokens (it escapes those in strings) */
		} else if (cp >= 0x80 && n == 1) {
			strbuf_addstr(&sb, "\\ufffd"); /* not well-formed UTF-8: no encoder writes it */
		} else if (cp >= 0x10000) {
			cp -= 0x10000;
			strbuf_addf(&sb, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
		} else {
			strbuf_addf(&sb, "\\u%04x", cp);
		}
	}
	return strbuf_detach(&sb);
}

char *esc_utf8(const char *s)
{
	size_t n;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n)
		if (step_at(p, &n, NULL) && n == 1 && *p >= 0x80) /* a byte of no well-formed sequence */
			return esc_text(s);
	return xstrdup(s);
}

json_t *esc_json_string(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;

	if (s && !j) {
		char *e = esc_utf8(s);

		j = json_string(e);
		free(e);
	}
	return j;
}

/* j's string set to e; a value jansson still refuses (it cannot be: e is ASCII and well-formed UTF-8) becomes
 * empty rather than keeping the unescaped original */
static void set_escaped(json_t *j, const char *e)
{
	if (json_string_set(j, e) < 0)
		json_string_set(j, "");
}

/* every string of j, at any depth, through fn, set where fn gives a new string (NULL: unchanged); the keys too when
 * keys */
static void tree_map(json_t *j, char *(*fn)(const char *), int keys)
{
	if (json_is_string(j)) {
		char *e = fn(json_string_value(j));

		if (e)
			set_escaped(j, e);
		free(e);
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;

		json_array_foreach(j, i, v)
			tree_map(v, fn, keys);
	} else if (json_is_object(j)) {
		const char *k;
		json_t *v, *renamed = json_object();
		void *tmp;

		json_object_foreach_safe(j, tmp, k, v) {
			char *e = keys ? fn(k) : NULL;

			tree_map(v, fn, keys);
			if (e) {
				json_object_set(renamed, e, v);
				json_object_del(j, k);
			}
			free(e);
		}
		json_object_update(j, renamed);
		json_decref(renamed);
	}
}

static char *text_if_needed(const char *s)
{
	return esc_needed(s) ? esc_text(s) : NULL;
}

void esc_json_tree(json_t *j)
{
	tree_map(j, text_if_needed, 1);
}

static char *markdown_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *e = esc_text(s);

	for (const char *p = e; *p; p++) {
		switch (*p) {
		case '|':
		case '\\':
		case '`':
		case '[': /* links and images: [text](url), ![alt](url) */
		case ']':
		case '!':
		case '*': /* emphasis, strikethrough, headings */
		case '_':
		case '~':
		case '#':
		case '$': /* GitHub's math: $x^2$ */
		case '@': /* GitHub's autolinks: an e-mail address, mailto: and xmpp: */
			strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
			break;
		case ':': /* GitHub's autolinks: http://, https://, ftp:// */
			if (p[1] == '/')
				strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
			break;
		case '.': /* GitHub's autolinks: www.host, whatever the word before */
			if (p - e >= 3 && !strncasecmp(p - 3, "www", 3))
				strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
			break;
		case '&':
			strbuf_addstr(&sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(&sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(&sb, "&gt;");
			break;
		default:
			strbuf_addch(&sb, *p);
		}
	}
	free(e);
	return strbuf_detach(&sb);
}

void esc_json_tree_markdown(json_t *j)
{
	tree_map(j, markdown_text, 0);
}

void esc_csv_field(FILE *f, const char *s)
{
	int formula;

	if (!s)
		return;
	formula = strchr("=+-@\t\r", *s) && *s;
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void esc_html(struct strbuf *o, const char *s)
{
	char *t = esc_needed(s) ? esc_text(s) : NULL; /* controls, bidi overrides, bad UTF-8: \xNN, as on a terminal */

	for (const char *c = t ? t : s; c && *c; c++)
		switch (*c) {
		case '&':
			strbuf_addstr(o, "&amp;");
			break;
		case '<':
			strbuf_addstr(o, "&lt;");
			break;
		case '>':
			strbuf_addstr(o, "&gt;");
			break;
		case '"':
			strbuf_addstr(o, "&quot;");
			break;
		case '\'':
			strbuf_addstr(o, "&#39;");
			break;
		default:
			strbuf_addch(o, *c);
		}
	free(t);
}
