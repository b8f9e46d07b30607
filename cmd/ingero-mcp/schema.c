// SPDX-License-Identifier: MIT
/*
 * Checks tool arguments against the JSON Schema each tool publishes in
 * tools/list, so the published schema and the accepted input cannot
 * drift apart.  Only the keywords our schemas use are understood: type
 * (object, integer, number, string, boolean), properties, required,
 * additionalProperties:false, minimum, maximum, enum, maxLength.  A
 * schema using anything else is a bug caught by the tests that list
 * tools, not a user error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_int.h"

static int type_ok(const char *type, const json_t *v)
{
	if (!strcmp(type, "integer"))
		return json_is_integer(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "object"))
		return json_is_object(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	return 0;
}

static double num(const json_t *v)
{
	return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static int check_value(const char *name, const json_t *s, const json_t *v, char *err,
		       size_t errlen)
{
	const char *type = json_string_value(json_object_get(s, "type"));
	if (type && !type_ok(type, v)) {
		snprintf(err, errlen, "argument '%s' must be %s %s", name,
			 strchr("aeiou", type[0]) ? "an" : "a", type);
		return 1;
	}
	const json_t *lim;
	if ((lim = json_object_get(s, "minimum")) && num(v) < num(lim)) {
		snprintf(err, errlen, "argument '%s' must be at least %g", name, num(lim));
		return 1;
	}
	if ((lim = json_object_get(s, "maximum")) && num(v) > num(lim)) {
		snprintf(err, errlen, "argument '%s' must be at most %g", name, num(lim));
		return 1;
	}
	if ((lim = json_object_get(s, "maxLength")) && json_is_string(v) &&
	    json_string_length(v) > (size_t)json_integer_value(lim)) {
		snprintf(err, errlen, "argument '%s' is longer than %lld bytes", name,
			 (long long)json_integer_value(lim));
		return 1;
	}
	const json_t *en = json_object_get(s, "enum");
	if (en) {
		size_t i;
		const json_t *e;
		json_array_foreach(en, i, e)
			if (json_equal(e, v))
				return 0;
		char *all = json_dumps(en, JSON_COMPACT);
		snprintf(err, errlen, "argument '%s' must be one of %s", name, all ? all : "the enum");
		free(all);
		return 1;
	}
	return 0;
}

int mcp_schema_check(const json_t *schema, const json_t *args, char *err, size_t errlen)
{
	if (!json_is_object(args)) {
		snprintf(err, errlen, "arguments must be an object");
		return 1;
	}
	const json_t *props = json_object_get(schema, "properties");
	const json_t *req = json_object_get(schema, "required");
	size_t i;
	const json_t *r;
	json_array_foreach(req, i, r) {
		if (!json_object_get(args, json_string_value(r))) {
			snprintf(err, errlen, "missing required argument '%s'", json_string_value(r));
			return 1;
		}
	}
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)args, key, v) {
		const json_t *ps = json_object_get(props, key);
		if (!ps) {
			if (json_is_false(json_object_get(schema, "additionalProperties"))) {
				snprintf(err, errlen, "unknown argument '%.64s'", key);
				return 1;
			}
			continue;
		}
		if (check_value(key, ps, v, err, errlen))
			return 1;
	}
	return 0;
}
