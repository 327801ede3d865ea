/* `mtrial check model`: a TorchScript model run on this CPU in the
 * reference recipe's dtype and in the candidate's, on the same inputs,
 * and the outputs compared: an estimate of the precision risk before any
 * hardware is rented. The check is recorded as check_trial.h's are. */
#ifndef MT_MODEL_TRIAL_H
#define MT_MODEL_TRIAL_H

#include <jansson.h>

#include "check_trial.h"
#include "util.h"

/* A recipe: the dtype of the reference run and of the candidate run. */
typedef struct {
	const char *name, *ref, *cand, *what;
} mt_model_trial_recipe;

/* The recipe named `name` (fp32, bf16, fp16, f64-as-f32); NULL for none. Static. */
const mt_model_trial_recipe *mt_model_trial_recipe_find(const char *name);

typedef struct {
	const char *model, *inputs; /* the TorchScript archive; forward's arguments */
	const char *recipe;
	double rtol, atol;          /* NaN: assert_close's defaults for the dtypes */
	const char *typed_source;   /* what the result calls them ("--rtol/--atol") */
	int rehearsal;
	/* Called before forward runs, with the arguments it will be passed in
	 * words ("0 float32 [8, 16], 1 float32 [8, 16]"; borrowed for the
	 * call): TorchScript code runs. */
	void (*running)(const mt_model_trial_recipe *r, const char *arguments, void *payload);
	void *payload;
} mt_model_trial_options;

/* Runs the model twice, compares the outputs and records the check when t
 * is not NULL. A forward that fails names the arguments it was given. */
int mt_model_trial_check(mt_check_trial_result *out, mt_trial *t,
			 const mt_model_trial_options *o);

#endif
