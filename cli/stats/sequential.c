/* SPDX-License-Identifier: Apache-2.0 */
/* sequential.c — bench run --rounds auto: looks, levels, the stop and rounds.json (sequential.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/escape.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "compare.h"
#include "sequential.h"

long sequential_looks(long max_rounds)
{
	if (max_rounds < SEQUENTIAL_MIN_ROUNDS)
		return 0;
	return max_rounds / 2 - 1 + (max_rounds % 2);
}

int sequential_is_look(long round, long max_rounds)
{
	if (round < SEQUENTIAL_MIN_ROUNDS || round > max_rounds)
		return 0;
	return round % 2 == 0 || round == max_rounds;
}

double sequential_level(double alpha, long max_rounds)
{
	long k = sequential_looks(max_rounds);

	return k > 0 ? alpha / (double)k : NAN;
}

/* the next look after round (max_rounds past the last) */
static long next_look(long round, long max_rounds)
{
	long r = round + 1;

	while (r < max_rounds && !sequential_is_look(r, max_rounds))
		r++;
	return r;
}

enum sequential_reason sequential_decide(const struct sequential *s, long round, double worst, size_t ncomparable,
					 double elapsed_s)
{
	if (!sequential_is_look(round, s->max_rounds))
		return round >= s->max_rounds ? SEQUENTIAL_MAX_ROUNDS_HIT : SEQUENTIAL_GO_ON;
	if (!ncomparable)
		return SEQUENTIAL_NOTHING;
	if (!isnan(worst) && worst <= s->detect)
		return SEQUENTIAL_DETECT;
	if (round >= s->max_rounds)
		return SEQUENTIAL_MAX_ROUNDS_HIT;
	if (s->max_time_s > 0 && round > 0 &&
	    elapsed_s + elapsed_s / (double)round * (double)(next_look(round, s->max_rounds) - round) > s->max_time_s)
		return SEQUENTIAL_MAX_TIME_HIT;
	return SEQUENTIAL_GO_ON;
}

const char *sequential_reason_name(enum sequential_reason r)
{
	static const char *const names[] = { "running", "detect", "max-rounds", "max-time", "nothing-comparable",
					     "interrupted", "failed" };

	return (size_t)r < sizeof(names) / sizeof(names[0]) ? names[r] : "failed";
}

json_t *sequential_design(const struct sequential *s)
{
	return json_pack("{s:s, s:f, s:I, s:f, s:f, s:f, s:I, s:o}", "method",
			 "Bonferroni split of alpha over the planned looks (every even round from 4, and the last)",
			 "alpha", s->alpha, "looks", (json_int_t)sequential_looks(s->max_rounds), "level",
			 sequential_level(s->alpha, s->max_rounds), "detect", s->detect, "threshold", s->threshold,
			 "max_rounds", (json_int_t)s->max_rounds, "max_time_s",
			 s->max_time_s > 0 ? json_real(s->max_time_s) : json_null());
}

void sequential_start(struct sequential *s)
{
	s->start_s = units_now_s();
	s->rounds = 0;
	s->reason = SEQUENTIAL_GO_ON;
	if (!s->looks)
		s->looks = json_array();
}

/* The comparison of dirs at level: compare's grouping of an interleaved set, the first stack the baseline. */
static int look_compare(json_t **out, char *const *dirs, size_t n, double level, double threshold)
{
	struct compare_opts co = { threshold, level, 2000, 0, NULL, NULL };
	struct compare_side *sides = NULL;
	struct compare_group *g = NULL;
	size_t ng = 0;
	int err;

	*out = NULL;
	if ((err = compare_load_all(&sides, dirs, n, &co)) < 0)
		return err;
	g = compare_group_runs(&ng, sides, n, NULL, 0);
	if (ng >= 2)
		*out = compare_build_groups(sides, g, ng, 0, &co);
	compare_groups_free(g, ng);
	compare_sides_free(sides, n);
	return 0;
}

int sequential_after_round(struct sequential *s, int *out_stop, char *const *dirs, size_t ndirs, long round)
{
	double level = sequential_level(s->alpha, s->max_rounds), worst = 0, elapsed;
	size_t ncomp = 0, nover = 0, i, j;
	const char *worst_case = NULL;
	json_t *r = NULL, *cases, *row, *o, *look;
	int err;

	*out_stop = 0;
	s->rounds = round;
	if (!sequential_is_look(round, s->max_rounds)) {
		s->reason = sequential_decide(s, round, NAN, 0, units_now_s() - s->start_s);
		*out_stop = s->reason != SEQUENTIAL_GO_ON;
		return 0;
	}
	if ((err = look_compare(&r, dirs, ndirs, level, s->threshold)) < 0)
		return err;
	cases = json_array();
	json_array_foreach(r ? json_object_get(r, "cases") : NULL, i, row) {
		json_array_foreach(json_object_get(row, "others"), j, o) {
			const char *verdict = json_string_value(json_object_get(o, "verdict"));
			json_t *res = json_object_get(o, "resolvable_975");
			char *key;

			if (!verdict || !strcmp(verdict, "not comparable") || !strcmp(verdict, "missing"))
				continue;
			ncomp++;
			key = xstrfmt("%s/%s", json_string_value(json_object_get(row, "suite")),
				      json_string_value(json_object_get(row, "case")));
			if (!json_is_number(res) || json_number_value(res) > s->detect)
				nover++;
			if (!json_is_number(res)) {
				worst = NAN;
			} else if (!isnan(worst) && json_number_value(res) >= worst) {
				worst = json_number_value(res);
				worst_case = json_string_value(json_object_get(row, "case"));
			}
			json_array_append_new(cases, json_pack("{s:s, s:s?, s:O?, s:s}", "case", key, "label",
							       json_string_value(json_object_get(o, "label")), "resolvable_975",
							       res, "verdict", verdict));
			free(key);
		}
	}
	elapsed = units_now_s() - s->start_s;
	s->reason = sequential_decide(s, round, worst, ncomp, elapsed);
	*out_stop = s->reason != SEQUENTIAL_GO_ON;
	look = json_pack("{s:I, s:I, s:f, s:f, s:o, s:I, s:I, s:s, s:o}", "look", (json_int_t)json_array_size(s->looks) + 1,
			 "round", (json_int_t)round, "elapsed_s", (double)(long long)(elapsed * 1000 + 0.5) / 1000, "level", level, "resolvable_975",
			 ncomp && !isnan(worst) ? json_real(worst) : json_null(), "cases_compared", (json_int_t)ncomp,
			 "cases_above_target", (json_int_t)nover, "decision",
			 s->reason == SEQUENTIAL_GO_ON ? "go on" : sequential_reason_name(s->reason), "cases", cases);
	json_array_append_new(s->looks, look);
	json_decref(s->last);
	s->last = r;
	if (!s->quiet) {
		fprintf(stderr, "bench: look %zu of %ld after round %ld (level %.3g): ", json_array_size(s->looks),
			sequential_looks(s->max_rounds), round, level);
		if (!ncomp)
			fprintf(stderr, "no case could be compared");
		else if (!nover)
			fprintf(stderr, "every one of %zu cases resolves %.1f%% with 97.5%% power (the largest change "
				"it needs: %.2f%%)", ncomp, 100 * s->detect, 100 * worst);
		else if (isnan(worst))
			fprintf(stderr, "%zu of %zu cases above the target %.1f%% (some untested)", nover, ncomp,
				100 * s->detect);
		else
			fprintf(stderr, "%zu of %zu cases resolve more than the target %.1f%% with 97.5%% power (the "
				"largest %.2f%%, %s)", nover, ncomp, 100 * s->detect, 100 * worst, worst_case ? worst_case : "?");
		fprintf(stderr, ": %s\n", s->reason == SEQUENTIAL_GO_ON ? "go on" : "stop");
	}
	return 0;
}

static char *stop_why(const struct sequential *s)
{
	json_t *look = json_array_get(s->looks, json_array_size(s->looks) - 1);
	long nover = (long)json_integer_value(json_object_get(look, "cases_above_target"));

	switch (s->reason) {
	case SEQUENTIAL_DETECT:
		return xstrfmt("every case resolves a change of %.1f%% with 97.5%% power", 100 * s->detect);
	case SEQUENTIAL_MAX_ROUNDS_HIT:
		return xstrfmt("the cap of %ld rounds (--max-rounds); %ld case(s) still resolve only more than %.1f%%",
			       s->max_rounds, nover, 100 * s->detect);
	case SEQUENTIAL_MAX_TIME_HIT:
		return xstrfmt("another look would end past --max-time (%.0f s); %ld case(s) still resolve only more "
			       "than %.1f%%", s->max_time_s, nover, 100 * s->detect);
	case SEQUENTIAL_NOTHING:
		return xstrfmt("no case could be compared at round %ld (see each run's status.json)", s->rounds);
	case SEQUENTIAL_INTERRUPTED:
		return xstrfmt("interrupted in round %ld; the runs made so far are kept", s->rounds + 1);
	case SEQUENTIAL_FAILED:
		return xstrfmt("stopped on an error after round %ld", s->rounds);
	case SEQUENTIAL_GO_ON:
		break;
	}
	return xstrdup("still running");
}

json_t *sequential_record(const struct sequential *s, char *const *dirs, size_t ndirs)
{
	json_t *runs = json_array(), *verdicts = json_null(), *look, *rec;
	char *why = stop_why(s);

	for (size_t i = 0; i < ndirs; i++) {
		const char *b = strrchr(dirs[i], '/');

		json_array_append_new(runs, esc_json_string(b && b[1] ? b + 1 : dirs[i]));
	}
	look = json_array_get(s->looks, json_array_size(s->looks) - 1);
	if (s->last && look)
		verdicts = json_pack("{s:O, s:O, s:O, s:O}", "round", json_object_get(look, "round"), "level",
				     json_object_get(look, "level"), "counts", json_object_get(s->last, "counts"), "summary",
				     json_object_get(s->last, "summary"));
	rec = json_pack("{s:s, s:o, s:I, s:{s:s, s:s}, s:o, s:o, s:o}", "schema", "bench.rounds/v1", "design",
			sequential_design(s), "rounds", (json_int_t)s->rounds, "stop", "reason",
			sequential_reason_name(s->reason), "why", why, "looks",
			s->looks ? json_incref(s->looks) : json_array(), "runs", runs, "verdicts", verdicts);
	free(why);
	return rec;
}

int sequential_write(const struct sequential *s, char *const *dirs, size_t ndirs)
{
	json_t *rec = sequential_record(s, dirs, ndirs), *l;
	char *text = json_dumps(rec, JSON_INDENT(1)), *why;
	size_t i;
	int err = 0;

	for (i = 0; i < ndirs && !err; i++) {
		char *p = xstrfmt("%s/rounds.json", dirs[i]);
		err = fs_write_file(p, text, strlen(text), 0644);
		free(p);
	}
	if (!s->quiet) {
		json_t *v = json_object_get(rec, "verdicts");

		why = stop_why(s);
		fprintf(stderr, "\nbench: rounds auto: stopped after %ld round(s): %s\n", s->rounds, why);
		free(why);
		if (json_is_object(v)) {
			fprintf(stderr, "verdicts of round %lld at level %.3g (alpha %g over %ld looks; bench compare RUN... "
				"uses it):\n", (long long)json_integer_value(json_object_get(v, "round")),
				json_number_value(json_object_get(v, "level")), s->alpha, sequential_looks(s->max_rounds));
			json_array_foreach(json_object_get(v, "summary"), i, l)
				fprintf(stderr, "  %s\n", json_string_value(l));
		}
	}
	free(text);
	json_decref(rec);
	return err;
}

void sequential_release(struct sequential *s)
{
	json_decref(s->looks);
	json_decref(s->last);
	s->looks = s->last = NULL;
}

void sequential_plan_of(int *found, double *level, double *threshold, json_t *const *statuses, size_t n)
{
	const char *group = NULL;
	json_t *plan = NULL;

	*found = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *il = statuses[i] ? json_object_get(statuses[i], "interleave") : NULL;
		json_t *seq = json_object_get(il, "sequential");
		const char *g = json_string_value(json_object_get(il, "group"));

		if (!json_is_object(seq) || !g || (group && strcmp(group, g)) || (plan && !json_equal(plan, seq)))
			return;
		group = g;
		plan = seq;
	}
	if (!plan || !json_is_number(json_object_get(plan, "level")))
		return;
	*found = 1;
	*level = json_number_value(json_object_get(plan, "level"));
	*threshold = json_number_value(json_object_get(plan, "threshold"));
}
