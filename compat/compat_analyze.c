/* The analyze reader of compat_import: the JSON of torch_neuronx.analyze()
 * and of `neuron_parallel_compile --command analyze` (result.json), read as
 * an observed table. */
#include "compat_import_int.h"
#include "compat.h"
#include "error.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int an_op(char *op, size_t size, const char *name, const char *where,
		 const char *origin)
{
	if (!name || mt_compat__op_name(op, size, name) < 0)
		return mt_error_set(MT_EINVALID, "%s: %s: '%s' is not an operator name", origin,
				    where, name ? name : "(missing)");
	return 0;
}

static int an_supported(struct entries *e, json_t *sup, const char *origin)
{
	const char *key;
	json_t *v;
	char op[256];
	int error;

	if (sup && !json_is_object(sup) && !json_is_null(sup))
		return mt_error_set(MT_EINVALID, "%s: supported_operators must map op names to "
				    "counts", origin);
	json_object_foreach(sup, key, v) {
		struct entry *x;
		if ((error = an_op(op, sizeof(op), key, "supported_operators", origin)) < 0)
			return error;
		if (!json_is_integer(v))
			return mt_error_set(MT_EINVALID, "%s: supported_operators: the count of %s "
					    "is not a number", origin, key);
		x = mt_compat__entry_find(e, op);
		if (!x)
			x = mt_compat__entry_add(e, op, MT_COMPAT_DEVICE, 0);
		x->count += (long)json_integer_value(v);
	}
	return 0;
}

static int an_unsupported(struct entries *e, json_t *list, const char *origin)
{
	size_t i;
	json_t *u;
	int error;

	if (list && !json_is_array(list) && !json_is_null(list))
		return mt_error_set(MT_EINVALID, "%s: unsupported_operators must be a list",
				    origin);
	json_array_foreach(list, i, u) {
		const char *at = json_string_value(json_object_get(u, "failureAt"));
		const char *call = json_string_value(json_object_get(u, "call"));
		char op[256], where[64], detail[512];
		struct entry *x;
		snprintf(where, sizeof(where), "unsupported_operators[%zu].kind", i);
		if ((error = an_op(op, sizeof(op), json_string_value(json_object_get(u, "kind")),
				   where, origin)) < 0)
			return error;
		x = mt_compat__entry_find(e, op);
		if (!x)
			x = mt_compat__entry_add(e, op, MT_COMPAT_UNSUPPORTED, 0);
		snprintf(detail, sizeof(detail), "failed at %s%s%.*s", at ? at : "an unnamed stage",
			 call ? "; call " : "", call ? (int)strcspn(call, "\n") : 0,
			 call ? call : "");
		if (x->nfail++ < 3 && !mt_compat__strv_has(&x->conds, detail))
			mt_compat__strv_push(&x->conds, detail);
	}
	return 0;
}

static void an_xla(struct entries *e, json_t *list)
{
	size_t i;
	json_t *u;
	json_array_foreach(list, i, u) {
		const char *hlo = json_string_value(json_object_get(u, "hlo_instruction"));
		const char *aten = json_string_value(json_object_get(u, "aten_op"));
		char op[256];
		struct entry *x;
		if (!hlo || !aten || mt_compat__op_name(op, sizeof(op), aten) < 0 ||
		    !(x = mt_compat__entry_find(e, op)))
			continue;
		if (x->hlo.n < 5 && !mt_compat__strv_has(&x->hlo, hlo))
			mt_compat__strv_push(&x->hlo, hlo);
	}
}

/* Supported only: device; failed only: unsupported; both: partial. */
static void an_decide(struct entry *x)
{
	mt_buf b = MT_BUF_INIT;
	strv conds = x->conds;

	memset(&x->conds, 0, sizeof(x->conds));
	if (x->count)
		mt_buf_printf(&b, "observed: %ld occurrence%s compiled", x->count,
			      x->count == 1 ? "" : "s");
	if (x->nfail && !x->count) {
		x->status = MT_COMPAT_UNSUPPORTED;
		mt_buf_printf(&b, "observed failing (%ld): ", x->nfail);
		for (size_t k = 0; k < conds.n; k++)
			mt_buf_printf(&b, "%s%s", k ? "; " : "", conds.v[k]);
	} else if (x->nfail) {
		x->status = MT_COMPAT_PARTIAL;
		for (size_t k = 0; k < conds.n; k++) {
			char c[600];
			snprintf(c, sizeof(c), "fails in some configurations: %s", conds.v[k]);
			mt_compat__strv_push(&x->conds, c);
		}
	}
	for (size_t k = 0; k < x->hlo.n; k++)
		mt_buf_printf(&b, "%sHLO not supported: %s", b.len ? "; " : "", x->hlo.v[k]);
	mt_compat__note_add(x, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	mt_compat__strv_dispose(&conds);
}

int mt_compat__from_analyze(struct entries *e, struct identity *id, const char *text,
			    size_t len, const mt_compat_import_convert_options *o, char **version)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *sup, *uns;
	const char *tnx, *cc, *pct;
	int training, error;

	if (!root)
		return mt_error_set(MT_EINVALID, "%s:%d:%d: %s", o->origin, jerr.line, jerr.column,
				    jerr.text);
	sup = json_object_get(root, "supported_operators");
	uns = json_object_get(root, "unsupported_operators");
	if (!json_is_object(sup)) {
		json_decref(root);
		return mt_error_set(MT_EINVALID, "%s: not analyze output (no supported_operators "
				    "map)", o->origin);
	}
	training = json_is_object(json_object_get(sup, "aten")) || json_is_object(uns);
	if ((error = an_supported(e, training ? json_object_get(sup, "aten") : sup,
				  o->origin)) < 0 ||
	    (error = an_unsupported(e, training ? json_object_get(uns, "aten") : uns,
				    o->origin)) < 0)
		goto cleanup;
	if (training)
		an_xla(e, json_object_get(uns, "xla"));
	for (size_t i = 0; i < e->n; i++)
		an_decide(&e->v[i]);
	tnx = json_string_value(json_object_get(root, "torch_neuronx_version"));
	cc = json_string_value(json_object_get(root, "neuronx_cc_version"));
	pct = json_string_value(json_object_get(root, "support_percentage"));
	if (tnx) {
		mt_buf v = MT_BUF_INIT;
		mt_buf_puts(&v, tnx);
		if (cc)
			mt_buf_printf(&v, " (neuronx-cc %s)", cc);
		*version = mt_buf_detach(&v);
	}
	id->kind = "observed";
	id->device = "xla";
	mt_buf_printf(&id->note, "Observed, not documented: the output of %s read from %s "
		      "(support_percentage %s), which compiled each op of a real model with "
		      "neuronx-cc. An op that compiled is device, one that failed is "
		      "unsupported, one that did both is partial with the failures as "
		      "conditions. These hold for the shapes, dtypes and arguments of the "
		      "analyzed model only; an op it did not run is unknown.",
		      training ? "neuron_parallel_compile --command analyze (training, "
				 "result.json)"
			       : "torch_neuronx.analyze() (inference)",
		      o->origin, pct ? pct : "not given");
cleanup:
	json_decref(root);
	return error;
}
