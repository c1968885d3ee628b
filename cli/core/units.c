/* SPDX-License-Identifier: Apache-2.0 */
#include "units.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double units_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
	{ "KB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull }, { "TB", 1000000000000ull },
	{ NULL, 0 },
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1000ull }, { "ms", 1000000ull }, { "s", 1000000000ull },
	{ "m", 60000000000ull }, { "h", 3600000000000ull },
	{ NULL, 0 },
};

/*
 * Splits "123.45unit" into an exact rational: whole part, fraction digits and their scale. Returns the
 * position of the unit or NULL when there are no digits.
 */
static const char *parse_decimal(const char *s, uint64_t *whole, uint64_t *frac, uint64_t *scale, int *overflow)
{
	const char *p = s;

	*whole = 0;
	*frac = 0;
	*scale = 1;
	*overflow = 0;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		if (*whole > (UINT64_MAX - 9) / 10)
			*overflow = 1;
		else
			*whole = *whole * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p)) {
			if (*scale > UINT64_MAX / 100)
				*overflow = 1;
			else {
				*frac = *frac * 10 + (uint64_t)(*p - '0');
				*scale *= 10;
			}
			p++;
		}
	}
	return p;
}

static int scaled(uint64_t *out, uint64_t whole, uint64_t frac, uint64_t scale, uint64_t mult, int *inexact)
{
	unsigned __int128 v = (unsigned __int128)whole * mult;
	unsigned __int128 f = (unsigned __int128)frac * mult;

	*inexact = (f % scale) != 0;
	v += f / scale;
	if (v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static const struct unit *find_unit(const struct unit *units, const char *name)
{
	for (size_t i = 0; units[i].name; i++)
		if (!strcmp(units[i].name, name))
			return &units[i];
	return NULL;
}

int units_parse_size(uint64_t *out, const char *s, char *why, size_t whylen)
{
	uint64_t whole, frac, scale, v;
	const struct unit *u;
	const char *rest;
	int overflow, inexact;

	rest = parse_decimal(s, &whole, &frac, &scale, &overflow);
	if (!rest) {
		snprintf(why, whylen, "expected a size such as 4096, 64MiB or 2GiB");
		return -1;
	}
	if (*rest == '\0') {
		if (scale != 1) {
			snprintf(why, whylen, "a size without a unit must be a whole number of bytes");
			return -1;
		}
		u = &size_units[0];
	} else if (!(u = find_unit(size_units, rest))) {
		snprintf(why, whylen, "unknown size unit '%s' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)", rest);
		return -1;
	}
	if (overflow || scaled(&v, whole, frac, scale, u->mult, &inexact) < 0 || v > UNITS_SIZE_MAX) {
		snprintf(why, whylen, "size is larger than 1 PiB");
		return -1;
	}
	if (inexact) {
		snprintf(why, whylen, "size is not a whole number of bytes");
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_duration(uint64_t *out_ns, const char *s, char *why, size_t whylen)
{
	uint64_t whole, frac, scale, v;
	const struct unit *u;
	const char *rest;
	int overflow, inexact;

	rest = parse_decimal(s, &whole, &frac, &scale, &overflow);
	if (!rest) {
		snprintf(why, whylen, "expected a duration such as 500ms, 30s, 10m or 2h");
		return -1;
	}
	if (*rest == '\0') {
		snprintf(why, whylen, "a duration needs a unit (ns, us, ms, s, m or h)");
		return -1;
	}
	if (!(u = find_unit(time_units, rest))) {
		snprintf(why, whylen, "unknown duration unit '%s' (use ns, us, ms, s, m or h)", rest);
		return -1;
	}
	/* 30 days is far beyond any sensible budget or timeout */
	if (overflow || scaled(&v, whole, frac, scale, u->mult, &inexact) < 0 || v > 30ull * 24 * 3600000000000ull) {
		snprintf(why, whylen, "duration is longer than 30 days");
		return -1;
	}
	if (inexact) {
		snprintf(why, whylen, "duration is not a whole number of nanoseconds");
		return -1;
	}
	*out_ns = v;
	return 0;
}

void units_format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t i = 0;

	while (i < 4 && bytes != 0 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", bytes, names[i]);
}

void units_format_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct unit order[] = {
		{ "h", 3600000000000ull }, { "m", 60000000000ull }, { "s", 1000000000ull },
		{ "ms", 1000000ull }, { "us", 1000ull }, { "ns", 1 },
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (ns != 0 && ns % order[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / order[i].mult, order[i].name);
			return;
		}
	}
	snprintf(buf, len, "0s");
}

/* The SI prefixes a scaled unit may take, by power of 1000 (index 0: 10^-9). */
static const char *const si_prefix[] = { "n", "u", "m", "", "k", "M", "G", "T", "P" };
#define SI_ONE 3 /* index of the bare unit */

struct scaled_base {
	const char *base; /* the unit without its prefix */
	int lo, hi;       /* the prefixes it may take (indices into si_prefix) */
};

static const struct scaled_base scaled_bases[] = {
	{ "FLOP/s", SI_ONE, 8 },
	{ "B/s", SI_ONE, 8 },
	{ "s", 0, SI_ONE },
};

/* Which base unit and prefix index unit spells; -1 when it is none of them. */
static int scaled_split(const char *unit, const struct scaled_base **base)
{
	for (size_t b = 0; b < sizeof(scaled_bases) / sizeof(*scaled_bases); b++) {
		size_t ul = strlen(unit), bl = strlen(scaled_bases[b].base);

		if (ul < bl || strcmp(unit + ul - bl, scaled_bases[b].base))
			continue;
		for (int p = scaled_bases[b].lo; p <= scaled_bases[b].hi; p++)
			if (strlen(si_prefix[p]) == ul - bl && !strncmp(unit, si_prefix[p], ul - bl)) {
				*base = &scaled_bases[b];
				return p;
			}
	}
	return -1;
}

/* Digits after the point that give v 3 significant digits (none for 100 and above). */
static int sig3_decimals(double v)
{
	int d;

	if (v == 0)
		return 0;
	d = 2 - (int)floor(log10(fabs(v)));
	return d < 0 ? 0 : d;
}

void units_format_scaled(char *buf, size_t len, double value, const char *unit)
{
	const struct scaled_base *base = NULL;
	int p = unit ? scaled_split(unit, &base) : -1, e, d;
	double v;

	if (!isfinite(value)) {
		snprintf(buf, len, "-");
		return;
	}
	if (p < 0) {
		snprintf(buf, len, "%.4g%s%s", value, unit && *unit ? " " : "", unit ? unit : "");
		return;
	}
	if (value == 0) {
		snprintf(buf, len, "0 %s", unit);
		return;
	}
	/* the power of 1000 that puts |value| in [1, 1000), within the prefixes the base takes */
	e = p + (int)floor(log10(fabs(value)) / 3);
	if (e < base->lo)
		e = base->lo;
	if (e > base->hi)
		e = base->hi;
	for (;;) {
		v = value * pow(1000.0, p - e);
		d = sig3_decimals(v);
		/* 999.7 rounds to 1000: one prefix up, when there is one */
		if (fabs(round(v * pow(10, d)) / pow(10, d)) >= 1000 && e < base->hi) {
			e++;
			continue;
		}
		break;
	}
	/* 0.9997 rounds to 1.000: one digit fewer */
	if (d > 0 && fabs(round(v * pow(10, d)) / pow(10, d)) >= pow(10, 3 - d))
		d--;
	snprintf(buf, len, "%.*f %s%s", d, v, si_prefix[e], base->base);
}
