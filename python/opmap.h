/* From PyTorch calls to aten operators, without loading libtorch.
 *
 * Two sources: the operator registry of the libtorch mtrial was built with
 * (generated at build time by tools/gen_aten_registry.cc into
 * aten_registry.c), and the curated tables tables/api_map.yaml (Python APIs)
 * and tables/tensor_methods.yaml (torch.Tensor methods).
 *
 * An API resolves (mt_opmap_api) in this order:
 *   1. an entry in api_map.yaml, its own or else the longest wildcard that
 *      covers it (`torch.cuda.*`): its op (MT_OP_MAPPED), or, for an entry
 *      whose op is null, NULL with MT_OP_NOT_AN_OP (torch.no_grad);
 *   2. by name, for an API in one of the namespaces listed under by_name:
 *      in api_map.yaml (torch, torch.nn.functional, torch.linalg...) whose
 *      last component starts in lower case: "aten::" + the namespace's
 *      prefix + that component when registered (torch.sigmoid ->
 *      aten::sigmoid, torch.nn.functional.relu_ -> aten::relu_,
 *      torch.linalg.norm -> aten::linalg_norm), MT_OP_BY_NAME. A CamelCase
 *      class is never resolved by name, nor is `math.sqrt`;
 *   3. otherwise NULL with MT_OP_UNKNOWN.
 *
 * A method name resolves (mt_opmap_method) in this order:
 *   1. a name on the deny list of tensor_methods.yaml (`append`, `items`...)
 *      is not a tensor method: NULL, MT_OP_UNKNOWN;
 *   2. an entry in tensor_methods.yaml: MT_OP_MAPPED or MT_OP_NOT_AN_OP;
 *   3. a registered aten op that is a torch.Tensor method (see
 *      mt_aten_op.method): "aten::NAME", MT_OP_BY_NAME;
 *   4. otherwise NULL, MT_OP_UNKNOWN.
 * A method name says nothing about its receiver: `self.relu(x)` on a module
 * attribute and `model.to(dev)` on a module look like tensor methods; the
 * caller decides which receivers to ask about.
 *
 * Every string returned is borrowed: registry strings live for the process,
 * table strings until mt_opmap_free(). A loaded mt_opmap is immutable, so
 * any number of threads may read it at once. */
#ifndef MT_OPMAP_H
#define MT_OPMAP_H

#include <stddef.h>

/* --- the operator registry ------------------------------------------------ */

/* One operator schema. Its strings live for the process. */
typedef struct {
	const char *name;     /* "aten::add" (any namespace: aten, prim, quantized...) */
	const char *overload; /* "Tensor" for aten::add.Tensor, "" for the default */
	const char *schema;   /* "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" */
	int self_tensor;      /* the first argument is `Tensor self` */
	int method;           /* an aten op that torch.Tensor also has as a method
				 (all overloads of a name agree) */
} mt_aten_op;

/* 1 if an operator of that name ("aten::linear", no overload) is registered. */
int mt_aten_registered(const char *name);

/* The number of schemas (name, overload pairs) in the registry. */
size_t mt_aten_count(void);

/* The i-th schema in the registry's order, sorted by (name, overload) with
 * strcmp, no duplicates: 0, or -1 when i >= mt_aten_count(). */
int mt_aten_at(size_t i, mt_aten_op *out);

/* The overloads of `name`: their number (0 for none), the first (the
 * default overload "" sorts first) at index *first. */
size_t mt_aten_lookup(const char *name, size_t *first);

/* The version of libtorch the registry was generated from. */
const char *mt_aten_version(void);

/* What to say about an op the team records a finding about (`mtrial
 * override`, the wizard's finding): NULL when "aten::NAME[.OVERLOAD]" has
 * its base name in the registry, else a warning that it is not (a typo, or
 * an op of a newer PyTorch). Caller frees. */
char *mt_aten_unregistered_warning(const char *op);

/* --- the API and method tables ------------------------------------------- */

typedef struct mt_opmap mt_opmap;

enum mt_op_kind {
	MT_OP_UNKNOWN = 0, /* neither in a table nor a registered op by name */
	MT_OP_MAPPED,      /* from a table entry */
	MT_OP_BY_NAME,     /* the name itself is a registered aten op */
	MT_OP_NOT_AN_OP,   /* a table says it dispatches no operator of its own */
};

/* One table entry. */
typedef struct {
	const char *name;  /* "torch.nn.Linear", or a method name "double" */
	const char *op;    /* "aten::linear"; NULL for a non-op */
	const char *why;   /* a non-op: what it is instead; else NULL */
	const char *note;  /* a caveat on the mapping, or NULL */
	const char *also;  /* methods only: the non-tensor method of the same
			      name that a name-only count also catches
			      ("str.split"), or NULL */
	int newer;         /* op is absent from libtorch 1.13's registry and
			      exists in newer PyTorch (`registry: newer`) */
	unsigned line;     /* where the entry's name is in its file, 1-based */
	unsigned col;
} mt_opmap_entry;

/* Loads api_map.yaml and tensor_methods.yaml (bundled, or from
 * $MTRIAL_TABLES_DIR). A malformed table fails with MT_EINVALID and a
 * "FILE:LINE:COL: what" message; *out is then NULL. */
int mt_opmap_load(mt_opmap **out);

void mt_opmap_free(mt_opmap *m);

/* The op a fully qualified API dispatches ("torch.nn.functional.gelu" ->
 * "aten::gelu"), or NULL; *kind (may be NULL) says which rule answered. */
const char *mt_opmap_api(const mt_opmap *m, const char *api, enum mt_op_kind *kind);

/* The api_map.yaml entry for `api`: its own, else the longest wildcard
 * ("torch.cuda.*") covering it, else NULL. */
const mt_opmap_entry *mt_opmap_api_entry(const mt_opmap *m, const char *api);

/* 1 if `name` counts as a torch.Tensor method (`view`, `cuda`, `double`),
 * 0 otherwise (`append`). */
int mt_opmap_is_tensor_method(const mt_opmap *m, const char *name);

/* The op a tensor method dispatches ("view" -> "aten::view"), or NULL. */
const char *mt_opmap_method(const mt_opmap *m, const char *name, enum mt_op_kind *kind);

/* The tensor_methods.yaml entry for `name`, or NULL. */
const mt_opmap_entry *mt_opmap_method_entry(const mt_opmap *m, const char *name);

/* The entries of api_map.yaml (methods 0) or tensor_methods.yaml
 * (methods 1), in name order: the i-th, NULL past the end. */
const mt_opmap_entry *mt_opmap_entry_at(const mt_opmap *m, int methods, size_t i);

/* The `source:` text of api_map.yaml (methods 0) or tensor_methods.yaml. */
const char *mt_opmap_source(const mt_opmap *m, int methods);

/* A name for the kind: "mapped", "by-name", "not-an-op", "unknown". */
const char *mt_op_kind_str(enum mt_op_kind kind);

#endif
